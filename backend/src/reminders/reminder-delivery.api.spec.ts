import { Logger } from '@nestjs/common';
import { dayOf, timeOfDayIn } from '@joy/domain';
import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';
import { startPushReceiver, type PushReceiver } from '../testing/push-receiver';
import { waitUntil } from '../testing/wait';
import type { PushSender } from './push-sender';
import { WebPushSender } from './push-sender';
import { ReminderScheduler } from './reminder-scheduler';

jest.setTimeout(120_000);

const MINUTE = 60_000;
const zone = 'Asia/Tokyo';

/**
 * Delivering reminders when push services misbehave: one that stalls holds up no one else, a 503 or 429 is tried
 * again within the reminder window, and stopping never waits on a stalled push. Each test drives its own scheduler
 * over the app's stores (the app's own one is never due: the tests' clock is three hours ahead of real time).
 */
let app: TestApp;
let receiver: PushReceiver;
let warnings: string[];
beforeAll(async () => {
  receiver = await startPushReceiver();
  app = await startTestApp({ PUSH_ALLOW_INSECURE_ENDPOINTS: '1' });
});
afterAll(async () => {
  await app.destroy();
  await receiver.close();
});
beforeEach(() => {
  warnings = [];
  jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => void warnings.push(String(message)));
});
afterEach(() => jest.restoreAllMocks());

const as = (cookie?: string) => api(app.baseUrl, cookie);
/**
 * A reminder time three hours or more ahead of real time (the app's own scheduler is never due then), and never from
 * 22:00 to 01:59 in Tokyo: the last test's 23:50 reminder is ticked at 00:10, where these people would be due too
 * (it failed between 11:00 and 12:00 UTC).
 */
const later = () => {
  let at = Date.now() + 3 * 60 * MINUTE;
  while (['22', '23', '00', '01'].includes(timeOfDayIn(new Date(at), zone).slice(0, 2))) at += 60 * MINUTE;
  return new Date(at);
};
const scheduler = (sender: PushSender, clock?: () => Date) => {
  const { store, readModels, keys } = app.running.infra;
  return new ReminderScheduler(store, readModels, keys, sender, clock);
};
const webPush = (deadlineMs: number) => new WebPushSender(app.running.infra.vapid, true, deadlineMs);
/** A person reminded at `at` in Tokyo, with a device for each name (oldest first). */
const person = async (name: string, at: Date, devices: string[]) => {
  const cookie = await signIn(app.baseUrl, `${name}@delivery.example`, name);
  expect((await as(cookie).patch('/api/settings', { timeZone: zone, reminderTime: timeOfDayIn(at, zone) })).status).toBe(200);
  for (const device of devices) expect((await as(cookie).post('/api/push/subscriptions', receiver.subscription(device))).status).toBe(201);
};
const receivedBy = (device: string) => receiver.received.filter((r) => r.path === `/push/${device}`).length;

describe('a push service that stalls', () => {
  it('holds up no one else, and stop() abandons its push instead of waiting for it', async () => {
    const at = later();
    // Each person's first device never answers (the deadline is far beyond this test): sent one at a time, no one's phone would get anything.
    receiver.answers.set('ada-stuck', 'hang');
    receiver.answers.set('bob-stuck', 'hang');
    await person('ada', at, ['ada-stuck', 'ada-phone']);
    await person('bob', at, ['bob-stuck', 'bob-phone']);
    // The real sender, watched: which pushes have come back.
    const real = webPush(10 * 60_000);
    const done: string[] = [];
    const watched: PushSender = { send: (t, m, signal) => real.send(t, m, signal).then((r) => (done.push(`${t.endpoint.split('/').pop()} ${r.outcome}`), r)) };
    const reminders = scheduler(watched);
    let settled = false;
    const tick = reminders.tick(at).finally(() => (settled = true));
    await waitUntil(() => done.length === 2, 30_000);
    expect(done.sort()).toEqual(['ada-phone sent', 'bob-phone sent']);
    expect(settled).toBe(false); // the stuck pushes are still out
    await reminders.stop();
    expect(await tick).toEqual({ reminded: 2, sent: 2, gone: 0, failed: 2, retrying: 0 });
    expect(warnings.join('\n')).toMatch(/aborted ×2/);
    expect(reminders.pendingRetries).toBe(0);
  });

  it('is given up at the deadline and tried again by a later tick', async () => {
    const at = later();
    receiver.answers.set('cleo-phone', 'hang');
    await person('cleo', at, ['cleo-phone']);
    const reminders = scheduler(webPush(300));
    expect(await reminders.tick(at)).toEqual({ reminded: 1, sent: 0, gone: 0, failed: 0, retrying: 1 });
    expect(warnings.join('\n')).toMatch(/timed out ×1/);
    receiver.answers.delete('cleo-phone');
    expect(await reminders.tick(new Date(at.getTime() + 2 * MINUTE))).toEqual({ reminded: 0, sent: 1, gone: 0, failed: 0, retrying: 0 });
    expect(receivedBy('cleo-phone')).toBe(2);
  });

  it('is logged when a tick is still running when the next one is due, and stop() does not wait for it', async () => {
    const at = later();
    await person('dora', at, ['dora-phone']);
    // A sender that never settles until it is abandoned.
    const stuck: PushSender = { send: (_t, _m, signal) => new Promise((resolve) => signal?.addEventListener('abort', () => resolve({ outcome: 'failed', status: null, retryable: true, retryAfterMs: null, reason: 'aborted' }))) };
    // Ticks driven by the timer, every 50 ms, on a clock that stands at dora's reminder time.
    const reminders = scheduler(stuck, () => at);
    reminders.start(50);
    await waitUntil(() => warnings.some((w) => /Reminder tick still running after \d+ ms: skipping this one/.test(w)), 30_000);
    await reminders.stop();
  });
});

describe('a push service that is busy (429, 5xx)', () => {
  it('gets the push again within the window, after its Retry-After, logged with the status and never the endpoint', async () => {
    const at = later();
    receiver.answers.set('emil-phone', { status: 503, headers: { 'retry-after': '180' } });
    await person('emil', at, ['emil-phone']);
    const reminders = scheduler(webPush(10_000));
    expect(await reminders.tick(at)).toEqual({ reminded: 1, sent: 0, gone: 0, failed: 0, retrying: 1 });
    expect(warnings.join('\n')).toMatch(/HTTP 503 ×1/);
    expect(warnings.join('\n')).not.toContain(receiver.url);
    expect(warnings.join('\n')).not.toContain('127.0.0.1');
    receiver.answers.delete('emil-phone');
    // Not before the three minutes it asked for; then once.
    expect(await reminders.tick(new Date(at.getTime() + 2 * MINUTE))).toMatchObject({ sent: 0 });
    expect(await reminders.tick(new Date(at.getTime() + 4 * MINUTE))).toEqual({ reminded: 0, sent: 1, gone: 0, failed: 0, retrying: 0 });
    expect(await reminders.tick(new Date(at.getTime() + 10 * MINUTE))).toMatchObject({ sent: 0 });
    expect(receivedBy('emil-phone')).toBe(2);
  });

  it('is tried a bounded number of times within the window, then given up for the day', async () => {
    const at = later();
    receiver.answers.set('fay-phone', 500);
    await person('fay', at, ['fay-phone']);
    const reminders = scheduler(webPush(10_000));
    const results = [];
    for (let m = 0; m <= 90; m++) results.push(await reminders.tick(new Date(at.getTime() + m * MINUTE)));
    expect(receivedBy('fay-phone')).toBe(5);
    expect(results.reduce((n, r) => n + r.failed, 0)).toBe(1);
    expect(reminders.pendingRetries).toBe(0);
  });

  it('gives up at once on a Retry-After past the window, and on a 403 (not worth retrying)', async () => {
    const at = later();
    receiver.answers.set('gus-phone', { status: 429, headers: { 'retry-after': '7200' } });
    receiver.answers.set('gus-tablet', 403);
    await person('gus', at, ['gus-phone', 'gus-tablet']);
    const reminders = scheduler(webPush(10_000));
    expect(await reminders.tick(at)).toEqual({ reminded: 1, sent: 0, gone: 0, failed: 2, retrying: 0 });
    expect(warnings.join('\n')).toMatch(/HTTP 429 ×1, HTTP 403 ×1|HTTP 403 ×1, HTTP 429 ×1/);
  });
});

describe('a reminder sent after its day ended', () => {
  // The window runs an hour past the reminder time, so a 23:50 reminder may go out after midnight: "rate today" would
  // then lead to rating the new day on Home.
  it('speaks of yesterday and opens History, where that day can be rated; on time it speaks of today', async () => {
    const day = dayOf(Date.now() + 36 * 60 * MINUTE, zone)!;
    const at = new Date(`${day}T23:50:00+09:00`);
    const messages: { title: string; body: string; url?: string }[] = [];
    const recording: PushSender = { send: async (_target, message) => (messages.push(message), { outcome: 'sent', status: 201 }) };
    await person('nia', at, ['nia-phone']);
    await person('oli', at, ['oli-phone']);
    // Nia's tick comes at 00:10 (a tick late, a restart): her reminder for the day before.
    const ticks = scheduler(recording);
    await app.running.infra.pipeline.waitFor(await app.running.infra.store.headPosition());
    const result = await ticks.tick(new Date(at.getTime() + 20 * MINUTE));
    expect(result).toMatchObject({ reminded: 2, sent: 2 });
    expect(messages).toEqual([
      expect.objectContaining({ title: 'How was your day yesterday?', body: 'It is not rated yet: take a minute to rate it in Joy.', url: '/history' }),
      expect.objectContaining({ title: 'How was your day yesterday?', url: '/history' }),
    ]);
    // Pia's, at 23:55 the same evening: today's reminder, to Home.
    messages.length = 0;
    await person('pia', at, ['pia-phone']);
    await app.running.infra.pipeline.waitFor(await app.running.infra.store.headPosition());
    expect(await ticks.tick(new Date(at.getTime() + 5 * MINUTE))).toMatchObject({ reminded: 1, sent: 1 });
    expect(messages).toEqual([expect.objectContaining({ title: 'How was your day?', body: 'Take a minute to rate today in Joy.', url: '/' })]);
    await ticks.stop();
  });
});

