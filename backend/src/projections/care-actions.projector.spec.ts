import { InMemoryReadModelStore } from '../read-models/in-memory-read-model-store';
import { recorded } from '../testing/events';
import { CareActionDoc, careActionsProjector } from './care-actions.projector';
import { applyEvent } from './pipeline/applier';
import { PROJECTIONS } from './projections';

const projection = PROJECTIONS.find((p) => p.name === 'care-actions')!;
const sent = (id: string, senderId: string, recipientId: string, position: number, message: string | null = 'Thinking of you') =>
  recorded('CareActionSent', { careActionId: id, groupId: 'g1', senderId, recipientId, kind: 'flowers', message, sentAt: '2026-11-20T08:00:00.000Z' }, position);
const fulfilled = (id: string, position: number) =>
  recorded('CareActionFulfilled', { careActionId: id, orderId: `order-${id}`, fulfilledAt: '2026-11-20T08:00:01.000Z' }, position);

const thanked = (id: string, recipientId: string, position: number) =>
  recorded('CareActionThanked', { careActionId: id, recipientId, thankedAt: '2026-11-21T09:00:00.000Z' }, position);

const events = [sent('c1', 'ada', 'bob', 1), sent('c2', 'cy', 'bob', 2, null), fulfilled('c1', 3), sent('c3', 'bob', 'ada', 4)];

async function project(store: InMemoryReadModelStore, list = events) {
  for (const field of careActionsProjector.indexes ?? []) await store.ensureIndex(careActionsProjector.collection, field);
  for (const e of list) await applyEvent(store, projection, e);
}

describe('care-actions projection', () => {
  it('keeps each care action with its status, found by recipient and by sender', async () => {
    const store = new InMemoryReadModelStore();
    await project(store);
    expect(await store.get(careActionsProjector.collection, 'c1')).toEqual({
      _id: 'c1', _position: 3,
      id: 'c1', groupId: 'g1', senderId: 'ada', recipientId: 'bob', kind: 'flowers', message: 'Thinking of you',
      sentAt: '2026-11-20T08:00:00.000Z', status: 'fulfilled', orderId: 'order-c1', fulfilledAt: '2026-11-20T08:00:01.000Z', cancelledAt: null, cancelReason: null, thankedAt: null, seq: 1,
    });
    expect(await store.get(careActionsProjector.collection, 'c2')).toMatchObject({ status: 'sent', message: null, orderId: null, fulfilledAt: null });
    const received = await store.find<CareActionDoc>(careActionsProjector.collection, { recipientId: 'bob' }, { sort: { field: 'seq', direction: 'desc' } });
    expect(received.map((d) => d.id)).toEqual(['c2', 'c1']);
    const sentByBob = await store.find<CareActionDoc>(careActionsProjector.collection, { senderId: 'bob' });
    expect(sentByBob.map((d) => d.id)).toEqual(['c3']);
  });

  it('shows the recipient’s thanks on the care action, for its sender too, whether it came before or after the fulfilment', async () => {
    const store = new InMemoryReadModelStore();
    await project(store, [...events, thanked('c1', 'bob', 5), thanked('c2', 'bob', 6), fulfilled('c2', 7)]);
    expect(await store.get(careActionsProjector.collection, 'c1')).toMatchObject({ status: 'fulfilled', thankedAt: '2026-11-21T09:00:00.000Z' });
    expect(await store.get(careActionsProjector.collection, 'c2')).toMatchObject({ status: 'fulfilled', orderId: 'order-c2', thankedAt: '2026-11-21T09:00:00.000Z' });
    expect(await store.get(careActionsProjector.collection, 'c3')).toMatchObject({ thankedAt: null });
    const sentByAda = await store.find<CareActionDoc>(careActionsProjector.collection, { senderId: 'ada' });
    expect(sentByAda.map((d) => [d.id, d.thankedAt])).toEqual([['c1', '2026-11-21T09:00:00.000Z']]);
  });

  it('marks a care action cancelled instead of ordered, with when and why, for its sender and its recipient alike', async () => {
    const store = new InMemoryReadModelStore();
    const cancelled = recorded('CareActionCancelled', { careActionId: 'c2', reason: 'recipient_declined', cancelledAt: '2026-11-20T09:00:00.000Z' }, 5);
    await project(store, [...events, cancelled, recorded('CareActionCancelled', { careActionId: 'zz', reason: 'left_group', cancelledAt: '2026-11-20T09:00:00.000Z' }, 6)]);
    expect(await store.get(careActionsProjector.collection, 'c2')).toMatchObject({
      status: 'cancelled', cancelReason: 'recipient_declined', cancelledAt: '2026-11-20T09:00:00.000Z', orderId: null, fulfilledAt: null,
    });
    expect(await store.get(careActionsProjector.collection, 'c1')).toMatchObject({ status: 'fulfilled', cancelReason: null });
    expect(await store.get(careActionsProjector.collection, 'zz')).toBeNull();
  });

  it('ignores thanks for an unknown care action, and the same thanks applied twice changes nothing', async () => {
    const store = new InMemoryReadModelStore();
    await project(store, [thanked('zz', 'bob', 1)]);
    expect(await store.get(careActionsProjector.collection, 'zz')).toBeNull();
    const doc = careActionsProjector.evolve(careActionsProjector.evolve(null, events[0]), thanked('c1', 'bob', 5));
    expect(careActionsProjector.evolve(doc, thanked('c1', 'bob', 5))).toEqual(doc);
  });

  it('ignores a fulfilment of an unknown care action', async () => {
    const store = new InMemoryReadModelStore();
    await project(store, [fulfilled('zz', 1)]);
    expect(await store.get(careActionsProjector.collection, 'zz')).toBeNull();
  });

  it('gives the same documents when the events are applied twice', async () => {
    const store = new InMemoryReadModelStore();
    await project(store);
    const once = await Promise.all(['c1', 'c2', 'c3'].map((id) => store.get(careActionsProjector.collection, id)));
    await project(store);
    expect(await Promise.all(['c1', 'c2', 'c3'].map((id) => store.get(careActionsProjector.collection, id)))).toEqual(once);
    const doc = careActionsProjector.evolve(careActionsProjector.evolve(null, events[0]), events[2]);
    expect(careActionsProjector.evolve(doc, events[2])).toEqual(doc);
  });
});
