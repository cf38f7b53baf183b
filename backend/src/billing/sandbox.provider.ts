import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { addOneMonth, BILLING_MESSAGES, grantToFollow, ProviderSubscription, SubscriptionState } from './billing.decider';
import { type BillingClientConfig, DomainError } from '@joy/domain';
import { type BillingProvider, type Checkout, StatelessBillingProvider, type TestCard, type TestCardPayments } from './billing.provider';

/** The sandbox's test cards (as Stripe's test mode): one succeeds, one is declined. */
export const SANDBOX_CARDS = { succeeds: '4242424242424242', declined: '4000000000000002' } as const;


function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/**
 * Checks a card as a card provider's test mode would: format first (number, expiry, security code), then the
 * outcome of the test card. Throws a DomainError (`billing.card_refused`) with the provider-style message.
 */
export function chargeTestCard(card: TestCard, now: Date): void {
  // The refusal names the field at fault, as every 400 does: the form marks it and takes the focus there.
  const refused = (field: 'cardNumber' | 'expiry' | 'cvc', message: string) => new DomainError('billing.card_refused', message, [{ field, message }]);
  const digits = card.number.replace(/[\s-]/g, '');
  if (!/^\d*$/.test(digits)) throw refused('cardNumber', BILLING_MESSAGES.invalidNumber);
  if (digits.length < 16) throw refused('cardNumber', BILLING_MESSAGES.incompleteNumber);
  if (digits.length > 19 || !luhnValid(digits)) throw refused('cardNumber', BILLING_MESSAGES.invalidNumber);
  if (card.expiry !== undefined) {
    const match = /^\s*(\d{2})\s*\/\s*(\d{2})\s*$/.exec(card.expiry);
    const month = match ? Number(match[1]) : 0;
    if (!match || month < 1 || month > 12) throw refused('expiry', BILLING_MESSAGES.incompleteExpiry);
    // Valid through the last moment of the expiry month.
    const endOfMonth = Date.UTC(2000 + Number(match[2]), month, 1);
    if (endOfMonth <= now.getTime()) throw refused('expiry', BILLING_MESSAGES.pastExpiry);
  }
  if (card.cvc !== undefined && !/^\d{3,4}$/.test(card.cvc.trim())) throw refused('cvc', BILLING_MESSAGES.incompleteCvc);
  if (digits === SANDBOX_CARDS.declined) throw refused('cardNumber', BILLING_MESSAGES.declined);
  if (digits !== SANDBOX_CARDS.succeeds) throw refused('cardNumber', BILLING_MESSAGES.notTestCard);
}

/**
 * The sandbox provider of the embedded default: checkouts are ids derived from the user and the attempt,
 * client secrets are an HMAC of the subscription id under the app's secret (so only this app issues them),
 * and paying is `confirm` with a test card. It has no renewals: a sandbox subscription ends when its month
 * is over (see SandboxExpiry).
 */
export class SandboxBillingProvider extends StatelessBillingProvider implements BillingProvider {
  readonly name = 'sandbox' as const;

  constructor(
    private readonly secret: string,
    private readonly clock: () => Date = () => new Date(),
  ) {
    super();
  }

  /** This adapter is its own test-card payment (see TestCardPayments). */
  readonly testCards: TestCardPayments = this;

  clientConfig(): BillingClientConfig {
    return { provider: 'sandbox' };
  }

  async checkout(userId: string, state: SubscriptionState): Promise<Checkout> {
    const customerId = state.customerId ?? `sandbox_cus_${this.userKey(userId)}`;
    if (state.pending?.provider === 'sandbox') {
      const { subscriptionId } = state.pending;
      return { kind: 'open', customerId, subscriptionId, clientSecret: this.clientSecretOf(subscriptionId) };
    }
    const subscriptionId = `sandbox_sub_${this.userKey(userId)}_${state.attempts + 1}`;
    return { kind: 'open', customerId, subscriptionId, clientSecret: this.clientSecretOf(subscriptionId) };
  }

  /**
   * Pays the open checkout that `clientSecret` belongs to with a test card; answers the subscription as
   * active for one month from now, or from the end of the operator's grant it follows on from (the days of the
   * grant are not paid for). A secret that is not the user's open checkout is refused.
   */
  confirm(userId: string, state: SubscriptionState, clientSecret: string, card: TestCard): ProviderSubscription {
    const pending = state.pending?.provider === 'sandbox' ? state.pending : null;
    if (!pending || !this.secretMatches(pending.subscriptionId, clientSecret)) throw new DomainError('billing.checkout_stale', BILLING_MESSAGES.staleCheckout);
    const now = this.clock();
    chargeTestCard(card, now);
    return {
      provider: 'sandbox',
      userId,
      customerId: pending.customerId,
      subscriptionId: pending.subscriptionId,
      status: 'active',
      currentPeriodEnd: addOneMonth(grantToFollow(state, now) ?? now).toISOString(),
      cancelAtPeriodEnd: false,
      endedAt: null,
    };
  }

  clientSecretOf(subscriptionId: string): string {
    const mac = createHmac('sha256', this.secret).update(`sandbox-checkout:${subscriptionId}`).digest('base64url').slice(0, 24);
    return `sandbox_${subscriptionId}_secret_${mac}`;
  }

  private secretMatches(subscriptionId: string, clientSecret: string): boolean {
    const expected = Buffer.from(this.clientSecretOf(subscriptionId));
    const given = Buffer.from(clientSecret);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  private userKey(userId: string): string {
    return createHash('sha256').update(userId).digest('hex').slice(0, 16);
  }
}
