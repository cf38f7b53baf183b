import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { decideAndAppend } from '../event-store/decider';
import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';
import { initialSubscriptionState, SUBSCRIPTION_EVENT_TYPES, SubscriptionCommand, subscriptionDecider, subscriptionStream } from './billing.decider';
import { SandboxExpiry } from './billing.handlers';
import { clientSecretOf, StripeBillingProvider, toProviderSubscription } from './stripe.provider';

/**
 * A stand-in for Stripe's API: a tiny HTTP server that records every request and answers the customers,
 * prices and subscriptions calls the adapter makes, replaying the first answer of an idempotency key as
 * Stripe does.
 */
interface Recorded {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  form: Record<string, string>;
}

type Sub = {
  id: string;
  object: 'subscription';
  customer: string;
  status: string;
  metadata: Record<string, string>;
  cancel_at_period_end: boolean;
  cancel_at: number | null;
  ended_at: number | null;
  cancellation_details: { reason: string | null };
  items: { object: 'list'; data: { id: string; current_period_end: number; current_period_start: number }[] };
  latest_invoice: string;
  /** A trial (a checkout following on from an operator's grant): its end, and the SetupIntent taking the card. */
  trial_end: number | null;
  pending_setup_intent: string | null;
  default_payment_method: string | null;
};

class StripeStandIn {
  readonly requests: Recorded[] = [];
  readonly customers = new Map<string, { id: string; object: 'customer'; metadata: Record<string, string> }>();
  readonly subscriptions = new Map<string, Sub>();
  readonly prices: { id: string; object: 'price'; lookup_key: string; active: boolean; unit_amount: number }[] = [];
  private readonly replies = new Map<string, { status: number; body: unknown }>();
  /** Fail the next N requests to this path prefix with 500 after doing the work (a lost answer). */
  failNext: { prefix: string; count: number; retry: boolean } | null = null;
  private server!: Server;
  private seq = 0;
  private subscriptionSeq = 0;
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((done) => this.server.listen(0, '127.0.0.1', done));
    this.port = (this.server.address() as AddressInfo).port;
  }

  stop(): Promise<void> {
    return new Promise((done) => this.server.close(() => done()));
  }

  of(method: string, prefix: string): Recorded[] {
    return this.requests.filter((r) => r.method === method && r.path.startsWith(prefix));
  }

  /** The card given for a trial, as Stripe.js's confirmSetup does: the SetupIntent succeeded, so Stripe clears it. */
  cardGiven(id: string): Sub {
    return this.set(id, { pending_setup_intent: null, default_payment_method: 'pm_card_visa' });
  }

  /** Changes a subscription as Stripe would (a payment, a cancellation, the end of a period). */
  set(id: string, patch: Partial<Sub> & { periodEnd?: number }): Sub {
    const sub = this.subscriptions.get(id)!;
    const { periodEnd, ...rest } = patch;
    Object.assign(sub, rest);
    if (periodEnd) sub.items.data[0].current_period_end = periodEnd;
    return sub;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const url = new URL(req.url!, 'http://stand-in');
    const form = Object.fromEntries(new URLSearchParams(req.method === 'GET' ? url.search : raw));
    const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
    this.requests.push({ method: req.method!, path: url.pathname, idempotencyKey, form });
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${++this.seq}`, ...headers });
      res.end(JSON.stringify(body));
    };
    const replayKey = idempotencyKey && req.method === 'POST' ? `${url.pathname} ${idempotencyKey}` : null;
    let reply = replayKey ? this.replies.get(replayKey) : undefined;
    if (!reply) {
      reply = this.answer(req.method!, url.pathname, form);
      if (replayKey) this.replies.set(replayKey, reply);
    }
    if (this.failNext && url.pathname.startsWith(this.failNext.prefix) && this.failNext.count > 0) {
      this.failNext.count--;
      send(500, { error: { type: 'api_error', message: 'stand-in lost the answer' } }, { 'stripe-should-retry': String(this.failNext.retry) });
      return;
    }
    send(reply.status, reply.body);
  }

  private answer(method: string, path: string, form: Record<string, string>): { status: number; body: unknown } {
    const parts = path.split('/').filter(Boolean); // ['v1', 'customers', 'cus_1']
    const metadata = (prefix = 'metadata') =>
      Object.fromEntries(Object.entries(form).filter(([k]) => k.startsWith(`${prefix}[`)).map(([k, v]) => [k.slice(prefix.length + 1, -1), v]));
    const expand = Object.entries(form).filter(([k]) => k.startsWith('expand')).map(([, v]) => v);
    const withExpansions = (sub: Sub) => ({
      ...sub,
      ...(expand.includes('latest_invoice.confirmation_secret')
        ? {
            latest_invoice: {
              id: sub.latest_invoice,
              object: 'invoice',
              confirmation_secret: sub.status === 'incomplete' ? { client_secret: `pi_${sub.id}_secret_x`, type: 'payment_intent' } : null,
            },
          }
        : {}),
      ...(expand.includes('pending_setup_intent') && sub.pending_setup_intent
        ? { pending_setup_intent: { id: sub.pending_setup_intent, object: 'setup_intent', client_secret: `${sub.pending_setup_intent}_secret_x`, status: 'requires_payment_method' } }
        : {}),
    });
    const missing = { status: 404, body: { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such object: ${path}` } } };
    // As Stripe: an ended subscription can be neither cancelled again nor changed.
    const ended = (sub: Sub) =>
      ['canceled', 'incomplete_expired'].includes(sub.status)
        ? { status: 400, body: { error: { type: 'invalid_request_error', message: `A canceled subscription can only update its cancellation_details and metadata (${sub.id}).` } } }
        : null;

    if (parts[1] === 'customers') {
      if (method === 'POST' && parts.length === 2) {
        const customer = { id: `cus_${this.customers.size + 1}`, object: 'customer' as const, metadata: metadata() };
        this.customers.set(customer.id, customer);
        return { status: 200, body: customer };
      }
      const customer = this.customers.get(parts[2]);
      return customer ? { status: 200, body: customer } : missing;
    }
    if (parts[1] === 'billing_portal' && parts[2] === 'sessions' && method === 'POST') {
      if (!this.customers.has(form.customer)) return missing;
      const id = `bps_${++this.seq}`;
      return { status: 200, body: { id, object: 'billing_portal.session', customer: form.customer, return_url: form.return_url, url: `https://billing.stripe.test/p/session/${id}` } };
    }
    if (parts[1] === 'prices') {
      if (method === 'GET') {
        const key = form['lookup_keys[0]'];
        return { status: 200, body: { object: 'list', data: this.prices.filter((p) => p.lookup_key === key && p.active), has_more: false, url: path } };
      }
      const price = { id: `price_${this.prices.length + 1}`, object: 'price' as const, lookup_key: form.lookup_key, active: true, unit_amount: Number(form.unit_amount) };
      this.prices.push(price);
      return { status: 200, body: price };
    }
    if (parts[1] === 'subscriptions') {
      if (method === 'POST' && parts.length === 2) {
        if (!this.customers.has(form.customer)) return { status: 400, body: { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such customer: '${form.customer}'` } } };
        const id = `sub_${++this.subscriptionSeq}`;
        const now = Math.floor(Date.now() / 1000);
        // A trial charges nothing now: trialing at once, its period up to the trial's end, a SetupIntent for the card.
        const trialEnd = form.trial_end ? Number(form.trial_end) : null;
        const sub: Sub = {
          id,
          object: 'subscription',
          customer: form.customer,
          status: trialEnd ? 'trialing' : 'incomplete',
          metadata: metadata(),
          cancel_at_period_end: false,
          cancel_at: null,
          ended_at: null,
          cancellation_details: { reason: null },
          items: { object: 'list', data: [{ id: `si_${id}`, current_period_start: now, current_period_end: trialEnd ?? now + 30 * 86400 }] },
          latest_invoice: `in_${id}`,
          trial_end: trialEnd,
          pending_setup_intent: trialEnd ? `seti_${id}` : null,
          default_payment_method: null,
        };
        this.subscriptions.set(id, sub);
        return { status: 200, body: withExpansions(sub) };
      }
      const sub = this.subscriptions.get(parts[2]);
      if (!sub) return missing;
      const refused = method !== 'GET' ? ended(sub) : null;
      if (refused) return refused;
      if (method === 'DELETE') {
        // Canceled at once, whatever its status (an incomplete one too: its payment can no longer complete).
        Object.assign(sub, { status: 'canceled', ended_at: Math.floor(Date.now() / 1000), cancellation_details: { reason: 'cancellation_requested' } });
        return { status: 200, body: withExpansions(structuredClone(sub)) };
      }
      if (method === 'POST') {
        if (form.cancel_at_period_end === 'true') {
          sub.cancel_at_period_end = true;
          sub.cancel_at = sub.items.data[0].current_period_end;
        } else if (form.cancel_at_period_end === 'false') {
          // As Stripe does: taking the cancellation back clears the date it was due.
          sub.cancel_at_period_end = false;
          sub.cancel_at = null;
        }
        return { status: 200, body: withExpansions(structuredClone(sub)) };
      }
      return { status: 200, body: withExpansions(structuredClone(sub)) };
    }
    return missing;
  }
}

const WEBHOOK_SECRET = 'whsec_test_joy';
const stripeEnv = (standIn: StripeStandIn) => ({
  STRIPE_SECRET_KEY: 'sk_test_joy',
  STRIPE_PUBLISHABLE_KEY: 'pk_test_joy',
  STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
  STRIPE_API_HOST: '127.0.0.1',
  STRIPE_API_PORT: String(standIn.port),
  STRIPE_API_PROTOCOL: 'http',
});

let eventSeq = 0;
/** A Stripe event about a subscription, as JSON, and its signature header. */
function webhook(type: string, object: object, secret = WEBHOOK_SECRET): { payload: string; signature: string; id: string } {
  const id = `evt_${++eventSeq}`;
  const payload = JSON.stringify({ id, object: 'event', type, api_version: '2026-10-28.endive', created: Math.floor(Date.now() / 1000), data: { object } });
  return { payload, id, signature: Stripe.webhooks.generateTestHeaderString({ payload, secret }) };
}

describe('the Stripe adapter against a stand-in for the Stripe API', () => {
  const standIn = new StripeStandIn();
  let provider: StripeBillingProvider;

  beforeAll(async () => {
    await standIn.start();
    provider = new StripeBillingProvider({
      provider: 'stripe',
      secretKey: 'sk_test_joy',
      publishableKey: 'pk_test_joy',
      webhookSecret: WEBHOOK_SECRET,
      priceId: null,
      api: { host: '127.0.0.1', port: standIn.port, protocol: 'http' },
    });
  });
  afterAll(() => standIn.stop());

  it('creates the customer (metadata userId), finds or creates the $4.99 monthly price, and an incomplete subscription', async () => {
    const checkout = await provider.checkout('user-1', initialSubscriptionState);
    expect(checkout).toEqual({ kind: 'open', customerId: 'cus_1', subscriptionId: 'sub_1', clientSecret: 'pi_sub_1_secret_x' });

    const [customer] = standIn.of('POST', '/v1/customers');
    expect(customer).toMatchObject({ idempotencyKey: 'joy-customer-user-1', form: { 'metadata[userId]': 'user-1' } });
    expect(standIn.of('GET', '/v1/prices')[0].form).toMatchObject({ 'lookup_keys[0]': 'joy_premium_monthly', active: 'true' });
    expect(standIn.of('POST', '/v1/prices')[0]).toMatchObject({
      idempotencyKey: 'joy-price-joy_premium_monthly',
      form: { currency: 'usd', unit_amount: '499', 'recurring[interval]': 'month', lookup_key: 'joy_premium_monthly', 'product_data[name]': 'Joy Premium' },
    });
    expect(standIn.of('POST', '/v1/subscriptions')[0]).toMatchObject({
      idempotencyKey: 'joy-subscription-user-1-1',
      form: {
        customer: 'cus_1',
        'items[0][price]': 'price_1',
        payment_behavior: 'default_incomplete',
        'payment_settings[save_default_payment_method]': 'on_subscription',
        'metadata[userId]': 'user-1',
        'expand[0]': 'latest_invoice.confirmation_secret',
        'expand[1]': 'pending_setup_intent',
      },
    });
  });

  it('uses the price it found before, and reuses a known customer', async () => {
    const before = standIn.requests.length;
    await provider.checkout('user-2', { ...initialSubscriptionState, customerId: 'cus_1', customerIds: { stripe: 'cus_1' } });
    const made = standIn.requests.slice(before).map((r) => `${r.method} ${r.path}`);
    expect(made).toEqual(['POST /v1/subscriptions']);
  });

  it('retries a lost answer with the same idempotency key, and Stripe makes one subscription', async () => {
    const subsBefore = standIn.subscriptions.size;
    standIn.failNext = { prefix: '/v1/subscriptions', count: 1, retry: true };
    const checkout = await provider.checkout('user-3', { ...initialSubscriptionState, customerId: 'cus_1', customerIds: { stripe: 'cus_1' }, attempts: 1 });
    const attempts = standIn.of('POST', '/v1/subscriptions').filter((r) => r.idempotencyKey === 'joy-subscription-user-3-2');
    expect(attempts).toHaveLength(2);
    expect(standIn.subscriptions.size).toBe(subsBefore + 1);
    expect(checkout).toMatchObject({ kind: 'open', subscriptionId: `sub_${subsBefore + 1}` });
  });

  it('reads the client secret where the API version puts it', () => {
    const sub = (latest_invoice: unknown) => ({ latest_invoice }) as unknown as Stripe.Subscription;
    expect(clientSecretOf(sub({ confirmation_secret: { client_secret: 'new', type: 'payment_intent' } }))).toBe('new');
    expect(clientSecretOf(sub({ payment_intent: { client_secret: 'legacy' } }))).toBe('legacy');
    expect(clientSecretOf(sub('in_1'))).toBeNull();
  });

  it('normalises Stripe statuses: paid ones active (past_due with a payment due), unpaid and paused lapsed, canceled and expired ended', () => {
    const base = { id: 'sub_9', customer: 'cus_9', cancel_at_period_end: false, cancel_at: null, ended_at: null, items: { data: [{ current_period_end: 1_800_000_000 }] } };
    const of = (extra: object) => toProviderSubscription({ ...base, ...extra } as unknown as Stripe.Subscription, 'u');
    for (const status of ['active', 'trialing', 'past_due']) expect(of({ status }).status).toBe('active');
    for (const status of ['canceled', 'incomplete_expired']) expect(of({ status }).status).toBe('ended');
    expect(of({ status: 'incomplete' }).status).toBe('open');
    for (const status of ['unpaid', 'paused']) expect(of({ status })).toMatchObject({ status: 'lapsed', lapseReason: status });
    expect(of({ status: 'past_due' }).paymentDue).toBe(true);
    for (const status of ['active', 'trialing']) expect(of({ status }).paymentDue).toBeUndefined();
    expect(of({ status: 'active' }).currentPeriodEnd).toBe(new Date(1_800_000_000_000).toISOString());
    expect(of({ status: 'canceled', ended_at: 1_800_000_000, cancellation_details: { reason: 'payment_failed' } })).toMatchObject({
      endedAt: new Date(1_800_000_000_000).toISOString(), endReason: 'payment_failed',
    });
    expect(of({ status: 'canceled', cancellation_details: { reason: 'cancellation_requested' } }).endReason).toBe('canceled');
    expect(of({ status: 'canceled', cancellation_details: { reason: null } }).endReason).toBeUndefined();
  });
});

describe('Joy Premium over HTTP with Stripe (stand-in API, signed webhooks)', () => {
  const standIn = new StripeStandIn();
  let app: TestApp;
  let ada: string;
  let adaId: string;
  const as = (cookie?: string) => api(app.baseUrl, cookie);
  const head = () => app.running.infra.store.headPosition();
  const stream = () => app.running.infra.store.readStream(`subscription-${adaId}`);
  const status = async () => (await as(ada).get('/api/subscription-status')).body;
  const deliver = (hook: { payload: string; signature: string }) =>
    as().post('/api/billing/webhook').set('Content-Type', 'application/json').set('Stripe-Signature', hook.signature).send(hook.payload);
  /** Waits until the read model has every event appended so far (webhooks answer once appended). */
  const settled = async () => app.running.infra.pipeline.waitFor(await head(), { eventTypes: ['SubscriptionActivated'] });

  beforeAll(async () => {
    await standIn.start();
    app = await startTestApp(stripeEnv(standIn));
    ada = await signIn(app.baseUrl, 'ada@example.com', 'Ada');
    adaId = (await as(ada).get('/api/auth/user')).body.id;
  });
  afterAll(async () => {
    await app.destroy();
    await standIn.stop();
  });

  it('tells the browser to use Stripe with the publishable key', async () => {
    expect((await as(ada).get('/api/billing/config')).body).toEqual({ provider: 'stripe', publishableKey: 'pk_test_joy' });
    expect((await as(ada).post('/api/billing/sandbox/confirm', { clientSecret: 'x', cardNumber: '4242424242424242' })).status).toBe(404);
  });

  it('answers the same client secret to a request retried after a lost answer: one customer, one subscription', async () => {
    standIn.failNext = { prefix: '/v1/subscriptions', count: 1, retry: false };
    const first = await as(ada).post('/api/create-subscription');
    expect(first.status).toBe(500);
    expect(await stream()).toEqual([]);
    const retried = await as(ada).post('/api/create-subscription');
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual({ clientSecret: 'pi_sub_1_secret_x' });
    expect(standIn.customers.size).toBe(1);
    expect(standIn.subscriptions.size).toBe(1);
    const keys = standIn.of('POST', '/v1/').map((r) => `${r.path} ${r.idempotencyKey}`);
    expect(new Set(keys)).toEqual(new Set([`/v1/customers joy-customer-${adaId}`, '/v1/prices joy-price-joy_premium_monthly', `/v1/subscriptions joy-subscription-${adaId}-1`]));
    expect((await stream()).map((e) => e.type)).toEqual(['SubscriptionCheckoutStarted']);
    // A reload of the page reuses the open checkout.
    expect((await as(ada).post('/api/create-subscription')).body).toEqual({ clientSecret: 'pi_sub_1_secret_x' });
    expect(standIn.subscriptions.size).toBe(1);
  });

  it('refuses a webhook with a bad or missing signature with 400, appending nothing', async () => {
    standIn.set('sub_1', { status: 'active' });
    const before = await head();
    const forged = webhook('customer.subscription.updated', standIn.subscriptions.get('sub_1')!, 'whsec_wrong');
    expect((await deliver(forged)).status).toBe(400);
    const good = webhook('customer.subscription.updated', standIn.subscriptions.get('sub_1')!);
    expect((await deliver({ payload: good.payload.replace('"active"', '"canceled"'), signature: good.signature })).status).toBe(400);
    expect((await as().post('/api/billing/webhook').set('Content-Type', 'application/json').send(good.payload)).status).toBe(400);
    expect(await head()).toBe(before);
    expect((await status()).isPremium).toBe(false);
  });

  let periodEnd: string;
  it('activates on a signed webhook, from Stripe’s current state; the same event twice changes nothing', async () => {
    const hook = webhook('customer.subscription.updated', standIn.subscriptions.get('sub_1')!);
    const res = await deliver(hook);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true });
    await settled();
    periodEnd = new Date(standIn.subscriptions.get('sub_1')!.items.data[0].current_period_end * 1000).toISOString();
    expect(await status()).toEqual({ isPremium: true, status: 'active', currentPeriodEnd: periodEnd, cancelAtPeriodEnd: false });
    const events = await stream();
    expect(events.map((e) => e.type)).toEqual(['SubscriptionCheckoutStarted', 'SubscriptionActivated']);
    expect(events[1].metadata).toMatchObject({ actorUserId: 'system', correlationId: `stripe-${hook.id}` });

    const before = await head();
    expect((await deliver(hook)).status).toBe(200);
    expect(await head()).toBe(before);
    expect((await as(ada).post('/api/create-subscription')).body).toEqual({});
  });

  it('ignores events that concern no subscription', async () => {
    const before = await head();
    expect((await deliver(webhook('payment_intent.succeeded', { id: 'pi_1', object: 'payment_intent' }))).status).toBe(200);
    expect(await head()).toBe(before);
  });

  it('renews on invoice.paid with the new period end', async () => {
    const next = standIn.subscriptions.get('sub_1')!.items.data[0].current_period_end + 31 * 86400;
    standIn.set('sub_1', { periodEnd: next });
    const invoice = { id: 'in_2', object: 'invoice', parent: { type: 'subscription_details', subscription_details: { subscription: 'sub_1' } } };
    expect((await deliver(webhook('invoice.paid', invoice))).status).toBe(200);
    await settled();
    periodEnd = new Date(next * 1000).toISOString();
    expect(await status()).toMatchObject({ status: 'active', currentPeriodEnd: periodEnd });
    expect((await stream()).at(-1)!.type).toBe('SubscriptionRenewed');
  });

  it('cancels at the period end through Stripe, with an idempotency key; premium until then', async () => {
    const res = await as(ada).post('/api/subscription/cancel');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ isPremium: true, status: 'canceling', currentPeriodEnd: periodEnd, cancelAtPeriodEnd: true });
    expect(standIn.of('POST', '/v1/subscriptions/sub_1')).toEqual([
      expect.objectContaining({ idempotencyKey: 'joy-cancel-sub_1', form: { cancel_at_period_end: 'true' } }),
    ]);
    // Stripe's own webhook for the change then changes nothing.
    const before = await head();
    expect((await deliver(webhook('customer.subscription.updated', standIn.subscriptions.get('sub_1')!))).status).toBe(200);
    expect(await head()).toBe(before);
  });

  it("opens the customer's Stripe Customer Portal, which comes back to /account", async () => {
    const res = await as(ada).post('/api/billing/portal');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ url: expect.stringMatching(/^https:\/\/billing\.stripe\.test\/p\/session\/bps_\d+$/) });
    expect(standIn.of('POST', '/v1/billing_portal/sessions').at(-1)!.form).toEqual({ customer: 'cus_1', return_url: `${app.baseUrl}/account` });
    // Someone who never paid through Stripe has no portal yet.
    const newcomer = await signIn(app.baseUrl, 'new.portal@example.com', 'New');
    const none = await as(newcomer).post('/api/billing/portal');
    expect(none.status).toBe(409);
    expect(none.body).toEqual({ statusCode: 409, code: 'billing.portal_unavailable', message: 'There are no payment methods or invoices yet: subscribe to Joy Premium first.' });
    expect((await as().post('/api/billing/portal')).status).toBe(401);
  });

  it('resumes through Stripe (cancel_at_period_end=false), and cancels again with keys of their own', async () => {
    const resumed = await as(ada).post('/api/subscription/resume');
    expect(resumed.body).toEqual({ isPremium: true, status: 'active', currentPeriodEnd: periodEnd, cancelAtPeriodEnd: false });
    expect(standIn.subscriptions.get('sub_1')!.cancel_at_period_end).toBe(false);
    expect((await as(ada).post('/api/subscription/cancel')).body.status).toBe('canceling');
    expect(standIn.subscriptions.get('sub_1')!.cancel_at_period_end).toBe(true);
    expect(standIn.of('POST', '/v1/subscriptions/sub_1').slice(-2)).toEqual([
      expect.objectContaining({ idempotencyKey: 'joy-resume-sub_1-1', form: { cancel_at_period_end: 'false' } }),
      expect.objectContaining({ idempotencyKey: 'joy-cancel-sub_1-2', form: { cancel_at_period_end: 'true' } }),
    ]);
  });

  it('ends right when "deleted" arrives before a stale "updated"', async () => {
    const staleUpdated = webhook('customer.subscription.updated', { ...standIn.subscriptions.get('sub_1')!, cancel_at_period_end: false });
    const endedAt = Math.floor(Date.now() / 1000);
    const deleted = webhook('customer.subscription.deleted', standIn.set('sub_1', { status: 'canceled', ended_at: endedAt }));
    expect((await deliver(deleted)).status).toBe(200);
    await settled();
    expect(await status()).toEqual({ isPremium: false, status: 'ended', currentPeriodEnd: new Date(endedAt * 1000).toISOString(), cancelAtPeriodEnd: false });
    const before = await head();
    expect((await deliver(staleUpdated)).status).toBe(200);
    expect((await deliver(deleted)).status).toBe(200);
    expect(await head()).toBe(before);
    expect((await status()).status).toBe('ended');
    expect((await stream()).at(-1)).toMatchObject({ type: 'SubscriptionEnded', data: { reason: 'canceled' } });
    expect((await as(ada).post('/api/subscription/cancel')).status).toBe(409);
  });

  it('subscribes again as a new attempt for the same customer', async () => {
    const res = await as(ada).post('/api/create-subscription');
    expect(res.body).toEqual({ clientSecret: 'pi_sub_2_secret_x' });
    expect(standIn.customers.size).toBe(1);
    expect(standIn.of('POST', '/v1/subscriptions').at(-1)).toMatchObject({ idempotencyKey: `joy-subscription-${adaId}-2`, form: { customer: 'cus_1' } });
  });

  it('cancels at Stripe a checkout open when its account is deleted; its payment, reported later, starts nothing (a review, 11-27)', async () => {
    const cleo = await signIn(app.baseUrl, 'cleo@example.com', 'Cleo');
    const cleoId = (await as(cleo).get('/api/auth/user')).body.id as string;
    const { clientSecret } = (await as(cleo).post('/api/create-subscription')).body as { clientSecret: string };
    const subscriptionId = /^pi_(sub_\d+)_secret/.exec(clientSecret)![1];
    expect((await as(cleo).delete('/api/account').send({ confirm: 'DELETE' })).status).toBe(204);
    expect(standIn.of('DELETE', `/v1/subscriptions/${subscriptionId}`)).toHaveLength(1);
    const events = await app.running.infra.store.readStream(`subscription-${cleoId}`);
    expect(events.map((e) => e.type)).toEqual(['SubscriptionCheckoutStarted', 'SubscriptionEnded']);
    // A payment Stripe reports afterwards (a webhook delayed or retried) is of an ended subscription.
    const before = await head();
    const paid = webhook('customer.subscription.updated', standIn.set(subscriptionId, { status: 'active' }));
    expect((await deliver(paid)).status).toBe(200);
    expect(await head()).toBe(before);
    expect(await app.running.infra.readModels.get('subscriptions', cleoId)).toBeNull();
  });

  /** A new person with a Stripe subscription paid through a signed webhook. */
  async function subscribed(email: string) {
    const cookie = await signIn(app.baseUrl, email, 'Dana');
    const userId = (await as(cookie).get('/api/auth/user')).body.id as string;
    const { clientSecret } = (await as(cookie).post('/api/create-subscription')).body as { clientSecret: string };
    const id = /^pi_(sub_\d+)_secret/.exec(clientSecret)![1];
    /** Changes the subscription at Stripe, and Stripe tells Joy: about the subscription, or its invoice (invoice.paid). */
    const update = async (patch: Parameters<StripeStandIn['set']>[1], type = 'customer.subscription.updated') => {
      const sub = standIn.set(id, patch);
      const object = type.startsWith('invoice.')
        ? { id: `in_${id}_${++eventSeq}`, object: 'invoice', parent: { type: 'subscription_details', subscription_details: { subscription: id } } }
        : sub;
      expect((await deliver(webhook(type, object))).status).toBe(200);
      await settled();
    };
    await update({ status: 'active' });
    return {
      cookie,
      id,
      update,
      status: async () => (await as(cookie).get('/api/subscription-status')).body,
      premiumOnly: async () => (await as(cookie).get('/api/insights/advanced')).status,
      events: async () => (await app.running.infra.store.readStream(`subscription-${userId}`)).map((e) => e.type),
      periodEnd: () => standIn.subscriptions.get(id)!.items.data[0].current_period_end,
    };
  }

  it('keeps past_due premium while Stripe retries, without renewing to the period that is not paid yet', async () => {
    const dana = await subscribed('dana.past-due@example.com');
    const paidUntil = new Date(dana.periodEnd() * 1000).toISOString();
    const next = dana.periodEnd() + 31 * 86400;
    await dana.update({ status: 'past_due', periodEnd: next });
    expect(await dana.status()).toEqual({ isPremium: true, status: 'active', currentPeriodEnd: paidUntil, cancelAtPeriodEnd: false });
    expect(await dana.premiumOnly()).toBe(200);
    // The retry succeeds: now it renews.
    await dana.update({ status: 'active' }, 'invoice.paid');
    expect(await dana.status()).toMatchObject({ isPremium: true, status: 'active', currentPeriodEnd: new Date(next * 1000).toISOString() });
    expect(await dana.events()).toEqual(['SubscriptionCheckoutStarted', 'SubscriptionActivated', 'SubscriptionRenewed']);
  });

  it('stops Premium when Stripe marks the subscription unpaid, and gives it back on the same subscription once paid', async () => {
    const dana = await subscribed('dana.unpaid@example.com');
    expect(await dana.premiumOnly()).toBe(200);
    const before = Date.now();
    await dana.update({ status: 'unpaid' });
    const lapsed = await dana.status();
    expect(lapsed).toEqual({ isPremium: false, status: 'lapsed', currentPeriodEnd: expect.any(String), cancelAtPeriodEnd: false });
    expect(Date.parse(lapsed.currentPeriodEnd)).toBeGreaterThanOrEqual(before - 1000); // since when
    expect(await dana.premiumOnly()).toBe(403);
    // The way on is the billing portal, not a second subscription.
    const subscriptions = standIn.subscriptions.size;
    expect((await as(dana.cookie).post('/api/create-subscription')).body).toEqual({});
    expect(standIn.subscriptions.size).toBe(subscriptions);
    expect((await as(dana.cookie).post('/api/billing/portal')).status).toBe(200);
    // The same webhook twice, and Stripe's invoice.paid for the open invoice.
    await dana.update({ status: 'unpaid' });
    await dana.update({ status: 'active' }, 'invoice.paid');
    expect(await dana.status()).toEqual({ isPremium: true, status: 'active', currentPeriodEnd: new Date(dana.periodEnd() * 1000).toISOString(), cancelAtPeriodEnd: false });
    expect(await dana.premiumOnly()).toBe(200);
    expect(await dana.events()).toEqual(['SubscriptionCheckoutStarted', 'SubscriptionActivated', 'SubscriptionLapsed', 'SubscriptionReactivated']);
  });

  it('ends a subscription deleted while unpaid, with Stripe’s reason; paying it afterwards changes nothing', async () => {
    const dana = await subscribed('dana.deleted@example.com');
    await dana.update({ status: 'unpaid' });
    const endedAt = Math.floor(Date.now() / 1000);
    await dana.update({ status: 'canceled', ended_at: endedAt, cancellation_details: { reason: 'payment_failed' } }, 'customer.subscription.deleted');
    expect(await dana.status()).toEqual({ isPremium: false, status: 'ended', currentPeriodEnd: new Date(endedAt * 1000).toISOString(), cancelAtPeriodEnd: false });
    await dana.update({ status: 'active' }); // a stale or forged "active": ended is final
    expect(await dana.status()).toMatchObject({ isPremium: false, status: 'ended' });
    expect(await dana.premiumOnly()).toBe(403);
    expect(await dana.events()).toEqual(['SubscriptionCheckoutStarted', 'SubscriptionActivated', 'SubscriptionLapsed', 'SubscriptionEnded']);
  });

  it('cancels a lapsed subscription at Stripe when its account is deleted, so that it cannot be paid later', async () => {
    const dana = await subscribed('dana.leaves@example.com');
    await dana.update({ status: 'paused' });
    expect(await dana.status()).toMatchObject({ isPremium: false, status: 'lapsed' });
    expect((await as(dana.cookie).delete('/api/account').send({ confirm: 'DELETE' })).status).toBe(204);
    expect(standIn.of('DELETE', `/v1/subscriptions/${dana.id}`)).toHaveLength(1);
    expect(standIn.subscriptions.get(dana.id)!.status).toBe('canceled');
  });
});

describe('a subscription Stripe does not have, or has ended already (a review of billing, sixteenth session)', () => {
  const standIn = new StripeStandIn();
  let app: TestApp;
  const as = (cookie?: string) => api(app.baseUrl, cookie);
  const head = () => app.running.infra.store.headPosition();
  const deliver = (hook: { payload: string; signature: string }) =>
    as().post('/api/billing/webhook').set('Content-Type', 'application/json').set('Stripe-Signature', hook.signature).send(hook.payload);
  const settled = async () => app.running.infra.pipeline.waitFor(await head(), { eventTypes: SUBSCRIPTION_EVENT_TYPES });
  /** Requests Stripe got about a subscription (any method, any path under it). */
  const askedAbout = (id: string) => standIn.requests.filter((r) => r.path.startsWith(`/v1/subscriptions/${id}`)).map((r) => r.method);

  beforeAll(async () => {
    await standIn.start();
    app = await startTestApp(stripeEnv(standIn));
  });
  afterAll(async () => {
    await app.destroy();
    await standIn.stop();
  });

  async function person(email: string) {
    const cookie = await signIn(app.baseUrl, email, 'Eve');
    const userId = (await as(cookie).get('/api/auth/user')).body.id as string;
    return {
      cookie,
      userId,
      /** Appends as the operator's command or the sandbox's confirmation would (beside the app, as `npm run users` does). */
      record: async (command: SubscriptionCommand) => {
        await decideAndAppend(app.running.infra.store, subscriptionStream(userId), subscriptionDecider, command, { actorUserId: 'operator', now: new Date() }, {
          upcast: (e) => ({ type: e.type, data: e.data }) as never,
        });
        await settled();
      },
      status: async () => (await as(cookie).get('/api/subscription-status')).body,
      events: async () => (await app.running.infra.store.readStream(subscriptionStream(userId))).map((e) => e.type),
      deleteAccount: () => as(cookie).delete('/api/account').send({ confirm: 'DELETE' }),
      signedIn: async () => (await as(cookie).get('/api/auth/user')).status,
    };
  }
  const months = (n: number) => new Date(Date.now() + n * 30 * 86_400_000);

  it("deletes the account of a person with the operator's Premium without asking Stripe: Premium ends, the account goes", async () => {
    const eve = await person('eve.granted@example.com');
    const until = months(3);
    await eve.record({ type: 'GrantPremium', userId: eve.userId, until, at: new Date() });
    expect(await eve.status()).toEqual({ isPremium: true, status: 'canceling', currentPeriodEnd: until.toISOString(), cancelAtPeriodEnd: true, granted: true });
    expect((await as(eve.cookie).post('/api/subscription/cancel')).status).toBe(200);
    const resume = await as(eve.cookie).post('/api/subscription/resume');
    expect(resume.status).toBe(409);
    expect(resume.body.message).toMatch(/given by the person who runs this install/);
    // Nothing to pay with or look at in Stripe's portal: no 'operator' customer is handed to Stripe.
    expect((await as(eve.cookie).post('/api/billing/portal')).status).toBe(409);
    const res = await eve.deleteAccount();
    expect(res.status).toBe(204);
    expect(standIn.requests.filter((r) => r.path.includes('operator'))).toEqual([]);
    expect(await eve.signedIn()).toBe(401);
    expect((await eve.events()).at(-1)).toBe('SubscriptionEnded');
  });

  it('lets a sandbox subscription from before the move to Stripe be cancelled, ended and deleted without Stripe; a new checkout gets a Stripe customer', async () => {
    const sam = await person('sam.sandbox-era@example.com');
    const sandbox = { provider: 'sandbox' as const, userId: sam.userId, customerId: 'sandbox_cus_sam', subscriptionId: 'sandbox_sub_sam_1' };
    const at = new Date();
    await sam.record({ type: 'StartCheckout', ...sandbox, at });
    const periodEnd = months(1).toISOString();
    await sam.record({ type: 'SyncSubscription', subscription: { ...sandbox, status: 'active', currentPeriodEnd: periodEnd, cancelAtPeriodEnd: false, endedAt: null }, at });
    const cancel = await as(sam.cookie).post('/api/subscription/cancel');
    expect(cancel.status).toBe(200);
    expect(cancel.body).toEqual({ isPremium: true, status: 'canceling', currentPeriodEnd: periodEnd, cancelAtPeriodEnd: true });
    expect((await as(sam.cookie).post('/api/subscription/resume')).body.status).toBe('active');
    expect(askedAbout('sandbox_sub_sam_1')).toEqual([]);

    // Its month over, the hourly look ends it on this install too; subscribing again is Stripe's, with a customer of its own.
    await app.running.app.get(SandboxExpiry).endDue(new Date(Date.parse(periodEnd) + 1000));
    await settled();
    expect(await sam.events()).toContain('SubscriptionEnded');
    const checkout = await as(sam.cookie).post('/api/create-subscription');
    expect(checkout.status).toBe(200);
    expect(checkout.body.clientSecret).toMatch(/^pi_sub_\d+_secret_x$/);
    expect(standIn.of('POST', '/v1/subscriptions').at(-1)!.form.customer).toMatch(/^cus_\d+$/);

    const kim = await person('kim.sandbox-era@example.com');
    await kim.record({ type: 'StartCheckout', ...sandbox, userId: kim.userId, subscriptionId: 'sandbox_sub_kim_1', at });
    await kim.record({
      type: 'SyncSubscription',
      subscription: { ...sandbox, userId: kim.userId, subscriptionId: 'sandbox_sub_kim_1', status: 'active', currentPeriodEnd: periodEnd, cancelAtPeriodEnd: false, endedAt: null },
      at,
    });
    expect((await kim.deleteAccount()).status).toBe(204);
    expect(await kim.signedIn()).toBe(401);
    expect(askedAbout('sandbox_sub_kim_1')).toEqual([]);
  });

  /** A person with a Stripe subscription made active by a signed webhook. */
  async function subscribed(email: string) {
    const someone = await person(email);
    const { clientSecret } = (await as(someone.cookie).post('/api/create-subscription')).body as { clientSecret: string };
    const id = /^pi_(sub_\d+)_secret/.exec(clientSecret)![1];
    expect((await deliver(webhook('customer.subscription.updated', standIn.set(id, { status: 'active' })))).status).toBe(200);
    await settled();
    return { ...someone, id };
  }

  it('completes a deletion when Stripe has cancelled the subscription already and its webhook has not come: no second cancel', async () => {
    const ann = await subscribed('ann.lagging-webhook@example.com');
    expect((await as(ann.cookie).post('/api/subscription/cancel')).body.status).toBe('canceling');
    // The period is over at Stripe, which cancels it; its customer.subscription.deleted is not handled (yet).
    standIn.set(ann.id, { status: 'canceled', ended_at: Math.floor(Date.now() / 1000), cancellation_details: { reason: 'cancellation_requested' } });
    expect((await ann.status()).status).toBe('canceling');
    const res = await ann.deleteAccount();
    expect(res.status).toBe(204);
    expect(await ann.signedIn()).toBe(401);
    expect(standIn.of('DELETE', `/v1/subscriptions/${ann.id}`)).toEqual([]);
    expect((await ann.events()).at(-1)).toBe('SubscriptionEnded');
  });

  it('answers Cancel and Resume of a subscription Stripe has ended with its end, recorded; and deletes one Stripe does not know', async () => {
    const ben = await subscribed('ben.ended-at-stripe@example.com');
    const endedAt = Math.floor(Date.now() / 1000);
    standIn.set(ben.id, { status: 'canceled', ended_at: endedAt, cancellation_details: { reason: 'payment_failed' } });
    const cancel = await as(ben.cookie).post('/api/subscription/cancel');
    expect(cancel.status).toBe(200);
    expect(cancel.body).toEqual({ isPremium: false, status: 'ended', currentPeriodEnd: new Date(endedAt * 1000).toISOString(), cancelAtPeriodEnd: false });
    expect((await ben.events()).at(-1)).toBe('SubscriptionEnded');

    const bo = await subscribed('bo.ended-while-canceling@example.com');
    expect((await as(bo.cookie).post('/api/subscription/cancel')).body.status).toBe('canceling');
    standIn.set(bo.id, { status: 'canceled', ended_at: endedAt, cancellation_details: { reason: 'cancellation_requested' } });
    const resume = await as(bo.cookie).post('/api/subscription/resume');
    expect(resume.status).toBe(200);
    expect(resume.body).toMatchObject({ isPremium: false, status: 'ended' });

    const cay = await subscribed('cay.unknown-at-stripe@example.com');
    standIn.subscriptions.delete(cay.id); // test data deleted at Stripe
    expect((await as(cay.cookie).post('/api/subscription/cancel')).body).toMatchObject({ isPremium: false, status: 'ended' });
    const dee = await subscribed('dee.unknown-at-stripe@example.com');
    standIn.subscriptions.delete(dee.id);
    expect((await dee.deleteAccount()).status).toBe(204);
    expect(await dee.signedIn()).toBe(401);
  });

  it('acknowledges a signed webhook about a subscription Stripe does not know (200, nothing appended), and answers 500 while Stripe fails', async () => {
    const before = await head();
    const unknown = { id: 'sub_nope', object: 'subscription', status: 'active', customer: 'cus_nope' };
    const res = await deliver(webhook('customer.subscription.updated', unknown));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true });
    expect(await head()).toBe(before);

    const fay = await subscribed('fay.outage@example.com');
    standIn.failNext = { prefix: `/v1/subscriptions/${fay.id}`, count: 10, retry: false };
    const failed = await deliver(webhook('customer.subscription.updated', standIn.subscriptions.get(fay.id)!));
    standIn.failNext = null;
    expect(failed.status).toBe(500);
  });
});

describe('subscribing during the operator\'s grant, with Stripe (a review of billing, sixteenth session)', () => {
  const standIn = new StripeStandIn();
  let app: TestApp;
  const as = (cookie?: string) => api(app.baseUrl, cookie);
  const head = () => app.running.infra.store.headPosition();
  const deliver = (hook: { payload: string; signature: string }) =>
    as().post('/api/billing/webhook').set('Content-Type', 'application/json').set('Stripe-Signature', hook.signature).send(hook.payload);
  const settled = async () => app.running.infra.pipeline.waitFor(await head(), { eventTypes: SUBSCRIPTION_EVENT_TYPES });

  beforeAll(async () => {
    await standIn.start();
    app = await startTestApp(stripeEnv(standIn));
  });
  afterAll(async () => {
    await app.destroy();
    await standIn.stop();
  });

  /** A person the operator gave Premium until `until`. */
  async function granted(email: string, until: Date) {
    const cookie = await signIn(app.baseUrl, email, 'Gil');
    const userId = (await as(cookie).get('/api/auth/user')).body.id as string;
    const grant = () =>
      decideAndAppend(app.running.infra.store, subscriptionStream(userId), subscriptionDecider, { type: 'GrantPremium', userId, until, at: new Date() }, { actorUserId: 'operator', now: new Date() }, {
        upcast: (e) => ({ type: e.type, data: e.data }) as never,
      }).then(settled);
    return { cookie, userId, grant, status: async () => (await as(cookie).get('/api/subscription-status')).body };
  }

  it('takes the card now and the first payment when the grant ends (a trial until then): no day paid twice, Premium on without a gap', async () => {
    const until = new Date(Date.now() + 40 * 86_400_000);
    const gil = await granted('gil.keeps-premium@example.com', until);
    await gil.grant();
    const res = await as(gil.cookie).post('/api/create-subscription');
    expect(res.status).toBe(200);
    expect(res.body.clientSecret).toMatch(/^seti_sub_\d+_secret_x$/);
    const id = /^seti_(sub_\d+)_secret/.exec(res.body.clientSecret)![1];
    // Stripe counts in seconds: the trial ends on the grant's last second, so no part of the grant is paid for.
    const trialEnd = String(Math.ceil(until.getTime() / 1000));
    expect(standIn.of('POST', '/v1/subscriptions').at(-1)).toMatchObject({
      idempotencyKey: `joy-subscription-${gil.userId}-1-until-${trialEnd}`,
      form: { trial_end: trialEnd, 'trial_settings[end_behavior][missing_payment_method]': 'cancel', customer: expect.stringMatching(/^cus_\d+$/) },
    });
    // A reload hands back the same checkout.
    expect((await as(gil.cookie).post('/api/create-subscription')).body).toEqual(res.body);
    expect(standIn.subscriptions.size).toBe(1);

    // Stripe's webhook for the trial before the card is given makes nothing of it: nobody has paid.
    const before = await head();
    expect((await deliver(webhook('customer.subscription.created', standIn.subscriptions.get(id)!))).status).toBe(200);
    expect(await head()).toBe(before);
    expect(await gil.status()).toMatchObject({ isPremium: true, granted: true });

    // The card given, Stripe says so: Premium goes on, paid from the grant's end.
    expect((await deliver(webhook('customer.subscription.updated', standIn.cardGiven(id)))).status).toBe(200);
    await settled();
    expect(await gil.status()).toEqual({ isPremium: true, status: 'active', currentPeriodEnd: new Date(Number(trialEnd) * 1000).toISOString(), cancelAtPeriodEnd: false });
    expect((await as(gil.cookie).post('/api/create-subscription')).body).toEqual({});
    expect(standIn.subscriptions.size).toBe(1);
  });

  it('cancels at Stripe a checkout opened before the grant, so that only the one following on from the grant can be paid', async () => {
    const hal = await granted('hal.opened-before@example.com', new Date(Date.now() + 20 * 86_400_000));
    const first = (await as(hal.cookie).post('/api/create-subscription')).body.clientSecret as string;
    const firstId = /^pi_(sub_\d+)_secret/.exec(first)![1];
    await hal.grant();
    const second = (await as(hal.cookie).post('/api/create-subscription')).body.clientSecret as string;
    expect(second).toMatch(/^seti_sub_\d+_secret_x$/);
    expect(standIn.subscriptions.get(firstId)!.status).toBe('canceled');
    // Deleting the account cancels the trial too: nothing is charged when the grant ends.
    const trialId = /^seti_(sub_\d+)_secret/.exec(second)![1];
    expect((await as(hal.cookie).delete('/api/account').send({ confirm: 'DELETE' })).status).toBe(204);
    expect(standIn.subscriptions.get(trialId)!.status).toBe('canceled');
  });

  it('opens no checkout during a grant that ends more than two years ahead (Stripe cannot wait that long for a first payment)', async () => {
    const ivy = await granted('ivy.long-grant@example.com', new Date(Date.now() + 800 * 86_400_000));
    await ivy.grant();
    const subscriptions = standIn.subscriptions.size;
    expect((await as(ivy.cookie).post('/api/create-subscription')).body).toEqual({});
    expect(standIn.subscriptions.size).toBe(subscriptions);
    expect(await ivy.status()).toMatchObject({ isPremium: true, granted: true });
  });
});
