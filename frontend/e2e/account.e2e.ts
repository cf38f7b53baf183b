import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { DESKTOP, newPage, PHONE, RunningServer, screenshot, signInThroughLanding, viewportShot, withAppAndBrowser } from './support';

const PERSON = { email: 'quintessa.marlowe@example.com', firstName: 'Quintessa' };

async function rateOnHome(page: Page) {
  await page.getByRole('heading', { name: 'Rate Your Joy Today' }).waitFor();
  await page.getByLabel('Relationships: 5 stars, Very High').check({ force: true });
  await page.getByLabel('Health: 4 stars, High').check({ force: true });
  await page.getByLabel('Purpose: 4 stars, High').check({ force: true });
  await page.getByLabel('Growth: 2 stars, Low').check({ force: true });
  await page.getByLabel('Joy: 5 stars, Very High').check({ force: true });
  await page.getByRole('button', { name: 'Save Rating' }).click();
  await page.getByText('Rating Saved!').waitFor();
}

describe('account: export and deletion in the browser', () => {
  let server: RunningServer;
  let browser: Browser;

  withAppAndBrowser((s, b) => ([server, browser] = [s, b]));

  it('a user rates, downloads the JSON export, deletes the account, lands signed out, and starts afresh', async () => {
    const { page, context } = await newPage(browser, DESKTOP);
    page.setDefaultTimeout(30_000);
    await signInThroughLanding(page, server.baseUrl, PERSON.email, PERSON.firstName);
    await page.getByText(`Welcome back, ${PERSON.firstName}!`).waitFor();
    await rateOnHome(page);

    await page.goto(`${server.baseUrl}/account`);
    await page.getByRole('heading', { name: 'Your Data' }).waitFor();
    await page.getByRole('heading', { name: 'Delete Account' }).waitFor();
    await screenshot(page, 'account-desktop');

    // Download JSON: a real download of the file.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download JSON' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^joy-export-\d{4}-\d{2}-\d{2}\.json$/);
    const exported = JSON.parse(readFileSync((await download.path())!, 'utf8'));
    expect(exported.profile).toMatchObject({ email: PERSON.email, firstName: PERSON.firstName });
    expect(exported.ratings).toEqual([
      expect.objectContaining({ relationships: 5, health: 4, purpose: 4, growth: 2, joy: 5, overallScore: 4 }),
    ]);
    const csv = await page.request.get(`${server.baseUrl}/api/account/export?format=csv`);
    expect(csv.headers()['content-disposition']).toMatch(/joy-export-\d{4}-\d{2}-\d{2}\.csv/);
    expect((await csv.text()).split('\r\n').filter((l) => l.startsWith('rating,'))).toHaveLength(1);

    // Delete: the dialog explains, and the button waits for the word.
    await page.getByRole('button', { name: 'Delete account' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete your account?' });
    await dialog.waitFor();
    await dialog.getByText('You leave all your groups; the other members keep their groups.').waitFor();
    const confirm = dialog.getByRole('button', { name: 'Delete my account' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel('Type DELETE to confirm').fill('DELETE');
    expect(await confirm.isEnabled()).toBe(true);
    await viewportShot(page, 'account-delete-dialog-desktop');
    await confirm.click();
    // The dialog says goodbye and stays until the person leaves.
    const goodbye = page.getByRole('dialog', { name: 'Account deleted' });
    await goodbye.getByText('Your personal data has been erased. Goodbye, and take care.').waitFor();
    await viewportShot(page, 'account-deleted-dialog-desktop');
    await goodbye.getByRole('button', { name: 'Go to the home page' }).click();
    await page.waitForURL(`${server.baseUrl}/`);
    await page.getByRole('button', { name: 'Sign In' }).first().waitFor();
    await screenshot(page, 'account-deleted-landing-desktop');
    expect((await page.request.get(`${server.baseUrl}/api/auth/user`)).status()).toBe(401);

    // Signing in again with the same e-mail: a fresh, empty account.
    await signInThroughLanding(page, server.baseUrl, PERSON.email, PERSON.firstName);
    await page.getByText(`Welcome back, ${PERSON.firstName}!`).waitFor();
    await page.getByRole('heading', { name: 'Rate Your Joy Today' }).waitFor();
    expect(await page.getByText('Your Current Joy Level').count()).toBe(0);
    const fresh = await (await page.request.get(`${server.baseUrl}/api/account/export?format=json`)).json();
    expect(fresh).toMatchObject({ ratings: [], groups: [], careActionsSent: [], careActionsReceived: [] });
    await screenshot(page, 'account-fresh-home-desktop');
    await context.close();

    // The server's log never saw the person's e-mail or name.
    expect(server.output()).not.toContain(PERSON.email);
    expect(server.output()).not.toContain(PERSON.firstName);
  });

  it('fits a phone: the Account page and the deletion dialog', async () => {
    const { page, context } = await newPage(browser, PHONE);
    page.setDefaultTimeout(30_000);
    await signInThroughLanding(page, server.baseUrl, 'pip@example.com', 'Pip');
    await page.goto(`${server.baseUrl}/account`);
    await page.getByRole('heading', { name: 'Your Data' }).waitFor();
    await page.getByRole('button', { name: 'Download CSV' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await screenshot(page, 'account-phone');
    await page.getByRole('button', { name: 'Delete account' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete your account?' });
    await dialog.getByLabel('Type DELETE to confirm').fill('DEL');
    await viewportShot(page, 'account-delete-dialog-phone');
    await dialog.getByRole('button', { name: 'Keep my account' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await page.request.get(`${server.baseUrl}/api/auth/user`)).status()).toBe(200);
    await context.close();
  });

  it('a member declines care actions with the switch on the Account page, and it stays so after a reload', async () => {
    const { page, context } = await newPage(browser, DESKTOP);
    page.setDefaultTimeout(30_000);
    await signInThroughLanding(page, server.baseUrl, 'rosalind.care@example.com', 'Rosalind');
    await page.getByText('Welcome back, Rosalind!').waitFor();
    await page.goto(`${server.baseUrl}/account`);
    await page.getByRole('heading', { name: 'Care Actions' }).waitFor();
    const toggle = page.getByRole('switch', { name: /Accept care actions from my groups/ });
    expect(await toggle.getAttribute('aria-checked')).toBe('true');
    await toggle.click();
    await page.getByText('Settings saved').waitFor();
    await page.getByText('Nobody can send you care actions, and care suggestions do not name you.').waitFor();
    await screenshot(page, 'account-care-declined');
    expect((await (await page.request.get(`${server.baseUrl}/api/settings`)).json())).toMatchObject({ acceptCareActions: false });

    await page.reload();
    await page.getByRole('heading', { name: 'Care Actions' }).waitFor();
    await page.waitForFunction(() => document.querySelector('#accept-care-actions')?.getAttribute('aria-checked') === 'false');
    await context.close();
  });
});
