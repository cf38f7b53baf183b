/**
 * A real install (no opt-ins) as a new user meets it: create an account on a phone, sign out, a wrong password,
 * sign in on a desktop, the Subscribe page without payments, delete the account (its password stops working).
 * The sign-in pages are screenshotted at 360 and 1280 px (test-artifacts/screenshots/accounts-*) and checked
 * with axe-core.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeViolations, RunningServer, screenshot, seriousViolations, withAppAndBrowser } from './support';

const NARROW = { width: 360, height: 780 };
const WIDE = { width: 1280, height: 900 };
const PERSON = { firstName: 'Ylva', email: 'ylva.brightwater@example.com', password: 'juniper-lighthouse-canyon-58' };

/** A context with CSP bypassed, so that axe-core can be injected into the provider's pages. */
async function open(browser: Browser, viewport: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport, bypassCSP: true });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  return { context, page };
}

async function expectAccessible(page: Page, where: string) {
  expect(describeViolations(where, await seriousViolations(page))).toBe('');
  // Nothing wider than the screen (no sideways scrolling on a phone).
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
}

async function toSignIn(page: Page, baseUrl: string) {
  await page.goto(baseUrl);
  await page.getByRole('button', { name: 'Sign In' }).first().click();
  await page.waitForURL(/\/oidc\/interaction\//);
  await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
}

describe('accounts on a real install: create account, sign out, wrong password, sign in, delete', () => {
  let server: RunningServer;
  let browser: Browser;

  withAppAndBrowser((s, b) => ([server, browser] = [s, b]), { AUTH_DEV_LOGIN: '0', BILLING_SANDBOX: '0' });

  it('creates an account on a phone (360 px), after a refused weak password', async () => {
    const { page, context } = await open(browser, NARROW);
    await toSignIn(page, server.baseUrl);
    expect(await page.getByText('Development sign-in').count()).toBe(0);
    await screenshot(page, 'accounts-sign-in-360');
    await expectAccessible(page, 'sign-in 360');

    await page.getByRole('link', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Create account', level: 1 }).waitFor();
    // The first field has the focus: typing starts at once.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('firstName');
    await screenshot(page, 'accounts-create-360');
    await expectAccessible(page, 'create account 360');

    await page.getByLabel('First name').fill(PERSON.firstName);
    await page.getByLabel('Email').fill(PERSON.email);
    await page.getByLabel('Password', { exact: true }).fill('too-short');
    await page.getByLabel('Confirm password').fill('too-short');
    await page.getByRole('button', { name: 'Create account' }).click();
    const password = page.getByLabel('Password', { exact: true });
    await page.getByText('Password must be at least 10 characters.').waitFor();
    expect(await password.getAttribute('aria-invalid')).toBe('true');
    // The form keeps what was typed (never the passwords) and focuses the field to fix.
    expect(await page.getByLabel('First name').inputValue()).toBe(PERSON.firstName);
    expect(await password.inputValue()).toBe('');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('password');
    await screenshot(page, 'accounts-create-error-360');
    await expectAccessible(page, 'create account error 360');

    await password.fill(PERSON.password);
    await page.getByLabel('Confirm password').fill(PERSON.password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${server.baseUrl}/`);
    await page.getByText(`Welcome back, ${PERSON.firstName}!`).waitFor();
    await context.close();
  });

  it('signs out, refuses a wrong password, signs in on a desktop (1280 px), and says payments are not set up', async () => {
    const { page, context } = await open(browser, WIDE);
    await toSignIn(page, server.baseUrl);
    await screenshot(page, 'accounts-sign-in-1280');
    await page.getByRole('link', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Create account', level: 1 }).waitFor();
    await screenshot(page, 'accounts-create-1280');
    await expectAccessible(page, 'create account 1280');
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();

    // Keyboard only: the e-mail field has the focus, Tab to the password, Enter submits.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('email');
    await page.keyboard.type(PERSON.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type('not-my-password-at-all');
    await page.keyboard.press('Enter');
    const alert = page.getByRole('alert');
    await alert.getByText('Wrong e-mail or password.').waitFor();
    expect(await page.getByLabel('Email').inputValue()).toBe(PERSON.email);
    await screenshot(page, 'accounts-wrong-password-1280');
    await expectAccessible(page, 'wrong password 1280');

    await page.getByLabel('Password').fill(PERSON.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${server.baseUrl}/`);
    await page.getByText(`Welcome back, ${PERSON.firstName}!`).waitFor();
    expect(await page.getByRole('note', { name: 'Demo install' }).count()).toBe(0);

    await page.goto(`${server.baseUrl}/subscribe`);
    await page.getByText('Payments are not set up on this install').waitFor();
    await screenshot(page, 'accounts-subscribe-not-set-up-1280');

    await page.getByRole('button', { name: 'Sign Out' }).first().click();
    await page.getByRole('button', { name: 'Sign In' }).first().waitFor();
    expect((await page.request.get(`${server.baseUrl}/api/auth/user`)).status()).toBe(401);
    // Signed out, the back button shows no personal page from the cache (no-store).
    await page.goBack();
    await page.getByRole('button', { name: 'Sign In' }).first().waitFor();
    await context.close();
  });

  it('deletes the account: the old password no longer signs in', async () => {
    const { page, context } = await open(browser, WIDE);
    await toSignIn(page, server.baseUrl);
    await page.getByLabel('Email').fill(PERSON.email);
    await page.getByLabel('Password').fill(PERSON.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${server.baseUrl}/`);
    await deleteAccount(page, server.baseUrl);

    await toSignIn(page, server.baseUrl);
    await page.getByLabel('Email').fill(PERSON.email);
    await page.getByLabel('Password').fill(PERSON.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').getByText('Wrong e-mail or password.').waitFor();
    expect((await page.request.get(`${server.baseUrl}/api/auth/user`)).status()).toBe(401);
    await context.close();
  });

  it('opens a signed-in page from a bookmark while signed out: sign-in first, then that very page', async () => {
    const { page, context } = await open(browser, NARROW);
    const person = { firstName: 'Bo', email: 'bo.bookmark@example.com', password: 'amber-orchard-lantern-71' };
    await page.goto(`${server.baseUrl}/insights`);
    await page.waitForURL(/\/oidc\/interaction\//);
    await createAccount(page, person);
    await page.waitForURL(`${server.baseUrl}/insights`);
    await page.getByRole('heading', { name: 'Joy Insights', level: 1 }).waitFor();
    await screenshot(page, 'accounts-bookmark-insights-360');
    // An unknown path is still the 404 page, signed in or out.
    await page.goto(`${server.baseUrl}/no-such-page`);
    await page.getByRole('heading', { name: '404 Page Not Found' }).waitFor();
    await context.close();
  });

  it('adds a passkey on the Account page (Chromium\'s virtual authenticator), signs in with it, and not after the account is deleted', async () => {
    const { page, context } = await open(browser, WIDE);
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    const person = { firstName: 'Pia', email: 'pia.passkey@example.com', password: 'saffron-glacier-window-33' };
    await toSignIn(page, server.baseUrl);
    await createAccount(page, person);
    await page.getByText(`Welcome back, ${person.firstName}!`).waitFor();

    await page.goto(`${server.baseUrl}/account`);
    await page.getByRole('heading', { name: 'Passkeys' }).waitFor();
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByText('Passkey added', { exact: true }).waitFor();
    await page.getByText(/Passkey added on/).waitFor();
    await screenshot(page, 'accounts-passkey-added-1280');
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0].isResidentCredential).toBe(true);

    await page.getByRole('button', { name: 'Sign Out' }).first().click();
    await page.getByRole('button', { name: 'Sign In' }).first().waitFor();
    await toSignIn(page, server.baseUrl);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(`${server.baseUrl}/`);
    await page.getByText(`Welcome back, ${person.firstName}!`).waitFor();

    await deleteAccount(page, server.baseUrl);

    // The authenticator still holds the passkey, but the account and its public key are gone.
    await toSignIn(page, server.baseUrl);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByText('This passkey could not sign you in.', { exact: false }).waitFor();
    expect(page.url()).toContain('/oidc/interaction/');
    expect((await page.request.get(`${server.baseUrl}/api/auth/user`)).status()).toBe(401);
    await context.close();
  });
});


/** Deletes the signed-in account from the Account page, confirming as a person would; back on the landing page. */
async function deleteAccount(page: Page, baseUrl: string): Promise<void> {
  await page.goto(`${baseUrl}/account`);
  await page.getByRole('button', { name: 'Delete account' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete your account?' });
  await dialog.getByLabel('Type DELETE to confirm').fill('DELETE');
  await dialog.getByRole('button', { name: 'Delete my account' }).click();
  const goodbye = page.getByRole('dialog', { name: 'Account deleted' });
  await goodbye.getByText('Your personal data has been erased. Goodbye, and take care.').waitFor();
  await goodbye.getByRole('button', { name: 'Go to the home page' }).click();
  await page.waitForURL(`${baseUrl}/`);
}

/** From the provider's Sign in page: Create account, filled in as a person would, and sent. */
async function createAccount(page: Page, person: { firstName: string; email: string; password: string }): Promise<void> {
  await page.getByRole('link', { name: 'Create account' }).click();
  await page.getByLabel('First name').fill(person.firstName);
  await page.getByLabel('Email').fill(person.email);
  await page.getByLabel('Password', { exact: true }).fill(person.password);
  await page.getByLabel('Confirm password').fill(person.password);
  await page.getByRole('button', { name: 'Create account' }).click();
}
