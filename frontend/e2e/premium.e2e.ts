import type { Browser, Page } from 'playwright-core';
import { DESKTOP, newPage, PHONE, RunningServer, screenshot, signInThroughLanding, withAppAndBrowser } from './support';

/** The plan's date as the Account page writes it, in the browser's own locale. */
async function planDate(page: Page): Promise<string> {
  const res = await page.request.get(`${new URL(page.url()).origin}/api/subscription-status`);
  const { currentPeriodEnd } = (await res.json()) as { currentPeriodEnd: string };
  return page.evaluate(
    (iso) => new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium' }),
    currentPeriodEnd,
  );
}

async function payWith(page: Page, card: string) {
  await page.getByLabel('Card number').fill(card);
  await page.getByLabel('Expiry date').fill('1240');
  await page.getByLabel('CVC').fill('123');
  await page.getByRole('button', { name: 'Subscribe to Joy Premium' }).click();
}

describe('Joy Premium in the sandbox: upgrade, account, cancel', () => {
  let server: RunningServer;
  let browser: Browser;

  withAppAndBrowser((s, b) => ([server, browser] = [s, b]));

  it('a free user subscribes with the test card, sees Joy Premium on the Account page, and cancels at the period end', async () => {
    const { page, context } = await newPage(browser, DESKTOP);
    page.setDefaultTimeout(30_000); // full-page loads on a busy CI machine
    await signInThroughLanding(page, server.baseUrl, 'ada@example.com', 'Ada');
    const nav = page.getByRole('navigation', { name: 'Main' }).first();
    await nav.getByRole('link', { name: 'Upgrade' }).waitFor();

    // The Account page of a free user.
    await page.getByRole('link', { name: 'Account' }).first().click();
    await page.waitForURL(`${server.baseUrl}/account`);
    await page.getByTestId('plan-name').getByText('Free').waitFor();
    await screenshot(page, 'premium-account-free-desktop');

    await page.getByRole('link', { name: 'Upgrade to Joy Premium' }).click();
    await page.waitForURL(`${server.baseUrl}/subscribe`);
    await page.getByRole('heading', { name: 'Joy Premium', level: 1 }).waitFor();
    await page.getByText('Unlock the full power of happiness tracking and care actions').waitFor();
    await page.getByText('Test mode — no money moves.').waitFor();
    await page.getByText('$4.99').waitFor();
    await screenshot(page, 'premium-subscribe-desktop');

    await payWith(page, '4242 4242 4242 4242');
    await page.getByText('Welcome to Joy Premium!').waitFor();
    await page.getByText('Your subscription is now active. Enjoy Care Actions and premium features!').waitFor();
    await nav.getByRole('link', { name: 'Upgrade' }).waitFor({ state: 'detached' });
    await page.getByText('Joy Premium is active.').waitFor();
    await screenshot(page, 'premium-subscribed-desktop');

    await page.getByRole('link', { name: 'Go to Your Account' }).click();
    await page.waitForURL(`${server.baseUrl}/account`);
    await page.getByTestId('plan-name').getByText('Joy Premium').waitFor();
    const renewal = await planDate(page);
    await page.getByTestId('plan-date').getByText(`Renews on ${renewal}`).waitFor();
    await screenshot(page, 'premium-account-active-desktop');

    await page.getByRole('button', { name: 'Cancel Subscription' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('.ant-modal-confirm-title', { hasText: 'Cancel Joy Premium?' }).waitFor();
    await dialog.getByText(`until the end of your current billing period, on ${renewal}`, { exact: false }).waitFor();
    await screenshot(page, 'premium-cancel-dialog-desktop');
    // From the keyboard: the safe answer has the focus; Tab to the cancelling one and Enter.
    await expect(dialog.getByRole('button', { name: 'Keep Joy Premium' }).evaluate((b) => b === document.activeElement)).resolves.toBe(true);
    await page.keyboard.press('Shift+Tab');
    await expect(dialog.getByRole('button', { name: 'Cancel Subscription' }).evaluate((b) => b === document.activeElement)).resolves.toBe(true);
    await page.keyboard.press('Enter');
    await page.getByTestId('plan-date').getByText(`Ends on ${renewal}`).waitFor();
    await page.getByText('Subscription canceled').waitFor();
    await page.getByTestId('plan-name').getByText('Joy Premium').waitFor();
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.getByRole('button', { name: 'Cancel Subscription' }).count()).toBe(0);
    // The focus is on the button that took the cancelled one's place, not on the page (a review, 11-27).
    await page.waitForFunction(() => document.activeElement?.textContent === 'Resume Joy Premium');

    // Still premium after a reload: no Upgrade link, and the status says so.
    await page.reload();
    await page.getByTestId('plan-date').getByText(`Ends on ${renewal}`).waitFor();
    expect(await nav.getByRole('link', { name: 'Upgrade' }).count()).toBe(0);
    const status = await (await page.request.get(`${server.baseUrl}/api/subscription-status`)).json();
    expect(status).toMatchObject({ isPremium: true, status: 'canceling', cancelAtPeriodEnd: true });
    await screenshot(page, 'premium-account-canceling-desktop');

    // Opening Subscribe again: "Already Subscribed" and the plan as it is (no endless spinner), with Resume.
    await page.goto(`${server.baseUrl}/subscribe`);
    await page.getByText('You already have an active Joy Premium subscription!').waitFor();
    await page.getByText('Your Joy Premium is canceled').waitFor();
    expect(await page.getByText('Start Your Premium Journey').count()).toBe(0);
    await screenshot(page, 'premium-subscribe-canceled-desktop');
    await page.setViewportSize({ width: 360, height: 780 });
    await screenshot(page, 'premium-subscribe-canceled-360');
    await page.setViewportSize({ width: 1280, height: 900 });

    // Changed their mind: Resume on the Account page, renewing again.
    await page.goto(`${server.baseUrl}/account`);
    await page.getByRole('button', { name: 'Resume Joy Premium' }).click();
    await page.getByTestId('plan-date').getByText(`Renews on ${renewal}`).waitFor();
    await page.getByText('Joy Premium resumed').waitFor();
    await page.waitForFunction(() => document.activeElement?.textContent === 'Cancel Subscription');
    expect(await (await page.request.get(`${server.baseUrl}/api/subscription-status`)).json()).toMatchObject({ status: 'active', cancelAtPeriodEnd: false });
    await context.close();
  });

  it('a declined card shows Payment Failed on a phone, and the user stays on the free plan', async () => {
    const { page, context } = await newPage(browser, PHONE);
    page.setDefaultTimeout(30_000);
    await signInThroughLanding(page, server.baseUrl, 'bob@example.com', 'Bob');
    await page.getByRole('button', { name: 'Open menu' }).click();
    const drawer = page.locator('#nav-drawer');
    await drawer.getByRole('link', { name: 'Account' }).waitFor();
    await screenshot(page, 'premium-drawer-phone');
    await drawer.getByRole('link', { name: 'Upgrade' }).click();
    await page.waitForURL(`${server.baseUrl}/subscribe`);
    await page.getByText('Start Your Premium Journey').waitFor();
    await screenshot(page, 'premium-subscribe-phone');

    await payWith(page, '4000 0000 0000 0002');
    await page.getByText('Payment Failed').waitFor();
    await page.getByRole('alert').getByText('Your card was declined.').waitFor();
    // Under the card number too (the toast goes after a few seconds), which is marked invalid and has the focus.
    const cardNumber = page.getByLabel('Card number');
    expect(await cardNumber.getAttribute('aria-invalid')).toBe('true');
    expect(await cardNumber.evaluate((el) => el === document.activeElement)).toBe(true);
    await screenshot(page, 'premium-declined-phone');
    await page.getByRole('button', { name: 'Subscribe to Joy Premium' }).waitFor();
    expect(await page.getByRole('button', { name: 'Subscribe to Joy Premium' }).isEnabled()).toBe(true);
    const status = await (await page.request.get(`${server.baseUrl}/api/subscription-status`)).json();
    expect(status).toMatchObject({ isPremium: false, status: 'free' });

    // Then the good card works, and Account shows the plan on a phone.
    await payWith(page, '4242 4242 4242 4242');
    await page.getByText('Welcome to Joy Premium!').waitFor();
    await page.goto(`${server.baseUrl}/account`);
    await page.getByTestId('plan-name').getByText('Joy Premium').waitFor();
    await page.getByTestId('plan-date').getByText(/^Renews on /).waitFor();
    await screenshot(page, 'premium-account-active-phone');
    await context.close();
  });

  it('a premium user sees the analytics of their whole history, and they follow a deleted rating', async () => {
    const { page, context } = await newPage(browser, DESKTOP);
    page.setDefaultTimeout(30_000);
    await signInThroughLanding(page, server.baseUrl, 'dora@example.com', 'Dora');
    const { clientSecret } = (await (await page.request.post(`${server.baseUrl}/api/create-subscription`, { data: {} })).json()) as { clientSecret: string };
    const paid = await page.request.post(`${server.baseUrl}/api/billing/sandbox/confirm`, { data: { clientSecret, cardNumber: '4242424242424242' } });
    expect(paid.status()).toBe(200);
    // One rating on each of the 8 days before today (missed days rated now): every weekday, one of them twice.
    const today = new Date().toISOString().slice(0, 10);
    const ids: string[] = [];
    for (let back = 8; back >= 1; back--) {
      const day = new Date(Date.parse(`${today}T12:00:00Z`) - back * 86_400_000).toISOString().slice(0, 10);
      const score = 1 + (back % 5);
      const res = await page.request.post(`${server.baseUrl}/api/joy-ratings`, {
        data: { relationships: score, health: score, purpose: score, growth: score, joy: score, day },
      });
      expect(res.status()).toBe(201);
      ids.push(((await res.json()) as { id: string }).id);
    }
    const table = (caption: string) => page.locator('table', { has: page.locator('caption', { hasText: caption }) }).locator('tbody tr');
    /** The ratings the weekday pattern rests on, added up over the seven weekdays. */
    const weekdayRatings = async () => {
      const counts = await table('Average overall score by weekday').locator('td:nth-of-type(2)').allTextContents();
      expect(counts).toHaveLength(7);
      return counts.reduce((sum, c) => sum + Number(c), 0);
    };

    await page.goto(`${server.baseUrl}/insights`);
    await page.getByRole('heading', { name: 'Advanced Analytics' }).waitFor();
    // The first day rated, though every rating was made today.
    const firstDay = new Date(Date.parse(`${today}T12:00:00Z`) - 8 * 86_400_000).toISOString().slice(0, 10);
    const shown = await page.evaluate((day) => new Date(`${day}T12:00:00Z`).toLocaleDateString(undefined, { dateStyle: 'medium', timeZone: 'UTC' }), firstDay);
    await page.getByText(`Your full history since ${shown}`).waitFor();
    await table('Forecast of your overall score for the next 7 days').first().waitFor({ state: 'attached' });
    expect(await weekdayRatings()).toBe(8);
    expect(await table('Forecast of your overall score for the next 7 days').count()).toBe(7);
    expect(await table('Weekly average of each PERMA factor').count()).toBeGreaterThanOrEqual(2);
    await screenshot(page, 'premium-insights-desktop');

    // Two days' ratings deleted: 6 days left, too few for a forecast.
    for (const id of ids.slice(0, 2)) expect((await page.request.delete(`${server.baseUrl}/api/joy-ratings/${id}`)).status()).toBe(204);
    await page.reload();
    await page.getByTestId('forecast-unavailable').waitFor();
    expect(await weekdayRatings()).toBe(6);
    await context.close();
  });
});
