import type { CareActionView, CareCancelReason } from '@joy/domain';
import type { CareActionCancelled, CareActionFulfilled, CareActionSent, CareActionThanked } from '../care/care.decider';
import { dataOf, Projector } from './projector';

/** A care action as the API shows it to its sender, with the fulfilment and the order of the lists. */
export interface CareActionDoc extends CareActionView {
  orderId: string | null;
  fulfilledAt: string | null;
  /** When it was cancelled instead of ordered (CareActionCancelled), and why; absent on documents projected before cancelling existed. */
  cancelledAt?: string | null;
  cancelReason?: CareCancelReason | null;
  /** When the recipient said thanks (CareActionThanked), or null. Absent on documents projected before thanks existed. */
  thankedAt?: string | null;
  /** Global position of the CareActionSent event: orders the lists newest first without ties. */
  seq: number;
}

/**
 * care-actions: one document per care action, keyed by its id, found by recipient (care received, on Home)
 * and by sender (care sent). Names are not copied in: they are looked up in user-profiles when asked.
 */
export const careActionsProjector: Projector<CareActionDoc> = {
  collection: 'care-actions',
  eventTypes: ['CareActionSent', 'CareActionFulfilled', 'CareActionCancelled', 'CareActionThanked'],
  indexes: ['recipientId', 'senderId'],
  ids: (event) => [dataOf<{ careActionId: string }>(event).careActionId],
  evolve(doc, event) {
    if (event.type === 'CareActionSent') {
      const d = dataOf<CareActionSent['data']>(event);
      return {
        id: d.careActionId,
        groupId: d.groupId,
        senderId: d.senderId,
        recipientId: d.recipientId,
        kind: d.kind,
        message: d.message,
        sentAt: d.sentAt,
        status: doc?.status ?? 'sent',
        orderId: doc?.orderId ?? null,
        fulfilledAt: doc?.fulfilledAt ?? null,
        cancelledAt: doc?.cancelledAt ?? null,
        cancelReason: doc?.cancelReason ?? null,
        thankedAt: doc?.thankedAt ?? null,
        seq: event.position,
      };
    }
    // The other events follow their CareActionSent in the same stream, so in the global order too.
    if (!doc) return null;
    if (event.type === 'CareActionThanked') return { ...doc, thankedAt: dataOf<CareActionThanked['data']>(event).thankedAt };
    if (event.type === 'CareActionCancelled') {
      const c = dataOf<CareActionCancelled['data']>(event);
      return { ...doc, status: 'cancelled', cancelledAt: c.cancelledAt, cancelReason: c.reason };
    }
    const d = dataOf<CareActionFulfilled['data']>(event);
    return { ...doc, status: 'fulfilled', orderId: d.orderId, fulfilledAt: d.fulfilledAt };
  },
};
