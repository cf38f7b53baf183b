import { DomainError } from '@joy/domain';
import { Decider, DomainEvent } from '../event-store/decider';

/*
 * A person's devices that receive reminders as Web Push, on `push-<userId>`. A subscription is known by the
 * install's keyed hash of its endpoint (`subscriptionId`); its endpoint and keys are personal data (the endpoint
 * names a browser at a push service), stored encrypted with the person's key (schemaVersion 2) and unreadable
 * once the account is deleted. The PLAINTEXT shape is below; identity/personal-data.ts seals and opens it.
 */

export type PushSubscribed = DomainEvent<
  'PushSubscribed',
  { userId: string; subscriptionId: string; endpoint: string; p256dh: string; auth: string; subscribedAt: string }
>;
/** unsubscribed: by the person; gone: the push service answered 404/410; moved: another person subscribed the same browser; replaced: over the limit, the oldest goes. */
export type PushUnsubscribed = DomainEvent<
  'PushUnsubscribed',
  { userId: string; subscriptionId: string; reason: 'unsubscribed' | 'gone' | 'moved' | 'replaced'; unsubscribedAt: string }
>;
export type PushEvent = PushSubscribed | PushUnsubscribed;

export const pushStream = (userId: string) => `push-${userId}`;

/** Devices per person: a new one beyond this replaces the oldest. */
export const MAX_PUSH_SUBSCRIPTIONS = 10;

export const PUSH_MESSAGES = {
  notFound: 'This device is not subscribed to reminders.',
} as const;

interface Known {
  id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
}

export interface PushState {
  /** Oldest first. */
  subscriptions: readonly Known[];
}

export type PushCommand =
  | { type: 'Subscribe'; userId: string; subscriptionId: string; endpoint: string; p256dh: string; auth: string; at: Date }
  | { type: 'Unsubscribe'; userId: string; subscriptionId: string; reason: PushUnsubscribed['data']['reason']; at: Date };

export const pushSubscriptionsDecider: Decider<PushState, PushCommand, PushEvent> = {
  initialState: { subscriptions: [] },
  evolve(state, event) {
    const others = state.subscriptions.filter((s) => s.id !== event.data.subscriptionId);
    if (event.type === 'PushUnsubscribed') return { subscriptions: others };
    const { subscriptionId: id, endpoint, p256dh, auth } = event.data;
    return { subscriptions: [...others, { id, endpoint, p256dh, auth }] };
  },
  decide(command, state) {
    const at = command.at.toISOString();
    const known = state.subscriptions.find((s) => s.id === command.subscriptionId);
    if (command.type === 'Unsubscribe') {
      if (known) return [{ type: 'PushUnsubscribed', data: { userId: command.userId, subscriptionId: command.subscriptionId, reason: command.reason, unsubscribedAt: at } }];
      // The person asked about a device that is not theirs (or no longer): 404. The server's own clean-ups find nothing to do.
      if (command.reason === 'unsubscribed') throw new DomainError('push.subscription_not_found', PUSH_MESSAGES.notFound);
      return [];
    }
    const { userId, subscriptionId, endpoint, p256dh, auth } = command;
    if (known && known.endpoint === endpoint && known.p256dh === p256dh && known.auth === auth) return [];
    const remaining = state.subscriptions.filter((s) => s.id !== subscriptionId);
    const over = Math.max(0, remaining.length + 1 - MAX_PUSH_SUBSCRIPTIONS);
    return [
      ...remaining.slice(0, over).map(
        (s): PushUnsubscribed => ({ type: 'PushUnsubscribed', data: { userId, subscriptionId: s.id, reason: 'replaced', unsubscribedAt: at } }),
      ),
      { type: 'PushSubscribed', data: { userId, subscriptionId, endpoint, p256dh, auth, subscribedAt: at } },
    ];
  },
};
