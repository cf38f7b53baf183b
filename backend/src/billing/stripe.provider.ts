import { Logger } from '@nestjs/common';
import { type BillingClientConfig, PREMIUM_PRICE } from '@joy/domain';
import Stripe from 'stripe';
import type { BillingConfig } from '../config';
import { hasLiveSubscription, ProviderSubscription, SubscriptionEndReason, SubscriptionState } from './billing.decider';
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

/** Stripe's subscription, normalised; `userId` from the subscription's metadata (set when Joy created it). */
export function toProviderSubscription(sub: Stripe.Subscription, userId: string): ProviderSubscription {
  // Since API 2025-03-31 the period lives on the items; older versions had it on the subscription.
  const periodEnd = sub.items?.data?.[0]?.current_period_end ?? (sub as unknown as { current_period_end?: number }).current_period_end;
  const status = PAID.has(sub.status) ? 'active' : LAPSED.has(sub.status) ? 'lapsed' : ENDED.has(sub.status) ? 'ended' : 'open';
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

  async checkout(userId: string, state: SubscriptionState): Promise<Checkout> {
    if (state.pending?.provider === 'stripe') {
      // Reuse the open checkout while Stripe still waits for its payment (a reload of the page).
      const open = await this.stripe.subscriptions.retrieve(state.pending.subscriptionId, { expand: ['latest_invoice.confirmation_secret'] });
      const reusable = this.opened(open, userId);
      if (reusable) return reusable;
    }
    const customerId =
      state.customerId ??
      (await this.stripe.customers.create({ metadata: { userId } }, { idempotencyKey: `joy-customer-${userId}` })).id;
    const attempt = state.attempts + 1;
    const created = await this.stripe.subscriptions.create(
      {
        customer: customerId,
        items: [{ price: await this.priceId() }],
        payment_behavior: 'default_incomplete',
        payment_settings: { save_default_payment_method: 'on_subscription' },
        metadata: { userId },
        expand: ['latest_invoice.confirmation_secret'],
      },
      { idempotencyKey: `joy-subscription-${userId}-${attempt}` },
    );
    const opened = this.opened(created, userId);
    if (!opened) throw new Error(`Stripe subscription ${created.id} has status ${created.status} and no client secret`);
    return opened;
  }

  private opened(sub: Stripe.Subscription, userId: string): Checkout | null {
    if (PAID.has(sub.status)) return { kind: 'paid', subscription: toProviderSubscription(sub, userId) };
    const clientSecret = sub.status === 'incomplete' ? clientSecretOf(sub) : null;
    if (!clientSecret) return null;
    const customerId = typeof sub.customer === 'string' ? sub.customer : sub.customer.id;
    return { kind: 'open', customerId, subscriptionId: sub.id, clientSecret };
  }

  async cancelAtPeriodEnd(userId: string, state: SubscriptionState): Promise<ProviderSubscription> {
    const updated = await this.stripe.subscriptions.update(
      state.subscriptionId!,
      { cancel_at_period_end: true },
      { idempotencyKey: `joy-cancel-${state.subscriptionId}${changeSuffix(state)}` },
    );
    return toProviderSubscription(updated, userId);
  }

  /** Takes back the cancellation: `cancel_at_period_end=false`, as Stripe's own portal does. */
  async resume(userId: string, state: SubscriptionState): Promise<ProviderSubscription> {
    const updated = await this.stripe.subscriptions.update(
      state.subscriptionId!,
      { cancel_at_period_end: false },
      { idempotencyKey: `joy-resume-${state.subscriptionId}${changeSuffix(state)}` },
    );
    return toProviderSubscription(updated, userId);
  }

  /** Account deletion: cancels at once (no proration, no further invoice); Stripe answers it `canceled`. */
  async cancelNow(_userId: string, state: SubscriptionState): Promise<void> {
    const paid = hasLiveSubscription(state) && state.subscriptionId ? state.subscriptionId : null;
    if (paid) await this.stripe.subscriptions.cancel(paid, {}, { idempotencyKey: `joy-cancel-now-${paid}` });
    const open = state.pending?.provider === 'stripe' && state.pending.subscriptionId !== paid ? state.pending.subscriptionId : null;
    if (!open) return;
    try {
      await this.stripe.subscriptions.cancel(open, {}, { idempotencyKey: `joy-cancel-now-${open}` });
    } catch (err) {
      // Already gone at Stripe (expired unpaid, or canceled): nothing of it can be charged.
      if (!(err instanceof Stripe.errors.StripeInvalidRequestError)) throw err;
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

  /** The subscription's CURRENT state at Stripe (the source of truth), with its user; null if not Joy's. */
  async current(subscriptionId: string): Promise<ProviderSubscription | null> {
    const sub = await this.stripe.subscriptions.retrieve(subscriptionId);
    let userId: string | undefined = sub.metadata?.userId;
    if (!userId) {
      const customer = typeof sub.customer === 'string' ? await this.stripe.customers.retrieve(sub.customer) : sub.customer;
      userId = customer.deleted ? undefined : customer.metadata?.userId;
    }
    if (!userId) {
      this.logger.warn(`Subscription ${subscriptionId} has no Joy user in its or its customer's metadata: ignored`);
      return null;
    }
    return toProviderSubscription(sub, userId);
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
