/*
 * Joy Premium: the one rule of who has it, a pure function of the subscription's state and a time.
 *
 * - active: premium. Past the end of the paid period a Stripe subscription stays premium until Stripe says
 *   otherwise (the renewal's invoice.paid, or the deletion: a webhook may lag); a sandbox subscription, which
 *   nobody renews, ends there. An active subscription without a known period end is premium.
 * - canceling: premium until the end of the paid period, which it must know.
 * - lapsed: not premium. Stripe stopped collecting (`unpaid`) or paused the subscription; it is not ended, and
 *   premium comes back on it when Stripe reports it active again (the open invoice paid, or resumed).
 * - anything else (none, free, ended): not premium.
 *
 * The period end itself belongs to the next period: at `currentPeriodEnd` exactly, a period that is not
 * renewed is over (`end > now`, never `>=`). Billing's decider and the subscription status the API shows both
 * ask this function, so they cannot disagree at that instant (they used to: one kept a canceling subscription
 * without a period end premium, the other did not).
 */

/** Who took the payment: Stripe, the sandbox (test cards), or nobody: the operator granted it (`npm run users -- grant-premium`). */
export type BillingProviderName = 'stripe' | 'sandbox' | 'operator';

/**
 * The plan as the API shows it: free (never paid), active, canceling (ends at currentPeriodEnd), lapsed (a payment
 * did not go through, or the subscription is paused: not premium until it is paid or resumed), ended.
 */
export type PlanStatus = 'free' | 'active' | 'canceling' | 'lapsed' | 'ended';

export interface SubscriptionFacts {
  /** `none` and `free` both mean never paid. */
  status: 'none' | PlanStatus;
  provider?: BillingProviderName | null;
  /** Null or absent: not known (yet). */
  currentPeriodEnd?: string | null;
}

export function isPremiumAt(subscription: SubscriptionFacts, now: Date): boolean {
  const { status, provider, currentPeriodEnd } = subscription;
  const periodRunning = !!currentPeriodEnd && Date.parse(currentPeriodEnd) > now.getTime();
  if (status === 'active') return !currentPeriodEnd || periodRunning || provider === 'stripe';
  if (status === 'canceling') return periodRunning;
  return false; // lapsed too: an unpaid or paused subscription gives nothing until Stripe says it is active again
}
