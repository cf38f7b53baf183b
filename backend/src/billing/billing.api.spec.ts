import { decideAndAppend } from '../event-store/decider';
import type { EventStore } from '../event-store/event-store.port';
import { MESSAGES } from '../groups/groups.decider';
import type { ReadModelStore } from '../read-models/read-model-store.port';
import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';
import { addOneMonth, BILLING_MESSAGES, subscriptionDecider, subscriptionStream } from './billing.decider';
import { SandboxExpiry } from './billing.handlers';
import type { BillingProvider } from './billing.provider';

const GOOD_CARD = '4242 4242 4242 4242';
const DECLINED_CARD = '4000 0000 0000 0002';

describe('Joy Premium over HTTP, sandbox provider', () => {
  let app: TestApp;
  let ada: string;
  let bob: string;
  const ids: Record<string, string> = {};
  const as = (cookie?: string) => api(app.baseUrl, cookie);
  const head = () => app.running.infra.store.headPosition();
  const streamOf = async (name: string) => app.running.infra.store.readStream(`subscription-${ids[name]}`);

  beforeAll(async () => {
    app = await startTestApp();
    ada = await signIn(app.baseUrl, 'ada@example.com', 'Ada');
    bob = await signIn(app.baseUrl, 'bob@example.com', 'Bob');
    for (const [name, cookie] of Object.entries({ ada, bob })) ids[name] = (await as(cookie).get('/api/auth/user')).body.id;
  });
  afterAll(() => app.destroy());

  it('refuses every billing route to a signed-out caller with 401', async () => {
    const before = await head();
    for (const res of [
      await as().get('/api/subscription-status'),
      await as().post('/api/create-subscription'),
      await as().post('/api/subscription/cancel'),
      await as().get('/api/billing/config'),
      await as().post('/api/billing/sandbox/confirm', { clientSecret: 'x', cardNumber: GOOD_CARD }),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ statusCode: 401, code: 'auth.unauthorized', message: 'Unauthorized' });
    }
    expect(await head()).toBe(before);
  });

  it('starts everyone on the free plan and names the sandbox as the provider', async () => {
    expect((await as(ada).get('/api/subscription-status')).body).toEqual({ isPremium: false, status: 'free', currentPeriodEnd: null, cancelAtPeriodEnd: false });
    expect((await as(ada).get('/api/billing/config')).body).toEqual({ provider: 'sandbox' });
  });

  it('has no Stripe webhook in sandbox mode', async () => {
    const res = await as().post('/api/billing/webhook', { id: 'evt_1' });
    expect(res.status).toBe(404);
  });

  it('refuses to cancel a free plan with 409', async () => {
    const res = await as(ada).post('/api/subscription/cancel');
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ statusCode: 409, code: 'billing.nothing_to_cancel', message: BILLING_MESSAGES.nothingToCancel });
  });

  let secret: string;
  it('opens a checkout with a sandbox client secret, and hands back the same one while it is open', async () => {
    const res = await as(ada).post('/api/create-subscription');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ clientSecret: expect.stringMatching(/^sandbox_/) });
    secret = res.body.clientSecret;
    expect((await as(ada).post('/api/create-subscription')).body).toEqual({ clientSecret: secret });
    const stream = await streamOf('ada');
    expect(stream.map((e) => e.type)).toEqual(['SubscriptionCheckoutStarted']);
    expect(stream[0].data).toMatchObject({ userId: ids.ada, provider: 'sandbox', attempt: 1 });
    // Still free until paid.
    expect((await as(ada).get('/api/subscription-status')).body).toMatchObject({ isPremium: false, status: 'free' });
  });

  it('refuses a cross-site create and a non-JSON confirmation at the edge', async () => {
    expect((await as(ada).post('/api/create-subscription').set('Origin', 'https://evil.example')).status).toBe(403);
    const form = await as(ada).post('/api/billing/sandbox/confirm').set('Content-Type', 'application/x-www-form-urlencoded').send('cardNumber=4242424242424242');
    expect(form.status).toBe(415);
  });

  it.each([
    [{ clientSecret: 'x' }, 'cardNumber is required'],
    [{ cardNumber: GOOD_CARD }, 'clientSecret is required'],
    [{ clientSecret: 'x', cardNumber: 4242 }, 'cardNumber must be a string'],
  ])('refuses a malformed confirmation %j with 400', async (body, message) => {
    const res = await as(ada).post('/api/billing/sandbox/confirm', body);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(message);
  });

  it('refuses an unknown field', async () => {
    const res = await as(ada).post('/api/billing/sandbox/confirm', { clientSecret: secret, cardNumber: GOOD_CARD, amount: 0 });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('amount is not an accepted field');
  });

  it.each(['/api/create-subscription', '/api/subscription/cancel', '/api/subscription/resume', '/api/billing/portal'])(
    'refuses any field sent to %s, which takes no body, with 400 naming it, and changes nothing',
    async (route) => {
      const dee = await signIn(app.baseUrl, 'dee.fields@example.com', 'Dee');
      const before = await head();
      const res = await as(dee).post(route, { foo: 1 });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ statusCode: 400, code: 'request.invalid', message: 'foo is not an accepted field', errors: [{ field: 'foo', message: 'foo is not an accepted field' }] });
      expect(await head()).toBe(before);
      // No body, or an empty one, is what the route takes.
      expect((await as(dee).post(route)).status).not.toBe(400);
      expect((await as(dee).post(route, {})).status).not.toBe(400);
    },
  );

  it.each([
    [DECLINED_CARD, {}, BILLING_MESSAGES.declined, 'cardNumber'],
    ['4242 4242 4242', {}, BILLING_MESSAGES.incompleteNumber, 'cardNumber'],
    ['4242 4242 4242 4241', {}, BILLING_MESSAGES.invalidNumber, 'cardNumber'],
    ['5555 5555 5555 4444', {}, BILLING_MESSAGES.notTestCard, 'cardNumber'],
    [GOOD_CARD, { expiry: '12 / 20' }, BILLING_MESSAGES.pastExpiry, 'expiry'],
    [GOOD_CARD, { expiry: '13/40' }, BILLING_MESSAGES.incompleteExpiry, 'expiry'],
    [GOOD_CARD, { expiry: '12/40', cvc: '1' }, BILLING_MESSAGES.incompleteCvc, 'cvc'],
  ])('refuses card %s %j with 400 "%s", naming the field %s, and changes nothing', async (cardNumber, extra, message, field) => {
    const before = await head();
    const res = await as(ada).post('/api/billing/sandbox/confirm', { clientSecret: secret, cardNumber, ...extra });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, code: 'billing.card_refused', message, errors: [{ field, message }] });
    expect(await head()).toBe(before);
    expect((await as(ada).get('/api/subscription-status')).body.isPremium).toBe(false);
  });

  it('refuses a client secret that is not the user’s open checkout', async () => {
    const bobs = (await as(bob).post('/api/create-subscription')).body.clientSecret as string;
    for (const clientSecret of [bobs, `${secret}x`, 'sandbox_forged']) {
      const res = await as(ada).post('/api/billing/sandbox/confirm', { clientSecret, cardNumber: GOOD_CARD });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(BILLING_MESSAGES.staleCheckout);
    }
  });

  let periodEnd: string;
  it('activates Joy Premium with the test card for one month, and says so at once', async () => {
    const before = Date.now();
    const res = await as(ada).post('/api/billing/sandbox/confirm', { clientSecret: secret, cardNumber: GOOD_CARD, expiry: '12 / 40', cvc: '123' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ isPremium: true, status: 'active', currentPeriodEnd: expect.any(String), cancelAtPeriodEnd: false });
    periodEnd = res.body.currentPeriodEnd;
    const end = Date.parse(periodEnd);
    expect(end).toBeGreaterThanOrEqual(addOneMonth(new Date(before)).getTime());
    expect(end).toBeLessThanOrEqual(addOneMonth(new Date()).getTime());
    expect((await as(ada).get('/api/subscription-status')).body).toEqual(res.body);
    expect((await streamOf('ada')).map((e) => e.type)).toEqual(['SubscriptionCheckoutStarted', 'SubscriptionActivated']);
    // Bob is not affected.
    expect((await as(bob).get('/api/subscription-status')).body.isPremium).toBe(false);
  });

  it('answers a retried confirmation with the status, appending nothing', async () => {
    const before = await head();
    const res = await as(ada).post('/api/billing/sandbox/confirm', { clientSecret: secret, cardNumber: GOOD_CARD });
    expect(res.status).toBe(200);
    expect(res.body.isPremium).toBe(true);
    expect(await head()).toBe(before);
  });

  it('answers every one of confirmations sent at once with the premium status (a double click on Pay)', async () => {
    const cleo = await signIn(app.baseUrl, 'cleo@example.com', 'Cleo');
    const { clientSecret } = (await as(cleo).post('/api/create-subscription')).body;
    const answers = await Promise.all([1, 2, 3].map(() => as(cleo).post('/api/billing/sandbox/confirm', { clientSecret, cardNumber: GOOD_CARD })));
    expect(answers.map((res) => [res.status, res.body.isPremium, res.body.status])).toEqual([
      [200, true, 'active'],
      [200, true, 'active'],
      [200, true, 'active'],
    ]);
    // and a cancel sent twice at once: both say it is canceling
    const cancels = await Promise.all([1, 2].map(() => as(cleo).post('/api/subscription/cancel')));
    expect(cancels.map((res) => res.body.status)).toEqual(['canceling', 'canceling']);
  });

  it('answers no client secret to a premium user', async () => {
    const res = await as(ada).post('/api/create-subscription');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
  });

  it('lets a premium user have more than 3 groups; a free user gets 403 for the 4th', async () => {
    for (let i = 1; i <= 4; i++) expect((await as(ada).post('/api/groups', { name: `Ada ${i}` })).status).toBe(201);
    for (let i = 1; i <= 3; i++) expect((await as(bob).post('/api/groups', { name: `Bob ${i}` })).status).toBe(201);
    const fourth = await as(bob).post('/api/groups', { name: 'Bob 4' });
    expect(fourth.status).toBe(403);
    expect(fourth.body.message).toBe(MESSAGES.freePlanLimit);
  });

  it('cancels at the period end: still premium until then, and a second cancel changes nothing', async () => {
    const res = await as(ada).post('/api/subscription/cancel');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ isPremium: true, status: 'canceling', currentPeriodEnd: periodEnd, cancelAtPeriodEnd: true });
    expect((await as(ada).get('/api/subscription-status')).body).toEqual(res.body);
    const before = await head();
    expect((await as(ada).post('/api/subscription/cancel')).body).toEqual(res.body);
    expect(await head()).toBe(before);
    // Still premium: a 5th group is fine.
    expect((await as(ada).post('/api/groups', { name: 'Ada 5' })).status).toBe(201);
  });

  it('resumes a cancelled plan before its period ends (active, renewing again), and can cancel again', async () => {
    const resumed = await as(ada).post('/api/subscription/resume');
    expect(resumed.status).toBe(200);
    expect(resumed.body).toEqual({ isPremium: true, status: 'active', currentPeriodEnd: periodEnd, cancelAtPeriodEnd: false });
    expect((await streamOf('ada')).at(-1)).toMatchObject({ type: 'SubscriptionCancellationWithdrawn' });
    const before = await head();
    expect((await as(ada).post('/api/subscription/resume')).body).toEqual(resumed.body); // already renewing: nothing
    expect(await head()).toBe(before);
    expect((await as(ada).post('/api/subscription/cancel')).body).toMatchObject({ status: 'canceling', cancelAtPeriodEnd: true });
    // Bob never subscribed: nothing to resume.
    const none = await as(bob).post('/api/subscription/resume');
    expect(none.status).toBe(409);
    expect(none.body).toEqual({ statusCode: 409, code: 'billing.nothing_to_resume', message: BILLING_MESSAGES.nothingToResume });
    expect((await as().post('/api/subscription/resume')).status).toBe(401);
  });

  it('has no Customer Portal without Stripe: 409 saying why', async () => {
    const res = await as(ada).post('/api/billing/portal');
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ statusCode: 409, code: 'billing.portal_unavailable', message: BILLING_MESSAGES.portalUnavailable });
  });

  it('never leaves a deleted account paying: a checkout open at deletion ends, and its payment is refused, even sent at once', async () => {
    for (let i = 0; i < 3; i++) {
      const cookie = await signIn(app.baseUrl, `leaving${i}@example.com`, 'Leaving');
      const userId = (await as(cookie).get('/api/auth/user')).body.id as string;
      const { clientSecret } = (await as(cookie).post('/api/create-subscription')).body as { clientSecret: string };
      const pay = () => as(cookie).post('/api/billing/sandbox/confirm', { clientSecret, cardNumber: GOOD_CARD });
      // The third time, the payment comes after the deletion.
      const [deleted, paid] = i < 2 ? await Promise.all([as(cookie).delete('/api/account').send({ confirm: 'DELETE' }), pay()]) : [await as(cookie).delete('/api/account').send({ confirm: 'DELETE' }), await pay()];
      expect(deleted.status).toBe(204);
      // Paid before the deletion (then ended by it), refused as a checkout no longer open, or signed out by then.
      expect([200, 400, 401]).toContain(paid.status);
      if (paid.status === 400) expect(paid.body.code).toBe('billing.checkout_stale');
      const events = await app.running.infra.store.readStream(`subscription-${userId}`);
      // Whatever the order: the stream ends with the subscription ended, and no document says premium.
      expect(events.at(-1)).toMatchObject({ type: 'SubscriptionEnded', data: { reason: 'canceled' } });
      await app.running.infra.pipeline.waitFor(await head(), { eventTypes: ['SubscriptionEnded', 'UserDeleted'] });
      expect(await app.running.infra.readModels.get('subscriptions', userId)).toBeNull();
    }
  });

  it('ends the sandbox subscription when its period has passed; the user can subscribe again', async () => {
    const expiry = app.running.app.get(SandboxExpiry);
    expect(await expiry.endDue(new Date(Date.parse(periodEnd) - 1000))).toEqual([]);
    expect(await expiry.endDue(new Date(periodEnd))).toEqual([ids.ada]);
    expect(await expiry.endDue(new Date(periodEnd))).toEqual([]); // once
    const ended = (await streamOf('ada')).at(-1)!;
    expect(ended).toMatchObject({ type: 'SubscriptionEnded', data: { reason: 'canceled', endedAt: periodEnd } });
    await app.running.infra.pipeline.waitFor(ended.position, { eventTypes: ['SubscriptionEnded'] });
    expect((await as(ada).get('/api/subscription-status')).body).toEqual({ isPremium: false, status: 'ended', currentPeriodEnd: periodEnd, cancelAtPeriodEnd: false });
    expect((await as(ada).post('/api/groups', { name: 'Ada 6' })).status).toBe(403);
    expect((await as(ada).post('/api/subscription/cancel')).status).toBe(409);
    expect((await as(ada).post('/api/subscription/resume')).body.code).toBe('billing.nothing_to_resume'); // too late

    const again = await as(ada).post('/api/create-subscription');
    expect(again.body.clientSecret).toMatch(/^sandbox_/);
    expect(again.body.clientSecret).not.toBe(secret);
    const res = await as(ada).post('/api/billing/sandbox/confirm', { clientSecret: again.body.clientSecret, cardNumber: GOOD_CARD });
    expect(res.body).toMatchObject({ isPremium: true, status: 'active' });
  });
});

describe("the operator's grant in the sandbox (a review of billing, sixteenth session)", () => {
  let app: TestApp;
  const as = (cookie?: string) => api(app.baseUrl, cookie);

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.destroy());

  async function granted(email: string, until: Date) {
    const cookie = await signIn(app.baseUrl, email, 'Gwen');
    const userId = (await as(cookie).get('/api/auth/user')).body.id as string;
    const { append } = await decideAndAppend(
      app.running.infra.store,
      subscriptionStream(userId),
      subscriptionDecider,
      { type: 'GrantPremium', userId, until, at: new Date() },
      { actorUserId: 'operator', now: new Date() },
      { upcast: (e) => ({ type: e.type, data: e.data }) as never },
    );
    await app.running.infra.pipeline.waitFor(append!.position, { eventTypes: ['SubscriptionCancellationScheduled'] });
    return cookie;
  }

  it('says Premium is given, offers no Resume, and lets the person pay for the month after the grant ends', async () => {
    const until = new Date(Date.now() + 10 * 86_400_000);
    const gwen = await granted('gwen.granted@example.com', until);
    const status = { isPremium: true, status: 'canceling', currentPeriodEnd: until.toISOString(), cancelAtPeriodEnd: true, granted: true };
    expect((await as(gwen).get('/api/subscription-status')).body).toEqual(status);
    expect((await as(gwen).post('/api/subscription/cancel')).body).toEqual(status);
    expect((await as(gwen).post('/api/subscription/resume')).body).toEqual({ statusCode: 409, code: 'billing.nothing_to_resume', message: BILLING_MESSAGES.grantNotResumable });

    const { clientSecret } = (await as(gwen).post('/api/create-subscription')).body;
    expect(clientSecret).toMatch(/^sandbox_/);
    const paid = await as(gwen).post('/api/billing/sandbox/confirm', { clientSecret, cardNumber: GOOD_CARD });
    expect(paid.status).toBe(200);
    // The paid month starts where the grant ends: no day is paid for while it was given.
    expect(paid.body).toEqual({ isPremium: true, status: 'active', currentPeriodEnd: addOneMonth(until).toISOString(), cancelAtPeriodEnd: false });
    expect((await as(gwen).post('/api/create-subscription')).body).toEqual({});
  });
});

describe('the end of sandbox subscriptions on an install moved off the sandbox', () => {
  afterEach(() => jest.useRealTimers());

  it('is looked for hourly with Stripe (or no payments), as every minute with the sandbox', () => {
    jest.useFakeTimers();
    for (const [name, every] of [['stripe', 3_600_000], ['none', 3_600_000], ['sandbox', 60_000]] as const) {
      const expiry = new SandboxExpiry({} as EventStore, {} as ReadModelStore, { name } as BillingProvider);
      const endDue = jest.spyOn(expiry, 'endDue').mockResolvedValue([]);
      expiry.onApplicationBootstrap();
      jest.advanceTimersByTime(every - 1);
      expect(endDue).not.toHaveBeenCalled();
      jest.advanceTimersByTime(1);
      expect(endDue).toHaveBeenCalledTimes(1);
      expiry.onApplicationShutdown();
    }
  });
});
