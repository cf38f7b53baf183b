import { dayOf, timeOfDayIn } from '@joy/domain';
import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';
import { startPushReceiver, type PushReceiver } from '../testing/push-receiver';
import { ENDPOINT_MESSAGES } from './push-endpoint';
import { REMINDER_MESSAGE } from './reminder-scheduler';

jest.setTimeout(60_000);

const MINUTE = 60_000;
const keysOf = { p256dh: 'B'.repeat(87), auth: 'A'.repeat(22) };

/**
 * One app for the file, with loopback push endpoints allowed (PUSH_ALLOW_INSECURE_ENDPOINTS=1) for the local push
 * receiver of the reminder. What a real install refuses (http, loopback) is the endpoint rule's, shown by
 * push-endpoint.spec.ts; a private address is refused either way, which this file shows over HTTP.
 */
let app: TestApp;
let receiver: PushReceiver;
beforeAll(async () => {
  receiver = await startPushReceiver();
  app = await startTestApp({ PUSH_ALLOW_INSECURE_ENDPOINTS: '1' });
});
afterAll(async () => {
  await app.destroy();
  await receiver.close();
});

describe('push subscriptions over HTTP', () => {
  let ada: string;
  let bob: string;
  const as = (cookie?: string) => api(app.baseUrl, cookie);
  const head = () => app.running.infra.store.headPosition();

  beforeAll(async () => {
    ada = await signIn(app.baseUrl, 'ada@push.example', 'Ada');
    bob = await signIn(app.baseUrl, 'bob@push.example', 'Bob');
  });

  it('hands out the install\'s VAPID public key, the same after a restart', async () => {
    const res = await as().get('/api/push/public-key');
    expect(res.status).toBe(200);
    expect(res.body.publicKey).toMatch(/^B[A-Za-z0-9_-]{86}$/); // an uncompressed P-256 point, base64url
    await app.stop();
    await app.restart();
    expect((await as().get('/api/push/public-key')).body).toEqual(res.body);
  });

  it('refuses subscriptions from a signed-out caller with 401', async () => {
    expect((await as().post('/api/push/subscriptions', { endpoint: 'https://8.8.8.8/push/x', keys: keysOf })).status).toBe(401);
    expect((await as().delete('/api/push/subscriptions').send({ endpoint: 'https://8.8.8.8/push/x' })).status).toBe(401);
  });

  // The body's rules and the endpoint rule in full: push.dto.spec.ts and push-endpoint.spec.ts.
  it('refuses a short p256dh with 400 naming the field, adding nothing', async () => {
    const before = await head();
    const res = await as(ada).post('/api/push/subscriptions', { endpoint: 'https://8.8.8.8/push/x', keys: { ...keysOf, p256dh: 'abc' } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('keys.p256dh');
    expect(await head()).toBe(before);
  });

  it('refuses an endpoint on a private address with 400 naming endpoint', async () => {
    const message = ENDPOINT_MESSAGES.notPublic;
    const before = await head();
    const res = await as(ada).post('/api/push/subscriptions', { endpoint: 'https://10.0.0.7/push/x', keys: keysOf });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, code: 'push.endpoint_refused', message, errors: [{ field: 'endpoint', message }] });
    expect(await head()).toBe(before);
  });

  it('subscribes a public https endpoint, encrypted at rest, and lets only its owner unsubscribe it', async () => {
    const endpoint = 'https://8.8.8.8/push/ada-phone';
    const res = await as(ada).post('/api/push/subscriptions', { endpoint, keys: keysOf, expirationTime: null });
    expect(res.status).toBe(201);
    // Subscribing the same browser again changes nothing.
    const before = await head();
    expect((await as(ada).post('/api/push/subscriptions', { endpoint, keys: keysOf })).status).toBe(201);
    expect(await head()).toBe(before);

    const adaId = (await as(ada).get('/api/auth/user')).body.id;
    const stored = await app.running.infra.store.readStream(`push-${adaId}`);
    expect(stored.map((e) => e.type)).toEqual(['PushSubscribed']);
    expect(stored[0].metadata.schemaVersion).toBe(2);
    expect(JSON.stringify(stored[0].data)).not.toContain('8.8.8.8');
    expect(stored[0].data.endpoint).toMatch(/^enc:v1:/);

    // Bob cannot remove Ada's device: 404, nothing changes.
    const other = await as(bob).delete('/api/push/subscriptions').send({ endpoint });
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ statusCode: 404, code: 'push.subscription_not_found', message: 'This device is not subscribed to reminders.' });
    expect(await head()).toBe(before);
    expect((await as(ada).delete('/api/push/subscriptions').send({ endpoint: 42 })).status).toBe(400);

    expect((await as(ada).delete('/api/push/subscriptions').send({ endpoint })).status).toBe(204);
    expect((await as(ada).delete('/api/push/subscriptions').send({ endpoint })).status).toBe(404);
  });

  it('moves a browser to the person who subscribes it last (a shared computer)', async () => {
    const endpoint = 'https://8.8.8.8/push/shared-laptop';
    expect((await as(ada).post('/api/push/subscriptions', { endpoint, keys: keysOf })).status).toBe(201);
    expect((await as(bob).post('/api/push/subscriptions', { endpoint, keys: keysOf })).status).toBe(201);
    expect((await as(ada).delete('/api/push/subscriptions').send({ endpoint })).status).toBe(404);
    expect((await as(bob).delete('/api/push/subscriptions').send({ endpoint })).status).toBe(204);
  });
});

describe('the daily reminder, end to end (a local push endpoint; PUSH_ALLOW_INSECURE_ENDPOINTS=1)', () => {
  const as = (cookie?: string) => api(app.baseUrl, cookie);
  const zone = 'Asia/Tokyo';
  // The scheduler is driven with its clock three hours ahead, so that its own timer (real time) never finds a reminder due.
  const later = () => new Date(Date.now() + 3 * 60 * MINUTE);
  const reminderAt = (at: Date) => timeOfDayIn(at, zone);
  const tick = (at: Date) => app.running.infra.reminders.tick(at);


  const person = async (name: string, at: Date) => {
    const cookie = await signIn(app.baseUrl, `${name}@reminders.example`, name);
    expect((await as(cookie).patch('/api/settings', { timeZone: zone, reminderTime: reminderAt(at) })).status).toBe(200);
    expect((await as(cookie).post('/api/push/subscriptions', receiver.subscription(name))).status).toBe(201);
    return { cookie, id: (await as(cookie).get('/api/auth/user')).body.id as string };
  };

  it('pushes an encrypted reminder with VAPID at the person\'s time, once a day, also across a restart', async () => {
    const at = later();
    const { id } = await person('cleo', at);
    expect(await tick(new Date(at.getTime() - MINUTE))).toMatchObject({ reminded: 0 }); // a minute early
    expect(receiver.received).toHaveLength(0);

    expect(await tick(at)).toEqual({ reminded: 1, sent: 1, gone: 0, failed: 0, retrying: 0 });
    expect(receiver.received).toHaveLength(1);
    const push = receiver.received[0];
    expect(push.path).toBe('/push/cleo');
    expect(push.headers['content-encoding']).toBe('aes128gcm');
    expect(Number(push.headers.ttl)).toBeGreaterThan(0);
    expect(push.error).toBeNull();
    expect(JSON.parse(push.payload!)).toEqual({ ...REMINDER_MESSAGE, tag: `joy-reminder-${dayOf(at, zone)}` });
    expect(push.vapid).not.toBeNull();
    expect(push.vapid!.signatureValid).toBe(true);
    expect(push.vapid!.key).toBe((await as().get('/api/push/public-key')).body.publicKey);
    expect(push.vapid!.claims.aud).toBe(receiver.url);
    expect(push.vapid!.claims.exp as number).toBeGreaterThan(Date.now() / 1000);
    expect(push.vapid!.claims.sub).toMatch(/^(mailto:|https:)/);

    // Later that day, and after a restart: nothing more.
    expect(await tick(new Date(at.getTime() + 10 * MINUTE))).toMatchObject({ reminded: 0 });
    await app.stop();
    await app.restart();
    expect(await tick(new Date(at.getTime() + 20 * MINUTE))).toMatchObject({ reminded: 0 });
    expect(receiver.received).toHaveLength(1);
    const sent = (await app.running.infra.store.readStream(`reminders-${id}`)).map((e) => e.data);
    expect(sent).toEqual([{ userId: id, day: dayOf(at, zone), sentAt: at.toISOString(), devices: 1 }]);

    // The next day at the same time it goes out again.
    expect(await tick(new Date(at.getTime() + 24 * 60 * MINUTE))).toMatchObject({ reminded: 1, sent: 1 });
    expect(receiver.received).toHaveLength(2);
  });

  it('does not remind someone who has rated that day', async () => {
    const now = new Date();
    const at = new Date(now.getTime() + 2 * MINUTE);
    const { cookie } = await person('dora', now);
    expect((await as(cookie).post('/api/joy-ratings', { relationships: 4, health: 4, purpose: 4, growth: 4, joy: 4 })).status).toBe(201);
    const before = receiver.received.length;
    if (dayOf(at, zone) === dayOf(now, zone)) expect(await tick(at)).toMatchObject({ reminded: 0 });
    expect(receiver.received).toHaveLength(before);
  });

  it('forgets a device the push service says is gone (410), and sends nothing to a deleted account', async () => {
    const at = later();
    const { id } = await person('emil', at);
    receiver.answer = 410;
    try {
      expect(await tick(at)).toMatchObject({ reminded: 1, gone: 1 });
    } finally {
      receiver.answer = 201;
    }
    const events = await app.running.infra.store.readStream(`push-${id}`);
    expect(events.map((e) => [e.type, e.data.reason])).toEqual([
      ['PushSubscribed', undefined],
      ['PushUnsubscribed', 'gone'],
    ]);
    // The next day (once the read models have seen it): no device left to remind.
    await app.running.infra.pipeline.waitFor(await app.running.infra.store.headPosition(), { eventTypes: ['PushUnsubscribed'] });
    expect(await tick(new Date(at.getTime() + 24 * 60 * MINUTE))).toMatchObject({ reminded: 0 });

    const { cookie: fay } = await person('fay', at);
    expect((await as(fay).delete('/api/account').send({ confirm: 'DELETE' })).status).toBe(204);
    const before = receiver.received.length;
    expect(await tick(at)).toMatchObject({ reminded: 0 });
    expect(receiver.received).toHaveLength(before);
  });
});
