import type { PushSubscribed, PushUnsubscribed } from '../reminders/push-subscriptions.decider';
import { dataOf, Projector } from './projector';

/**
 * push-subscriptions: per user, the devices that receive reminders, with endpoint and keys as the events store
 * them (encrypted: the scheduler decrypts them with the person's key when it sends). `subscriptionIds` finds
 * who else subscribed the same browser. Gone with the account.
 */
export interface PushSubscriptionsDoc {
  userId: string;
  subscriptionIds: string[];
  subscriptions: { id: string; endpoint: string; p256dh: string; auth: string }[];
}

export const pushSubscriptionsProjector: Projector<PushSubscriptionsDoc> = {
  collection: 'push-subscriptions',
  eventTypes: ['PushSubscribed', 'PushUnsubscribed', 'UserDeleted'],
  indexes: ['subscriptionIds'],
  ids: (event) => [dataOf<{ userId: string }>(event).userId],
  evolve(doc, event) {
    if (event.type === 'UserDeleted') return null;
    const d = dataOf<PushSubscribed['data'] | PushUnsubscribed['data']>(event);
    const others = (doc?.subscriptions ?? []).filter((s) => s.id !== d.subscriptionId);
    const subscriptions =
      event.type === 'PushSubscribed'
        ? [...others, { id: d.subscriptionId, endpoint: (d as PushSubscribed['data']).endpoint, p256dh: (d as PushSubscribed['data']).p256dh, auth: (d as PushSubscribed['data']).auth }]
        : others;
    if (subscriptions.length === 0) return null;
    return { userId: d.userId, subscriptionIds: subscriptions.map((s) => s.id), subscriptions };
  },
};
