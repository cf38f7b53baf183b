import { Logger } from '@nestjs/common';
import { type BillingClientConfig, PREMIUM_PRICE } from '@joy/domain';
import Stripe from 'stripe';
import type { BillingConfig } from '../config';
import { grantToFollow, hasLiveSubscription, ProviderSubscription, SubscriptionEndReason, SubscriptionState } from './billing.decider';
import type { BillingProvider, Checkout, CustomerPortal, ProviderWebhooks } from './billing.provider';

type StripeBilling = Extract<BillingConfig, { provider: 'stripe' }>;

/**
 * Stripe's statuses as Joy reads them. PAID is premium (past_due too: Stripe is still retrying, though the period
 * it moved to is not paid yet); LAPSED is not premium, yet may come back (the open invoice paid, or resumed); ENDED is
 * final. Anything else (incomplete) is a checkout not paid yet.
 */
const PAID = new Set(['active', 'trialing', 'past_due']);
const LAPSED = new Set(['unpaid', 'paused']);
const ENDED = new Set(['canceled', 'incomplete_expired']);

/** Stripe's reasons of a cancellation that Joy records; others (a dispute, none given) leave it to the decider. */
const END_REASONS = new Map<string, SubscriptionEndReason>([
  ['payment_failed', 'payment_failed'],
  ['cancellation_requested', 'canceled'],
]);

/** The webhook events that can change a subscription; every other type is acknowledged and ignored. */
export const HANDLED_WEBHOOK_EVENTS = new Set([
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.paid',
]);

const iso = (unixSeconds: number | null | undefined) => (unixSeconds ? new Date(unixSeconds * 1000).toISOString() : null);

/** What a checkout needs to see: the first invoice's payment, or (a trial) the SetupIntent that takes the card. */
const CHECKOUT_EXPAND = ['latest_invoice.confirmation_secret', 'pending_setup_intent'];

/** Stripe does not know the object (404 `resource_missing`): deleted, or never this account's. */
function isMissing(err: unknown): boolean {
  return err instanceof Stripe.errors.StripeInvalidRequestError && (err.code === 'resource_missing' || err.statusCode === 404);
}

/**
 * A trial (a checkout following on from an operator's grant) whose card has not been given yet: Stripe leaves the
 * SetupIntent on `pending_setup_intent` until it succeeds. Nobody has paid for it: it is an open checkout, not
 * Premium (an unexpanded id counts as pending too, never as paid).
 */
function pendingSetup(sub: Stripe.Subscription): Stripe.SetupIntent | string | null {
  if (sub.status !== 'trialing' || sub.default_payment_method) return null;
  const setup = sub.pending_setup_intent;
  return !setup || (typeof setup === 'object' && setup.status === 'succeeded') ? null : setup;
}

/**
 * The client secret of a subscription's first payment. The installed API version (stripe-node 23,
 * `2026-10-28`) puts it on `latest_invoice.confirmation_secret`; accounts on an API version before
 * 2025-03-31 had it on `latest_invoice.payment_intent.client_secret`, which is read as a fallback.
 */
export function clientSecretOf(subscription: Stripe.Subscription): string | null {
  const invoice = subscription.latest_invoice;
  if (!invoice || typeof invoice === 'string') return null;
  const legacy = (invoice as unknown as { payment_intent?: { client_secret?: string } | string | null }).payment_intent;
  return invoice.confirmation_secret?.client_secret ?? (legacy && typeof legacy === 'object' ? (legacy.client_secret ?? null) : null);
}

function statusOf(sub: Stripe.Subscription): ProviderSubscription['status'] {
  if (pendingSetup(sub)) return 'open';
  if (PAID.has(sub.status)) return 'active';
  if (LAPSED.has(sub.status)) return 'lapsed';
  return ENDED.has(sub.status) ? 'ended' : 'open';
}

/** Stripe's subscription, normalised; `userId` from the subscription's metadata (set when Joy created it). */
export function toProviderSubscription(sub: Stripe.Subscription, userId: string): ProviderSubscription {
  // Since API 2025-03-31 the period lives on the items; older versions had it on the subscription.
  const periodEnd = sub.items?.data?.[0]?.current_period_end ?? (sub as unknown as { current_period_end?: number }).current_period_end;
  const status = statusOf(sub);
  const endReason = status === 'ended' ? END_REASONS.get(sub.cancellation_details?.reason ?? '') : undefined;
  return {
    provider: 'stripe',
    userId,
    customerId: typeof sub.customer === 'string' ? sub.customer : sub.customer.id,
    subscriptionId: sub.id,
    status,
    currentPeriodEnd: iso(periodEnd),
    cancelAtPeriodEnd: sub.cancel_at_period_end || sub.cancel_at !== null,
    endedAt: iso(sub.ended_at),
    ...(sub.status === 'past_due' ? { paymentDue: true } : {}),
    ...(status === 'lapsed' ? { lapseReason: sub.status as 'unpaid' | 'paused' } : {}),
    ...(endReason ? { endReason } : {}),
  };
}

/** The Stripe adapter: customers, subscriptions and prices through `stripe`, webhooks verified with its secret. */
export class StripeBillingProvider implements BillingProvider {
  readonly name = 'stripe' as const;
  private readonly logger = new Logger('Stripe');
  private price: Promise<string> | null = null;
  readonly stripe: Stripe;

  constructor(private readonly config: StripeBilling) {
    this.stripe = new Stripe(config.secretKey, {
      maxNetworkRetries: 2, // the client retries with the same idempotency key
      timeout: 20_000,
      telemetry: false,
      appInfo: { name: 'Joy' },
      ...config.api,
    });
  }

  readonly webhooks: ProviderWebhooks = {
    verify: (rawBody, signature) => {
      const event = this.verifyWebhook(rawBody, signature);
      return { id: event.id, subscriptionId: this.subscriptionIdOf(event) };
    },
    current: (subscriptionId) => this.current(subscriptionId),
  };

  readonly customerPortal: CustomerPortal = {
    open: async (customer, returnUrl) => (await this.stripe.billingPortal.sessions.create({ customer, return_url: returnUrl })).url,
  };

  clientConfig(): BillingClientConfig {
    return { provider: 'stripe', publishableKey: this.config.publishableKey };
  }

  /**
   * During an operator's grant the subscription starts with a trial until the grant's end: the card is taken now
   * (a SetupIntent), the first payment on that day, so no day is paid for twice; a trial left without a card is
   * cancelled by Stripe at its end (`missing_payment_method: cancel`), never charged.
   */
  async checkout(userId: string, state: SubscriptionState): Promise<Checkout> {
    const grantEnd = grantToFollow(state, new Date());
    // Stripe counts in seconds: rounded up, so that no part of the grant is paid for.
    const trialEnd = grantEnd ? Math.ceil(grantEnd.getTime() / 1000) : null;
    if (state.pending?.provider === 'stripe') {
      // Reuse the open checkout while Stripe still waits for its payment (a reload of the page)...
      const open = await this.retrieveOrNull(state.pending.subscriptionId, CHECKOUT_EXPAND);
      const reusable = open ? this.opened(open, userId) : null;
      if (open && reusable) {
        if (reusable.kind === 'paid' || (open.trial_end ?? null) === trialEnd) return reusable;
        // ...unless it starts otherwise (opened before the grant, or during one that has ended): cancelled first, so
        // that it cannot be paid beside the new one.
        await this.cancelIfLive(open.id);
      }
    }
    const customerId =
      state.customerIds?.stripe ??
      (await this.stripe.customers.create({ metadata: { userId } }, { idempotencyKey: `joy-customer-${userId}` })).id;
    const attempt = state.attempts + 1;
    const created = await this.stripe.subscriptions.create(
      {
        customer: customerId,
        items: [{ price: await this.priceId() }],
        payment_behavior: 'default_incomplete',
        payment_settings: { save_default_payment_method: 'on_subscription' },
        metadata: { userId },
        ...(trialEnd ? { trial_end: trialEnd, trial_settings: { end_behavior: { missing_payment_method: 'cancel' as const } } } : {}),
        expand: CHECKOUT_EXPAND,
      },
      // The trial's end is part of the request, so of its key: a retry once the grant is over is a request of its own.
      { idempotencyKey: `joy-subscription-${userId}-${attempt}${trialEnd ? `-until-${trialEnd}` : ''}` },
    );
    const opened = this.opened(created, userId);
    if (!opened) throw new Error(`Stripe subscription ${created.id} has status ${created.status} and no client secret`);
    return opened;
  }

  private opened(sub: Stripe.Subscription, userId: string): Checkout | null {
    const customerId = typeof sub.customer === 'string' ? sub.customer : sub.customer.id;
    const setup = pendingSetup(sub);
    if (setup) return typeof setup === 'object' && setup.client_secret ? { kind: 'open', customerId, subscriptionId: sub.id, clientSecret: setup.client_secret } : null;
    if (PAID.has(sub.status)) return { kind: 'paid', subscription: toProviderSubscription(sub, userId) };
    const clientSecret = sub.status === 'incomplete' ? clientSecretOf(sub) : null;
    if (!clientSecret) return null;
    return { kind: 'open', customerId, subscriptionId: sub.id, clientSecret };
  }

  /** `cancel_at_period_end=true`; null for a subscription that is not Stripe's (a grant, the sandbox's): recorded alone. */
  cancelAtPeriodEnd(userId: string, state: SubscriptionState): Promise<ProviderSubscription | null> {
    return this.changeCancellation(userId, state, true);
  }

  /** Takes back the cancellation: `cancel_at_period_end=false`, as Stripe's own portal does. */
  resume(userId: string, state: SubscriptionState): Promise<ProviderSubscription | null> {
    return this.changeCancellation(userId, state, false);
  }

  private async changeCancellation(userId: string, state: SubscriptionState, cancel: boolean): Promise<ProviderSubscription | null> {
    // Stripe has never heard of a grant, nor of a sandbox subscription left from before the install moved to Stripe.
    if (state.provider !== 'stripe' || !state.subscriptionId) return null;
    const id = state.subscriptionId;
    try {
      const key = `joy-${cancel ? 'cancel' : 'resume'}-${id}${changeSuffix(state)}`;
      return toProviderSubscription(await this.stripe.subscriptions.update(id, { cancel_at_period_end: cancel }, { idempotencyKey: key }), userId);
    } catch (err) {
      // Stripe ended it already and its webhook has not been handled yet: that end is the answer, and is recorded.
      const ended = err instanceof Stripe.errors.StripeInvalidRequestError ? await this.endedAtStripe(id, userId, state) : null;
      if (!ended) throw err;
      return ended;
    }
  }

  /** The subscription as ended, when Stripe has ended it or does not know it (any more); null while it is live there. */
  private async endedAtStripe(id: string, userId: string, state: SubscriptionState): Promise<ProviderSubscription | null> {
    const sub = await this.retrieveOrNull(id);
    if (sub) return ENDED.has(sub.status) ? toProviderSubscription(sub, userId) : null;
    const customerId = state.customerIds?.stripe ?? state.customerId ?? '';
    return { provider: 'stripe', userId, customerId, subscriptionId: id, status: 'ended', currentPeriodEnd: state.currentPeriodEnd, cancelAtPeriodEnd: false, endedAt: null };
  }

  /**
   * Account deletion: cancels at once (no proration, no further invoice) the paid subscription and a checkout still
   * open, Stripe's own only: a grant or a sandbox subscription ends by the record alone (`EndNow`).
   */
  async cancelNow(_userId: string, state: SubscriptionState): Promise<void> {
    const paid = hasLiveSubscription(state) && state.provider === 'stripe' && state.subscriptionId ? state.subscriptionId : null;
    const open = state.pending?.provider === 'stripe' && state.pending.subscriptionId !== paid ? state.pending.subscriptionId : null;
    for (const id of [paid, open]) if (id) await this.cancelIfLive(id);
  }

  /**
   * Cancels now, unless Stripe has ended it already or does not know it: its `deleted` webhook may not have been
   * handled yet (delayed, or the endpoint failing), and cancelling it again would be refused. Either way nothing of it
   * can be charged any more. A refusal while it is still live at Stripe is not taken for done.
   */
  private async cancelIfLive(id: string): Promise<void> {
    const sub = await this.retrieveOrNull(id);
    if (!sub || ENDED.has(sub.status)) return;
    try {
      await this.stripe.subscriptions.cancel(id, {}, { idempotencyKey: `joy-cancel-now-${id}` });
    } catch (err) {
      if (!(err instanceof Stripe.errors.StripeInvalidRequestError)) throw err;
      const after = await this.retrieveOrNull(id); // ended in between (expired unpaid, or canceled)
      if (after && !ENDED.has(after.status)) throw err;
    }
  }

  /** Stripe's subscription; null when Stripe does not know it (404), any other failure thrown. */
  private async retrieveOrNull(id: string, expand?: string[]): Promise<Stripe.Subscription | null> {
    try {
      return await this.stripe.subscriptions.retrieve(id, expand ? { expand } : {});
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  /** Verifies a webhook's signature against the raw body; throws Stripe's signature error when it is wrong. */
  verifyWebhook(rawBody: Buffer, signature: string): Stripe.Event {
    return this.stripe.webhooks.constructEvent(rawBody, signature, this.config.webhookSecret);
  }

  /** The subscription an event is about, or null when the event does not concern one. */
  subscriptionIdOf(event: Stripe.Event): string | null {
    if (!HANDLED_WEBHOOK_EVENTS.has(event.type)) return null;
    const object = event.data.object as { id?: string; object?: string };
    if (object.object === 'subscription') return object.id ?? null;
    const invoice = object as Stripe.Invoice;
    const fromParent = invoice.parent?.subscription_details?.subscription;
    const legacy = (invoice as unknown as { subscription?: string | { id: string } | null }).subscription;
    const sub = fromParent ?? legacy;
    return sub ? (typeof sub === 'string' ? sub : sub.id) : null;
  }

  /**
   * The subscription's CURRENT state at Stripe (the source of truth), with its user; null if not Joy's, or if Stripe
   * does not know it (test data deleted, say): Stripe would deliver it again for days, and nothing would change.
   * Any other failure (network, Stripe's 5xx) is thrown: the webhook answers 500 and Stripe delivers it again.
   */
  async current(subscriptionId: string): Promise<ProviderSubscription | null> {
    const sub = await this.retrieveOrNull(subscriptionId, ['pending_setup_intent']);
    if (!sub) {
      this.logger.warn(`Subscription ${subscriptionId} is unknown to Stripe: ignored`);
      return null;
    }
    let userId: string | undefined = sub.metadata?.userId;
    if (!userId) {
      const customer = typeof sub.customer === 'string' ? await this.customerOrNull(sub.customer) : sub.customer;
      userId = !customer || customer.deleted ? undefined : customer.metadata?.userId;
    }
    if (!userId) {
      this.logger.warn(`Subscription ${subscriptionId} has no Joy user in its or its customer's metadata: ignored`);
      return null;
    }
    return toProviderSubscription(sub, userId);
  }

  private async customerOrNull(id: string): Promise<Stripe.Customer | Stripe.DeletedCustomer | null> {
    try {
      return await this.stripe.customers.retrieve(id);
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  /** STRIPE_PRICE_ID, else the active price with lookup key `joy_premium_monthly`, created ($4.99/month) if missing. */
  private priceId(): Promise<string> {
    if (this.config.priceId) return Promise.resolve(this.config.priceId);
    this.price ??= (async () => {
      const found = await this.stripe.prices.list({ lookup_keys: [PREMIUM_PRICE.lookupKey], active: true, limit: 1 });
      if (found.data[0]) return found.data[0].id;
      const created = await this.stripe.prices.create(
        {
          currency: PREMIUM_PRICE.currency,
          unit_amount: PREMIUM_PRICE.amountCents,
          recurring: { interval: PREMIUM_PRICE.interval },
          lookup_key: PREMIUM_PRICE.lookupKey,
          product_data: { name: 'Joy Premium' },
        },
        { idempotencyKey: `joy-price-${PREMIUM_PRICE.lookupKey}` },
      );
      return created.id;
    })().catch((err) => {
      this.price = null; // try again on the next checkout
      throw err;
    });
    return this.price;
  }
}

/**
 * Cancel, resume and cancel again within Stripe's 24 hours of idempotency: each change needs a key of its own,
 * or Stripe would answer the first cancel's saved result without cancelling again. The first keeps the plain key.
 */
function changeSuffix(state: SubscriptionState): string {
  return state.cancellationChanges ? `-${state.cancellationChanges}` : '';
}
