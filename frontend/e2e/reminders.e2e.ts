import { dayOf, timeOfDayIn } from '@joy/domain';
import type { Browser } from 'playwright-core';
import { startPushReceiver, type PushReceiver } from '../../backend/src/testing/push-receiver';
import { DESKTOP, PHONE_360, RunningServer, screenshot, signInThroughLanding, withAppAndBrowser } from './support';

/*
 * The reminder from Settings to a push endpoint, through the built app as people run it. The browser here has no
 * push service to talk to (no network), so its PushManager is given a subscription at a local endpoint (the
 * receiver, which decrypts what arrives as a browser would); everything after the "Enable reminders on this
 * device" click is real: permission, the public key, POST /api/push/subscriptions, the scheduler's own timer in
 * the app's process (PUSH_ALLOW_INSECURE_ENDPOINTS=1 for the http endpoint), encryption and VAPID.
 */
describe('the daily reminder, from Settings to a push endpoint', () => {
  let server: RunningServer;
  let browser: Browser;
  let receiver: PushReceiver;

  beforeAll(async () => {
    receiver = await startPushReceiver();
  });
  afterAll(() => receiver.close());
  withAppAndBrowser((s, b) => ([server, browser] = [s, b]), { PUSH_ALLOW_INSECURE_ENDPOINTS: '1' });

  it('enables reminders on this device, sets the time to now, and the push arrives encrypted and signed', async () => {
    const zone = 'Pacific/Auckland';
    const context = await browser.newContext({ viewport: DESKTOP, timezoneId: zone });
    await context.grantPermissions(['notifications'], { origin: server.baseUrl });
    const subscription = receiver.subscription('browser-journey');
    await context.addInitScript((sub) => {
      let current: unknown = null;
      const make = (options: PushSubscriptionOptionsInit) => ({
        endpoint: sub.endpoint,
        options,
        toJSON: () => ({ endpoint: sub.endpoint, expirationTime: null, keys: sub.keys }),
        unsubscribe: async () => ((current = null), true),
      });
      PushManager.prototype.subscribe = async function (options?: PushSubscriptionOptionsInit) {
        current = make(options ?? {});
        return current as PushSubscription;
      };
      PushManager.prototype.getSubscription = async function () {
        return current as PushSubscription | null;
      };
    }, subscription);
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await signInThroughLanding(page, server.baseUrl, 'wren.reminder@example.com', 'Wren');
    await page.goto(`${server.baseUrl}/settings`);
    await page.getByRole('heading', { name: 'Reminders on This Device' }).waitFor();

    await page.getByRole('button', { name: 'Enable reminders on this device' }).click();
    await page.getByText('This device shows your daily reminder as a notification.').waitFor();

    // The reminder at this very minute, in the person's zone: the scheduler's next tick (every 30 s) sends it.
    const now = new Date();
    await page.getByRole('switch', { name: 'Remind me to rate my day' }).click();
    await page.getByLabel('Reminder time').fill(timeOfDayIn(now, zone));
    await page.getByRole('button', { name: 'Save Settings' }).click();
    await page.getByText('Settings saved').first().waitFor();

    const push = await new Promise<(typeof receiver.received)[number]>((resolve) => {
      const check = () => (receiver.received.length > 0 ? resolve(receiver.received[0]) : setTimeout(check, 100));
      check();
    });
    expect(push.path).toBe('/push/browser-journey');
    expect(push.headers['content-encoding']).toBe('aes128gcm');
    expect(push.error).toBeNull();
    expect(JSON.parse(push.payload!)).toEqual({
      title: 'How was your day?',
      body: 'Take a minute to rate today in Joy.',
      url: '/',
      tag: `joy-reminder-${dayOf(now, zone)}`,
    });
    expect(push.vapid?.signatureValid).toBe(true);
    expect(push.vapid?.key).toBe((await (await page.request.get(`${server.baseUrl}/api/push/public-key`)).json()).publicKey);
    await context.close();
  }, 90_000);

  /*
   * A window where the browser refuses push: this Chromium has no push service, and answers subscribe() as it does in
   * a private window ("AbortError: Registration failed - permission denied", notifications allowed or not). That is
   * no error to try again: the card says this window can't, and offers no button, then and on the next visit.
   */
  it.each([
    ['1280', DESKTOP],
    ['360', PHONE_360],
  ])("says this window can't receive notifications, with no retry, where the browser refuses push (%s px)", async (width, viewport) => {
    const context = await browser.newContext({ viewport });
    await context.grantPermissions(['notifications'], { origin: server.baseUrl });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await signInThroughLanding(page, server.baseUrl, `private.${width}@example.com`, 'Pia');
    await page.goto(`${server.baseUrl}/settings`);
    const card = page.locator('.ant-card').filter({ has: page.getByRole('heading', { name: 'Reminders on This Device' }) });
    const status = card.getByRole('status');
    await card.getByRole('button', { name: 'Enable reminders on this device' }).click();
    await status.filter({ hasText: "This browser window can't receive notifications." }).waitFor();
    expect(await status.textContent()).toContain('Try Joy in a regular window of Chrome, Edge, Firefox or Safari.');
    expect(await card.getByRole('button').count()).toBe(0);
    expect(await page.getByText(/Please try again/).count()).toBe(0);
    await screenshot(page, `reminders-window-cannot-${width}`);

    // Back on Settings in this tab: said before trying.
    await page.reload();
    await status.filter({ hasText: "This browser window can't receive notifications." }).waitFor();
    expect(await card.getByRole('button').count()).toBe(0);
    await context.close();
  }, 90_000);

  it('says it before any attempt in a browser without the Push API', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    await context.addInitScript(() => delete (window as unknown as { PushManager?: unknown }).PushManager);
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await signInThroughLanding(page, server.baseUrl, 'no.push@example.com', 'Noa');
    await page.goto(`${server.baseUrl}/settings`);
    const card = page.locator('.ant-card').filter({ has: page.getByRole('heading', { name: 'Reminders on This Device' }) });
    await card.getByRole('status').filter({ hasText: "This browser window can't receive notifications." }).waitFor();
    expect(await card.getByRole('button').count()).toBe(0);
    await context.close();
  }, 90_000);
});
