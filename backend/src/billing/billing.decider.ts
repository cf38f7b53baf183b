import { type BillingProviderName, DomainError, isPremiumAt } from '@joy/domain';
import { Decider, DomainEvent } from '../event-store/decider';

/*
 * Joy Premium: one stream per user, `subscription-<userId>`.
 *
 * The payment provider (Stripe, or the sandbox) is the source of truth for a subscription's state. Every
 * provider signal (a webhook, the sandbox's confirmation, the answer to a cancel request) is turned into a
 * `SyncSubscription` command carrying the provider's CURRENT state of the subscription; the decider appends
 * only the transitions that state implies relative to what the stream already says. So a webhook delivered
 * twice changes nothing the second time, and a stale one (an `updated` arriving after `deleted`) changes
 * nothing at all: an ended subscription never comes back. A lapsed one (Stripe's `unpaid` or `paused`) does: it
 * is not premium, but the same subscription is premium again once Stripe reports it active (SubscriptionReactivated).
 */

export const BILLING_MESSAGES = {
  nothingToCancel: 'You have no active Joy Premium subscription to cancel.',
  nothingToResume: 'There is no cancelled Joy Premium subscription to resume: you have not subscribed, or its paid period has ended.',
  grantNotResumable: 'Joy Premium given by the person who runs this install ends on its date; subscribe to keep it after that.',
  declined: 'Your card was declined.',
  notTestCard: 'Your card was declined. Test mode accepts only the test cards.',
  incompleteNumber: 'Your card number is incomplete.',
  invalidNumber: 'Your card number is invalid.',
  incompleteExpiry: "Your card's expiration date is incomplete.",
  pastExpiry: "Your card's expiration year is in the past.",
  incompleteCvc: "Your card's security code is incomplete.",
  staleCheckout: 'This payment session is no longer valid. Please reload the page and try again.',
  notSetUp: 'Payments are not set up on this install. Ask the person who runs it about Joy Premium.',
  portalUnavailable: 'Payment methods and invoices are kept by Stripe, and this install does not take payments through Stripe.',
  nothingPaidYet: 'There are no payment methods or invoices yet: subscribe to Joy Premium first.',
  alreadyPremium: 'This person has Joy Premium already.',
} as const;

// ---- events -------------------------------------------------------------------------------------------

export type SubscriptionCheckoutStarted = DomainEvent<
  'SubscriptionCheckoutStarted',
  { userId: string; provider: BillingProviderName; customerId: string; subscriptionId: string; attempt: number; startedAt: string }
>;
export type SubscriptionActivated = DomainEvent<
  'SubscriptionActivated',
  { userId: string; provider: BillingProviderName; customerId: string; subscriptionId: string; currentPeriodEnd: string; activatedAt: string }
>;
export type SubscriptionRenewed = DomainEvent<'SubscriptionRenewed', { userId: string; subscriptionId: string; currentPeriodEnd: string }>;
export type SubscriptionCancellationScheduled = DomainEvent<
  'SubscriptionCancellationScheduled',
  { userId: string; subscriptionId: string; cancelAt: string; scheduledAt: string }
>;
/** The user took back a scheduled cancellation (possible in Stripe's customer portal or dashboard). */
export type SubscriptionCancellationWithdrawn = DomainEvent<
  'SubscriptionCancellationWithdrawn',
  { userId: string; subscriptionId: string; withdrawnAt: string }
>;
/**
 * Premium stopped but the subscription goes on at the provider: Stripe's `unpaid` (its retries failed and it stopped
 * trying; the invoice stays open) or `paused`. Not final: SubscriptionReactivated or SubscriptionEnded follows.
 */
export type SubscriptionLapseReason = 'unpaid' | 'paused';
export type SubscriptionLapsed = DomainEvent<
  'SubscriptionLapsed',
  { userId: string; subscriptionId: string; lapsedAt: string; reason: SubscriptionLapseReason }
>;
/** A lapsed subscription is active again (the open invoice paid, or resumed): premium on the same subscription. */
export type SubscriptionReactivated = DomainEvent<
  'SubscriptionReactivated',
  { userId: string; subscriptionId: string; currentPeriodEnd: string; reactivatedAt: string }
>;
export type SubscriptionEndReason = 'canceled' | 'period_ended' | 'payment_failed';
export type SubscriptionEnded = DomainEvent<
  'SubscriptionEnded',
  { userId: string; subscriptionId: string; endedAt: string; reason: SubscriptionEndReason }
>;

export type SubscriptionEvent =
  | SubscriptionCheckoutStarted
  | SubscriptionActivated
  | SubscriptionRenewed
  | SubscriptionCancellationScheduled
  | SubscriptionCancellationWithdrawn
  | SubscriptionLapsed
  | SubscriptionReactivated
  | SubscriptionEnded;

export const SUBSCRIPTION_EVENT_TYPES = [
  'SubscriptionCheckoutStarted',
  'SubscriptionActivated',
  'SubscriptionRenewed',
  'SubscriptionCancellationScheduled',
  'SubscriptionCancellationWithdrawn',
  'SubscriptionLapsed',
  'SubscriptionReactivated',
  'SubscriptionEnded',
] as const satisfies readonly SubscriptionEvent['type'][];

export const subscriptionStream = (userId: string) => `subscription-${userId}`;

// ---- state --------------------------------------------------------------------------------------------

export interface SubscriptionState {
  /** The plan's lifecycle: none (never premium), active, canceling (ends at currentPeriodEnd), lapsed (not premium, not ended), ended. */
  status: 'none' | 'active' | 'canceling' | 'lapsed' | 'ended';
  /** Why the current subscription lapsed, while it is lapsed. */
  lapsedReason?: SubscriptionLapseReason | null;
  provider: BillingProviderName | null;
  customerId: string | null;
  /** The subscription the status is about (the paid one), or null. */
  subscriptionId: string | null;
  currentPeriodEnd: string | null;
  /** An open checkout that has not been paid yet (a new attempt after an ended subscription, too). */
  pending: { provider: BillingProviderName; customerId: string; subscriptionId: string } | null;
  /** Checkouts started so far: the next attempt's number (part of its idempotency key). */
  attempts: number;
  /** Subscriptions that ended: terminal, a late signal about them changes nothing. */
  endedSubscriptionIds: readonly string[];
  /** Cancellations scheduled or withdrawn so far (part of the provider calls' idempotency keys). */
  cancellationChanges?: number;
  /**
   * The customer at each payment provider. `customerId` is whichever came last, and can be the grant's 'operator' or
   * a sandbox customer on an install since moved to Stripe: Stripe must only ever be handed its own.
   */
  customerIds?: { stripe?: string; sandbox?: string };
}

export const initialSubscriptionState: SubscriptionState = {
  status: 'none',
  provider: null,
  customerId: null,
  subscriptionId: null,
  currentPeriodEnd: null,
  pending: null,
  attempts: 0,
  endedSubscriptionIds: [],
};

// ---- commands -----------------------------------------------------------------------------------------

/** The provider's current view of one subscription. */
export interface ProviderSubscription {
  provider: BillingProviderName;
  userId: string;
  customerId: string;
  subscriptionId: string;
  /**
   * Normalised: open (not paid yet), active (premium; Stripe's active/trialing/past_due), lapsed (Stripe's unpaid or
   * paused: not premium, may come back), ended.
   */
  status: 'open' | 'active' | 'lapsed' | 'ended';
  /** Stripe's past_due: premium while Stripe retries, but the period it moved to is not paid, so it is no renewal. */
  paymentDue?: boolean;
  /** When lapsed: why. */
  lapseReason?: SubscriptionLapseReason;
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
  /** When the subscription is ended: since when, and why. */
  endedAt: string | null;
  endReason?: SubscriptionEndReason;
}

export type SubscriptionCommand =
  | { type: 'StartCheckout'; userId: string; provider: BillingProviderName; customerId: string; subscriptionId: string; at: Date }
  | { type: 'SyncSubscription'; subscription: ProviderSubscription; at: Date }
  | { type: 'ScheduleCancellation'; userId: string; at: Date }
  /** Takes back a scheduled cancellation before the paid period ends: the plan renews again. */
  | { type: 'WithdrawCancellation'; userId: string; at: Date }
  | { type: 'EndIfDue'; userId: string; at: Date }
  /** The operator gives Joy Premium until `until` (no payment; it ends then, as a scheduled cancellation would). */
  | { type: 'GrantPremium'; userId: string; until: Date; at: Date }
  /** Account deletion: premium ends now, not at the period end (the sandbox; Stripe answers through SyncSubscription). */
  | { type: 'EndNow'; userId: string; at: Date };

function evolve(state: SubscriptionState, event: SubscriptionEvent): SubscriptionState {
  switch (event.type) {
    case 'SubscriptionCheckoutStarted': {
      const { provider, customerId, subscriptionId } = event.data;
      return {
        ...state,
        customerId,
        customerIds: withCustomer(state, provider, customerId),
        pending: { provider, customerId, subscriptionId },
        attempts: state.attempts + 1,
      };
    }
    case 'SubscriptionActivated': {
      const d = event.data;
      return {
        ...state,
        status: 'active',
        provider: d.provider,
        customerId: d.customerId,
        customerIds: withCustomer(state, d.provider, d.customerId),
        subscriptionId: d.subscriptionId,
        currentPeriodEnd: d.currentPeriodEnd,
        lapsedReason: null,
        pending: state.pending?.subscriptionId === d.subscriptionId ? null : state.pending,
      };
    }
    case 'SubscriptionLapsed':
      return event.data.subscriptionId === state.subscriptionId ? { ...state, status: 'lapsed', lapsedReason: event.data.reason } : state;
    case 'SubscriptionReactivated':
      return event.data.subscriptionId === state.subscriptionId
        ? { ...state, status: 'active', currentPeriodEnd: event.data.currentPeriodEnd, lapsedReason: null }
        : state;
    case 'SubscriptionRenewed':
      return event.data.subscriptionId === state.subscriptionId ? { ...state, currentPeriodEnd: event.data.currentPeriodEnd } : state;
    case 'SubscriptionCancellationScheduled':
      return event.data.subscriptionId === state.subscriptionId ? { ...state, status: 'canceling', cancellationChanges: (state.cancellationChanges ?? 0) + 1 } : state;
    case 'SubscriptionCancellationWithdrawn':
      return event.data.subscriptionId === state.subscriptionId ? { ...state, status: 'active', cancellationChanges: (state.cancellationChanges ?? 0) + 1 } : state;
    case 'SubscriptionEnded': {
      const id = event.data.subscriptionId;
      const ended = [...state.endedSubscriptionIds, id];
      if (id === state.subscriptionId) return { ...state, status: 'ended', lapsedReason: null, endedSubscriptionIds: ended };
      return { ...state, pending: state.pending?.subscriptionId === id ? null : state.pending, endedSubscriptionIds: ended };
    }
    default:
      return state;
  }
}

function withCustomer(state: SubscriptionState, provider: BillingProviderName, customerId: string): SubscriptionState['customerIds'] {
  return provider === 'operator' ? state.customerIds : { ...state.customerIds, [provider]: customerId };
}

/**
 * How far ahead a checkout may follow on from a grant: Stripe lets a first payment wait at most two years after the
 * subscription starts (its `trial_end` limit). The sandbox keeps the same rule, so both installs behave alike.
 */
export const GRANT_FOLLOW_ON_MS = 730 * 86_400_000;

/**
 * The end of an operator's grant running at `at`, when a paid subscription may be bought now to follow on from it
 * (its first paid period starting at the grant's end, so no day is paid for twice); null otherwise.
 */
export function grantToFollow(state: SubscriptionState, at: Date): Date | null {
  if (state.provider !== 'operator' || !state.currentPeriodEnd || !isPremiumAt(state, at)) return null;
  const end = new Date(state.currentPeriodEnd);
  return end.getTime() - at.getTime() <= GRANT_FOLLOW_ON_MS ? end : null;
}

/**
 * No checkout opens: Premium is paid for already (or granted for longer than a checkout can follow on from), or a
 * lapsed subscription is there to be paid or resumed rather than bought twice.
 */
export function checkoutClosed(state: SubscriptionState, at: Date): boolean {
  return (isPremiumAt(state, at) && !grantToFollow(state, at)) || state.status === 'lapsed';
}

/** A subscription that was paid and has not ended (active, canceling or lapsed): the provider's signals about it count. */
export function hasLiveSubscription(state: SubscriptionState): boolean {
  return state.status === 'active' || state.status === 'canceling' || state.status === 'lapsed';
}

/** The transitions from `state` to the provider's current view of the subscription. */
function sync(state: SubscriptionState, sub: ProviderSubscription, at: Date): SubscriptionEvent[] {
  const { userId, subscriptionId } = sub;
  if (state.endedSubscriptionIds.includes(subscriptionId)) return []; // ended is final
  const isCurrent = state.subscriptionId === subscriptionId && hasLiveSubscription(state);
  const now = at.toISOString();

  if (sub.status === 'ended') {
    // An open checkout that expired unpaid is forgotten by the next checkout; only a paid one ends.
    if (!isCurrent) return [];
    const reason = sub.endReason ?? (state.status === 'canceling' || sub.cancelAtPeriodEnd ? 'canceled' : state.lapsedReason === 'unpaid' ? 'payment_failed' : 'period_ended');
    return [{ type: 'SubscriptionEnded', data: { userId, subscriptionId, endedAt: sub.endedAt ?? now, reason } }];
  }
  if (sub.status === 'lapsed') {
    // Premium stops, the subscription stays: paid or resumed later, it is premium again.
    const reason = sub.lapseReason ?? 'unpaid';
    if (!isCurrent || (state.status === 'lapsed' && state.lapsedReason === reason)) return [];
    return [{ type: 'SubscriptionLapsed', data: { userId, subscriptionId, lapsedAt: now, reason } }];
  }
  if (sub.status === 'open' || !sub.currentPeriodEnd) return [];

  const events: SubscriptionEvent[] = [];
  let status = state.status;
  // A period Stripe moved to but could not charge yet (past_due) is not paid: it renews nothing, it stays as it was.
  const paidUntil = sub.paymentDue ? (state.currentPeriodEnd ?? sub.currentPeriodEnd) : sub.currentPeriodEnd;
  if (!isCurrent) {
    events.push({
      type: 'SubscriptionActivated',
      data: { userId, provider: sub.provider, customerId: sub.customerId, subscriptionId, currentPeriodEnd: sub.currentPeriodEnd, activatedAt: now },
    });
    status = 'active';
  } else if (state.status === 'lapsed') {
    events.push({ type: 'SubscriptionReactivated', data: { userId, subscriptionId, currentPeriodEnd: paidUntil, reactivatedAt: now } });
    status = 'active';
  } else if (Date.parse(paidUntil) > Date.parse(state.currentPeriodEnd ?? '')) {
    events.push({ type: 'SubscriptionRenewed', data: { userId, subscriptionId, currentPeriodEnd: paidUntil } });
  }
  if (sub.cancelAtPeriodEnd && status !== 'canceling') {
    events.push({ type: 'SubscriptionCancellationScheduled', data: { userId, subscriptionId, cancelAt: sub.currentPeriodEnd, scheduledAt: now } });
  } else if (!sub.cancelAtPeriodEnd && status === 'canceling') {
    events.push({ type: 'SubscriptionCancellationWithdrawn', data: { userId, subscriptionId, withdrawnAt: now } });
  }
  return events;
}

export const subscriptionDecider: Decider<SubscriptionState, SubscriptionCommand, SubscriptionEvent> = {
  initialState: initialSubscriptionState,
  evolve,
  decide(command, state) {
    switch (command.type) {
      case 'StartCheckout': {
        if (checkoutClosed(state, command.at)) return [];
        if (state.pending?.subscriptionId === command.subscriptionId) return [];
        const { userId, provider, customerId, subscriptionId, at } = command;
        return [
          {
            type: 'SubscriptionCheckoutStarted',
            data: { userId, provider, customerId, subscriptionId, attempt: state.attempts + 1, startedAt: at.toISOString() },
          },
        ];
      }
      case 'SyncSubscription':
        return sync(state, command.subscription, command.at);
      case 'ScheduleCancellation': {
        if (state.status === 'canceling' && isPremiumAt(state, command.at)) return []; // already scheduled: idempotent
        if (state.status !== 'active' || !state.subscriptionId || !state.currentPeriodEnd) {
          throw new DomainError('billing.nothing_to_cancel', BILLING_MESSAGES.nothingToCancel);
        }
        return [
          {
            type: 'SubscriptionCancellationScheduled',
            data: { userId: command.userId, subscriptionId: state.subscriptionId, cancelAt: state.currentPeriodEnd, scheduledAt: command.at.toISOString() },
          },
        ];
      }
      case 'WithdrawCancellation': {
        if (state.status === 'active' && isPremiumAt(state, command.at)) return []; // already renewing: idempotent
        if (state.status !== 'canceling' || !state.subscriptionId || !isPremiumAt(state, command.at)) {
          throw new DomainError('billing.nothing_to_resume', BILLING_MESSAGES.nothingToResume);
        }
        if (state.provider === 'operator') throw new DomainError('billing.nothing_to_resume', BILLING_MESSAGES.grantNotResumable);
        const { userId, at } = command;
        return [{ type: 'SubscriptionCancellationWithdrawn', data: { userId, subscriptionId: state.subscriptionId, withdrawnAt: at.toISOString() } }];
      }
      case 'GrantPremium': {
        if (isPremiumAt(state, command.at)) throw new DomainError('billing.already_premium', BILLING_MESSAGES.alreadyPremium);
        if (command.until.getTime() <= command.at.getTime()) throw new DomainError('billing.grant_invalid', 'A grant must end in the future.');
        const { userId, at, until } = command;
        const subscriptionId = `operator-grant-${at.getTime()}`;
        return [
          {
            type: 'SubscriptionActivated',
            data: { userId, provider: 'operator', customerId: 'operator', subscriptionId, currentPeriodEnd: until.toISOString(), activatedAt: at.toISOString() },
          },
          { type: 'SubscriptionCancellationScheduled', data: { userId, subscriptionId, cancelAt: until.toISOString(), scheduledAt: at.toISOString() } },
        ];
      }
      case 'EndNow': {
        // The paid subscription, and a checkout still open: its payment, finishing later, must not start Premium
        // again (an ended subscription stays ended: `sync`).
        const paid = hasLiveSubscription(state) && state.subscriptionId ? [state.subscriptionId] : [];
        const open = state.pending && !paid.includes(state.pending.subscriptionId) ? [state.pending.subscriptionId] : [];
        const endedAt = command.at.toISOString();
        return [...paid, ...open].map((subscriptionId) => ({ type: 'SubscriptionEnded', data: { userId: command.userId, subscriptionId, endedAt, reason: 'canceled' } }));
      }
      case 'EndIfDue': {
        // The sandbox has no renewals: its subscriptions end when the paid period is over.
        if (state.provider !== 'sandbox' || !state.subscriptionId || !state.currentPeriodEnd) return [];
        if (state.status !== 'active' && state.status !== 'canceling') return [];
        if (Date.parse(state.currentPeriodEnd) > command.at.getTime()) return [];
        return [
          {
            type: 'SubscriptionEnded',
            data: {
              userId: command.userId,
              subscriptionId: state.subscriptionId,
              endedAt: state.currentPeriodEnd,
              reason: state.status === 'canceling' ? 'canceled' : 'period_ended',
            },
          },
        ];
      }
    }
  },
};

/**
 * One calendar month after `from`, in UTC, clamped to the last day of a shorter month (31 Jan → 28/29 Feb,
 * 31 Mar → 30 Apr), as card subscriptions bill.
 */
export function addOneMonth(from: Date): Date {
  const next = new Date(from.getTime());
  const day = next.getUTCDate();
  next.setUTCDate(1);
  next.setUTCMonth(next.getUTCMonth() + 1);
  const lastDay = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 0)).getUTCDate();
  next.setUTCDate(Math.min(day, lastDay));
  return next;
}
