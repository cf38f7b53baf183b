import { type BillingProviderName, isPremiumAt, type PlanStatus, type SubscriptionStatusView } from '@joy/domain';
import {
  SUBSCRIPTION_EVENT_TYPES,
  type SubscriptionActivated,
  type SubscriptionCancellationScheduled,
  type SubscriptionCheckoutStarted,
  type SubscriptionEnded,
  type SubscriptionLapsed,
  type SubscriptionReactivated,
  type SubscriptionRenewed,
} from '../billing/billing.decider';
import { dataOf, Projector } from './projector';

/**
 * subscriptions: one document per user, keyed by user id: the plan as the events left it. What depends on
 * the clock (premium until the paid period is over) is computed at query time by `subscriptionStatusAt`, with
 * the one premium rule (`isPremiumAt`).
 */
export interface SubscriptionDoc {
  userId: string;
  /** free: never paid; active; canceling: ends at currentPeriodEnd; lapsed: not premium until paid or resumed; ended. */
  status: PlanStatus;
  provider: BillingProviderName | null;
  subscriptionId: string | null;
  currentPeriodEnd: string | null;
  cancelAt: string | null;
  endedAt: string | null;
  /** Since when it is lapsed, while it is (absent in documents written before lapses were recorded). */
  lapsedAt?: string | null;
}

const FREE: SubscriptionStatusView = { isPremium: false, status: 'free', currentPeriodEnd: null, cancelAtPeriodEnd: false };

/**
 * The status at `now`: an active or canceling subscription that is no longer premium has ended. A lapsed one is not
 * premium, and its date is since when (a plan's date says when it last changed or will change).
 */
export function subscriptionStatusAt(doc: SubscriptionDoc | null, now: Date): SubscriptionStatusView {
  if (!doc || doc.status === 'free') return FREE;
  if (doc.status === 'lapsed') return { isPremium: false, status: 'lapsed', currentPeriodEnd: doc.lapsedAt ?? doc.currentPeriodEnd, cancelAtPeriodEnd: false };
  if (doc.status === 'ended') return { isPremium: false, status: 'ended', currentPeriodEnd: doc.endedAt ?? doc.currentPeriodEnd, cancelAtPeriodEnd: false };
  if (!isPremiumAt(doc, now)) return { isPremium: false, status: 'ended', currentPeriodEnd: doc.currentPeriodEnd, cancelAtPeriodEnd: false };
  return { isPremium: true, status: doc.status, currentPeriodEnd: doc.currentPeriodEnd, cancelAtPeriodEnd: doc.status === 'canceling' };
}

type Data =
  | SubscriptionCheckoutStarted['data']
  | SubscriptionActivated['data']
  | SubscriptionRenewed['data']
  | SubscriptionCancellationScheduled['data']
  | SubscriptionLapsed['data']
  | SubscriptionReactivated['data']
  | SubscriptionEnded['data'];

export const subscriptionsProjector: Projector<SubscriptionDoc> = {
  collection: 'subscriptions',
  eventTypes: [...SUBSCRIPTION_EVENT_TYPES, 'UserDeleted'],
  ids: (event) => [dataOf<Data>(event).userId],
  evolve(doc, event) {
    // Account deletion ends the subscription first (SubscriptionEnded), then the document goes with the account.
    if (event.type === 'UserDeleted') return null;
    const userId = dataOf<Data>(event).userId;
    const current: SubscriptionDoc = doc ?? {
      userId,
      status: 'free',
      provider: null,
      subscriptionId: null,
      currentPeriodEnd: null,
      cancelAt: null,
      endedAt: null,
      lapsedAt: null,
    };
    switch (event.type) {
      case 'SubscriptionCheckoutStarted':
        return current; // an open checkout changes nothing the user sees
      case 'SubscriptionActivated': {
        const d = dataOf<SubscriptionActivated['data']>(event);
        return {
          ...current,
          status: 'active',
          provider: d.provider,
          subscriptionId: d.subscriptionId,
          currentPeriodEnd: d.currentPeriodEnd,
          cancelAt: null,
          endedAt: null,
          lapsedAt: null,
        };
      }
      case 'SubscriptionLapsed': {
        const d = dataOf<SubscriptionLapsed['data']>(event);
        return d.subscriptionId === current.subscriptionId ? { ...current, status: 'lapsed', lapsedAt: d.lapsedAt } : current;
      }
      case 'SubscriptionReactivated': {
        // A cancellation still wanted follows as its own event (SubscriptionCancellationScheduled).
        const d = dataOf<SubscriptionReactivated['data']>(event);
        return d.subscriptionId === current.subscriptionId
          ? { ...current, status: 'active', currentPeriodEnd: d.currentPeriodEnd, cancelAt: null, lapsedAt: null }
          : current;
      }
      case 'SubscriptionRenewed': {
        const d = dataOf<SubscriptionRenewed['data']>(event);
        return d.subscriptionId === current.subscriptionId ? { ...current, currentPeriodEnd: d.currentPeriodEnd } : current;
      }
      case 'SubscriptionCancellationScheduled': {
        const d = dataOf<SubscriptionCancellationScheduled['data']>(event);
        return d.subscriptionId === current.subscriptionId ? { ...current, status: 'canceling', cancelAt: d.cancelAt } : current;
      }
      case 'SubscriptionCancellationWithdrawn': {
        const d = dataOf<{ subscriptionId: string }>(event);
        return d.subscriptionId === current.subscriptionId ? { ...current, status: 'active', cancelAt: null } : current;
      }
      case 'SubscriptionEnded': {
        const d = dataOf<SubscriptionEnded['data']>(event);
        return d.subscriptionId === current.subscriptionId ? { ...current, status: 'ended', endedAt: d.endedAt } : current;
      }
      default:
        return current;
    }
  },
  indexes: ['status'],
};
