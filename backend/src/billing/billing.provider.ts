import type { BillingClientConfig, BillingProviderName } from '@joy/domain';
import type { ProviderSubscription, SubscriptionState } from './billing.decider';

/**
 * The billing port: the payment provider's side of Joy Premium. Two adapters, chosen by configuration:
 * Stripe (`STRIPE_SECRET_KEY` set), the sandbox (`BILLING_SANDBOX=1`: a clearly labelled test mode; no money moves),
 * or none (payments not set up; Premium only by the operator's grant).
 * The adapters talk to the provider only; what the stream records is decided by `subscriptionDecider`.
 */
export interface BillingProvider {
  /** 'none': no payments are set up on this install (see UnconfiguredBillingProvider). */
  readonly name: BillingProviderName | 'none';
  /** What the browser needs to show the payment form (never a secret). */
  clientConfig(): BillingClientConfig;
  /**
   * Opens a checkout for a user without an active subscription, or hands back the one still open. Outbound
   * calls carry idempotency keys derived from the user and the attempt number, so a retried request
   * creates nothing twice. May find that the open checkout has been paid meanwhile (`paid`).
   */
  checkout(userId: string, state: SubscriptionState): Promise<Checkout>;
  /**
   * Asks the provider to end the subscription at the end of the paid period and answers the provider's
   * state afterwards; null when the provider keeps no state of its own (the sandbox), or the subscription is not
   * the provider's (the operator's grant, or a sandbox one on an install since moved to Stripe): then the
   * cancellation is recorded directly.
   */
  cancelAtPeriodEnd(userId: string, state: SubscriptionState): Promise<ProviderSubscription | null>;
  /**
   * Ends at the provider, now, the paid subscription and a checkout still open (account deletion: nothing more is
   * charged, and a payment being made cannot go through). The app records the end itself (`EndNow`). Never fails
   * for a subscription that is not the provider's, or that the provider has ended already: the deletion goes on.
   */
  cancelNow(userId: string, state: SubscriptionState): Promise<void>;
  /**
   * Takes back a cancellation at the period end (the subscription renews again) and answers the provider's
   * state afterwards; null as for `cancelAtPeriodEnd`.
   */
  resume(userId: string, state: SubscriptionState): Promise<ProviderSubscription | null>;
  /** Payment with test cards: the sandbox only (POST /api/billing/sandbox/confirm answers 404 without it). */
  readonly testCards?: TestCardPayments;
  /** Signed webhooks from the provider: Stripe only (POST /api/billing/webhook answers 404 without them). */
  readonly webhooks?: ProviderWebhooks;
  /** The provider's own pages for payment methods and invoices: Stripe's Customer Portal only. */
  readonly customerPortal?: CustomerPortal;
}

export interface CustomerPortal {
  /** A short-lived address of the customer's portal session, which comes back to `returnUrl`. */
  open(customerId: string, returnUrl: string): Promise<string>;
}

export interface TestCard {
  number: string;
  /** "MM / YY" or "MM/YY"; optional (the API accepts a number alone). */
  expiry?: string;
  cvc?: string;
}

export interface TestCardPayments {
  /** Charges the test card for the open checkout named by `clientSecret`; refuses with `billing.card_refused`. */
  confirm(userId: string, state: SubscriptionState, clientSecret: string, card: TestCard): ProviderSubscription;
  clientSecretOf(subscriptionId: string): string;
}

export interface ProviderWebhooks {
  /** Checks the signature against the raw body (throws when it is wrong): the event's id and its subscription, if any. */
  verify(rawBody: Buffer, signature: string): { id: string; subscriptionId: string | null };
  /**
   * The subscription's current state at the provider, with its user; null if it is not Joy's or the provider does not
   * know it (acknowledged: delivering it again would change nothing). Failing to reach the provider throws (500: retried).
   */
  current(subscriptionId: string): Promise<ProviderSubscription | null>;
}


export type Checkout =
  | { kind: 'open'; customerId: string; subscriptionId: string; clientSecret: string }
  | { kind: 'paid'; subscription: ProviderSubscription };

/** Nest injection token of the BillingProvider. */
export const BILLING_PROVIDER = 'BillingProvider';

/**
 * A provider that keeps no subscription state of its own (the sandbox, or none configured): cancelling, ending
 * and resuming are recorded by the app alone, so each answers null.
 */
export abstract class StatelessBillingProvider implements Pick<BillingProvider, 'cancelAtPeriodEnd' | 'cancelNow' | 'resume'> {
  async cancelAtPeriodEnd(): Promise<ProviderSubscription | null> {
    return null;
  }

  async cancelNow(): Promise<void> {}

  async resume(): Promise<ProviderSubscription | null> {
    return null;
  }
}
