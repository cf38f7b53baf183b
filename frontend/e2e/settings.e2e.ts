import type { Browser, Page } from 'playwright-core';
import { describeViolations, DESKTOP, PHONE_360, RunningServer, screenshot, seriousViolations, signInThroughLanding, withAppAndBrowser } from './support';

async function rateOnHome(page: Page) {
  await page.getByRole('heading', { name: 'Rate Your Joy Today' }).waitFor();
  for (const label of ['Relationships: 4 stars, High', 'Health: 4 stars, High', 'Purpose: 3 stars, Moderate', 'Growth: 4 stars, High', 'Joy: 5 stars, Very High']) {
    await page.getByLabel(label).check({ force: true });
  }
  await page.getByRole('button', { name: 'Save Rating' }).click();
  await page.getByText('Rating Saved!').waitFor();
}

async function settingsOf(page: Page, baseUrl: string) {
  return (await page.request.get(`${baseUrl}/api/settings`)).json();
}

/** The reminder time, set as Settings sets it (00:00: due all day, whatever the hour the test runs at). */
async function setReminder(page: Page, baseUrl: string, reminderTime: string | null) {
  const res = await page.request.patch(`${baseUrl}/api/settings`, { data: { reminderTime }, headers: { Origin: baseUrl } });
  expect(res.status()).toBe(200);
}

/** Polls `read` until `ok` holds; after `timeoutMs` fails naming what was awaited (nothing here waits forever). */
async function until<T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last seen: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('settings and the in-app reminder in the browser', () => {
  let server: RunningServer;
  let browser: Browser;

  withAppAndBrowser((s, b) => ([server, browser] = [s, b]));

  it('takes the browser\'s zone at the first sign-in, changes name, zone and reminder on /settings, keeps them after a reload, and the Home reminder goes once today is rated', async () => {
    const context = await browser.newContext({ viewport: DESKTOP, timezoneId: 'Asia/Tokyo', bypassCSP: true });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await signInThroughLanding(page, server.baseUrl, 'rosalind.settings@example.com', 'Rosalind');
    await page.getByText('Welcome back, Rosalind!').waitFor();

    // First sign-in: the zone is the browser's.
    expect(await until('the zone set at first sign-in', () => settingsOf(page, server.baseUrl), (s) => s.timeZone !== null)).toEqual({
      firstName: 'Rosalind',
      timeZone: 'Asia/Tokyo',
      reminderTime: null,
      acceptCareActions: true,
    });

    // Nothing rated today, but no reminder set: no in-app reminder (it comes at the reminder time).
    const reminder = page.getByTestId('reminder-card');
    await page.locator('#rate-today').waitFor();
    expect(await reminder.count()).toBe(0);
    // With a reminder time that has come: the in-app reminder, with a link to the form.
    await setReminder(page, server.baseUrl, '00:00');
    await page.reload();
    await reminder.getByText("You haven't rated today yet").waitFor();
    await screenshot(page, 'h5-home-reminder-1280');
    await setReminder(page, server.baseUrl, null); // Settings below turns it on itself
    await page.reload();
    await page.locator('#rate-today').waitFor();

    // Settings, from the navigation.
    await page.getByRole('navigation', { name: 'Main' }).first().getByRole('link', { name: 'Settings' }).click();
    await page.waitForURL(`${server.baseUrl}/settings`);
    await page.getByRole('heading', { name: 'Your Settings' }).waitFor();
    await page.getByRole('heading', { name: 'Reminders on This Device' }).waitFor();
    expect(await page.getByLabel('First name').inputValue()).toBe('Rosalind');
    expect(describeViolations('/settings', await seriousViolations(page))).toBe('');

    await page.getByLabel('First name').fill('Ros');
    await page.getByLabel('Time zone').click();
    await page.getByLabel('Time zone').fill('Lisbon');
    await page.locator('.ant-select-item-option', { hasText: 'Europe / Lisbon' }).click();
    await page.getByRole('switch', { name: 'Remind me to rate my day' }).click();
    await page.getByLabel('Reminder time').fill('07:45');
    await screenshot(page, 'h5-settings-1280');
    // Leaving with these changes unsaved asks first; "Stay on this page" (focused) keeps them.
    await page.getByRole('navigation', { name: 'Main' }).first().getByRole('link', { name: 'Dashboard' }).click();
    const leave = page.getByRole('dialog', { name: 'Leave without saving?' });
    await leave.waitFor();
    await screenshot(page, 'h5-settings-leave-1280');
    // antd gives the dialog's button the focus once its opening has run, not at once (empty once under CI's load).
    await page.waitForFunction(() => document.activeElement?.textContent === 'Stay on this page', undefined, { timeout: 5_000 });
    await page.keyboard.press('Enter');
    await leave.waitFor({ state: 'hidden' });
    expect([new URL(page.url()).pathname, await page.getByLabel('First name').inputValue()]).toEqual(['/settings', 'Ros']);
    await page.getByRole('button', { name: 'Save Settings' }).click();
    await page.getByText('Settings saved').first().waitFor();
    expect(await settingsOf(page, server.baseUrl)).toEqual({ firstName: 'Ros', timeZone: 'Europe/Lisbon', reminderTime: '07:45', acceptCareActions: true });

    // After a reload the page shows what was saved, and the greeting uses the new name.
    await page.reload();
    await page.getByRole('heading', { name: 'Your Settings' }).waitFor();
    expect(await page.getByLabel('First name').inputValue()).toBe('Ros');
    await page.locator('.settings-form').getByText('Europe / Lisbon', { exact: true }).waitFor();
    expect(await page.getByLabel('Reminder time').inputValue()).toBe('07:45');
    expect(await page.getByRole('switch', { name: 'Remind me to rate my day' }).getAttribute('aria-checked')).toBe('true');
    await page.getByText('Hi, Ros').first().waitFor();

    // Turning the reminder off saves null; saved from the keyboard, the focus stays in the card (the button it was
    // on is disabled once there is nothing left to save, and a browser drops the focus of a disabled button).
    await page.getByRole('switch', { name: 'Remind me to rate my day' }).click();
    await page.getByRole('button', { name: 'Save Settings' }).focus();
    await page.keyboard.press('Enter');
    await until('the reminder turned off', () => settingsOf(page, server.baseUrl), (s) => s.reminderTime === null);
    await page.getByRole('button', { name: 'Save Settings' }).and(page.locator('[disabled]')).waitFor();
    await page.waitForTimeout(300); // a browser drops the focus of a disabled button at its next update
    const focused = await page.evaluate(() => ({ inCard: !!document.activeElement?.closest('.ant-card'), disabled: !!(document.activeElement as HTMLButtonElement | null)?.disabled }));
    expect(focused).toEqual({ inCard: true, disabled: false });

    // Rated today: the Home reminder is gone.
    await setReminder(page, server.baseUrl, '00:00');
    await page.goto(server.baseUrl);
    await reminder.waitFor();
    await rateOnHome(page);
    await reminder.waitFor({ state: 'detached' });
    await context.close();
  });

  it('fits a 360 px phone: Settings and the Home reminder', async () => {
    const context = await browser.newContext({ viewport: PHONE_360, timezoneId: 'America/New_York' });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await signInThroughLanding(page, server.baseUrl, 'sam.phone@example.com', 'Sam');
    await setReminder(page, server.baseUrl, '00:00');
    await page.reload();
    await page.getByTestId('reminder-card').waitFor();
    await screenshot(page, 'h5-home-reminder-360');
    await page.goto(`${server.baseUrl}/settings`);
    await page.getByRole('heading', { name: 'Your Settings' }).waitFor();
    await page.getByText('Checking this device…').waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await screenshot(page, 'h5-settings-360');
    await context.close();
  });

  it('the service worker shows a pushed reminder as a notification', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    await context.grantPermissions(['notifications'], { origin: server.baseUrl });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const cdp = await context.newCDPSession(page);
    const registrations: { registrationId: string; scopeURL: string }[] = [];
    cdp.on('ServiceWorker.workerRegistrationUpdated', (e: { registrations: { registrationId: string; scopeURL: string }[] }) => registrations.push(...e.registrations));
    await cdp.send('ServiceWorker.enable');
    // A page of the app, which registers the worker (signed out, "/", "/help", "/privacy" and "/terms" are
    // prerendered pages, without it; an unknown path is the app's 404 page).
    await page.goto(`${server.baseUrl}/no-such-page`);
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    const registration = await until(
      'the service worker registration',
      async () => registrations.find((r) => r.scopeURL === `${server.baseUrl}/`),
      (r) => r !== undefined,
    );
    const message = { title: 'How was your day?', body: 'Take a minute to rate today in Joy.', url: '/', tag: 'joy-reminder-2026-11-24' };
    const notifications = () =>
      page.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data })));
    // DevTools drops a push that reaches a worker while it is still starting: deliver again until one is shown
    // (the tag makes a repeat replace the first, so one notification is all a person would see).
    let shown: Awaited<ReturnType<typeof notifications>> = [];
    const deadline = Date.now() + 30_000;
    while (shown.length === 0) {
      if (Date.now() > deadline) throw new Error('no notification was shown for the pushed reminder within 30 s');
      await cdp.send('ServiceWorker.deliverPushMessage', { origin: `${server.baseUrl}/`, registrationId: registration!.registrationId, data: JSON.stringify(message) });
      shown = await until('a notification', notifications, (list) => list.length > 0, 2_000).catch(() => []);
    }
    expect(shown).toEqual([{ title: message.title, body: message.body, tag: message.tag, data: { url: message.url } }]);
    await context.close();
  });
});
