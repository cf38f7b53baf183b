import { Logger } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decideAndAppend } from '../event-store/decider';
import type { EventStore } from '../event-store/event-store.port';
import { SqliteEventStore } from '../event-store/sqlite-event-store';
import { CareActionDoc } from '../projections/care-actions.projector';
import { reactorCheckpoint, reactorQueueName, RELAY_CHECKPOINT } from '../projections/pipeline/jobs';
import { ProjectionPipeline } from '../projections/projection-pipeline';
import { PROJECTIONS } from '../projections/projections';
import { InProcessQueue } from '../queue/in-process-queue';
import { InMemoryReadModelStore } from '../read-models/in-memory-read-model-store';
import { CARE_FULFILMENT_REACTOR, CareFulfilment, careFulfilmentReactor, CareOrder, RecordingCareFulfilment } from './care-fulfilment';
import { cancelledEventId, careDecider, careStream, fulfilledEventId } from './care.decider';
import { waitUntil } from '../testing/wait';
import { healthReport, publicHealth } from '../ops/health';

jest.setTimeout(20_000);
Logger.overrideLogger(false);

const eventually = waitUntil;

let dir: string;
let store: SqliteEventStore;
let orders: RecordingCareFulfilment;
const cleanups: (() => Promise<void> | void)[] = [];

/** Appends one event to a stream, as its command would have (only type and data matter to the reactor). */
let appended = 0;
async function record(streamId: string, type: string, data: Record<string, unknown>) {
  const eventId = `test-${++appended}`;
  await store.appendToStream(streamId, [{ type, data, metadata: { eventId, schemaVersion: 1, correlationId: eventId, causationId: eventId, actorUserId: 'test', occurredAt: new Date().toISOString() } }], { expectedVersion: 'any' });
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'joy-care-'));
  store = new SqliteEventStore(join(dir, 'events.sqlite'), { synchronous: 'NORMAL' });
  orders = new RecordingCareFulfilment(join(dir, 'care-orders.sqlite'));
  // Ada (the sender) and Bob (the recipient) are both in group g1: the reactor reads that from their streams.
  await record('group-g1', 'GroupCreated', { groupId: 'g1', name: 'Family', description: null, inviteCode: 'ABCDEFGH', createdBy: 'ada', createdAt: '2026-11-01T00:00:00.000Z' });
  for (const userId of ['ada', 'bob']) await record(`user-${userId}`, 'MemberJoined', { groupId: 'g1', userId, role: userId === 'ada' ? 'admin' : 'member', joinedAt: '2026-11-01T00:00:00.000Z' });
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  orders.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Appends a CareActionSent the way the command does. */
async function sendCare(careActionId: string, kind = 'flowers') {
  await decideAndAppend(
    store,
    careStream(careActionId),
    careDecider,
    {
      type: 'SendCareAction', careActionId, groupId: 'g1', senderId: 'ada', recipientId: 'bob', kind, message: 'Get well',
      senderIsPremium: true, groupMemberIds: ['ada', 'bob'], recipientAcceptsCare: true, recent: { bySender: [], bySenderToRecipient: [], toRecipient: [] }, at: new Date('2026-11-20T08:00:00.000Z'),
    },
    { actorUserId: 'ada' },
    { eventIds: () => [careActionId] },
  );
  return (await store.readStream(careStream(careActionId)))[0];
}

/** Counts the calls of `order` (the adapter itself counts the orders actually placed). */
function counting(inner: CareFulfilment) {
  const calls: string[] = [];
  const adapter: CareFulfilment = {
    order: (careAction: CareOrder, key: string) => {
      calls.push(key);
      return inner.order(careAction, key);
    },
  };
  return { adapter, calls };
}

function pipelineWith(fulfilment: CareFulfilment, readModels = new InMemoryReadModelStore(), options = {}) {
  const queue = new InProcessQueue();
  const pipeline = new ProjectionPipeline(store, readModels, queue, PROJECTIONS, {
    watermarkMs: 20,
    relayRetryMs: 20,
    reactors: [careFulfilmentReactor(fulfilment)],
    ...options,
  });
  cleanups.push(async () => {
    await pipeline.stop();
    await queue.close();
  });
  return { pipeline, queue, readModels };
}

const eventsOf = async (id: string, type: string) => (await store.readStream(careStream(id))).filter((e) => e.type === type);
const fulfilledEvents = async (id: string) => (await store.readStream(careStream(id))).filter((e) => e.type === 'CareActionFulfilled');

describe('the recording fulfilment adapter', () => {
  it('places one order per idempotency key: the second call returns the first order', async () => {
    const sent = (await sendCare('c1')).data as CareOrder;
    const first = await orders.order(sent, 'c1');
    const second = await orders.order({ ...sent, kind: 'care_package' }, 'c1');
    expect(second).toEqual(first);
    expect(first.orderId).toMatch(/^order-/);
    const other = await orders.order(sent, 'c2');
    expect(other.orderId).not.toBe(first.orderId);
    expect(orders.orders().map((o) => [o.idempotencyKey, o.kind, o.recipientId, o.message])).toEqual([
      ['c1', 'flowers', 'bob', 'Get well'],
      ['c2', 'flowers', 'bob', 'Get well'],
    ]);
  });

  it('keeps its orders across a restart (a file in DATA_DIR)', async () => {
    const sent = (await sendCare('c1')).data as CareOrder;
    const first = await orders.order(sent, 'c1');
    orders.close();
    orders = new RecordingCareFulfilment(join(dir, 'care-orders.sqlite'));
    expect(await orders.order(sent, 'c1')).toEqual(first);
    expect(orders.orders()).toHaveLength(1);
  });
});

describe('the care fulfilment reactor', () => {
  it('orders once and records CareActionFulfilled as the stream’s second event, with a deterministic id', async () => {
    const sent = await sendCare('c1');
    const { adapter, calls } = counting(orders);
    const { pipeline, readModels } = pipelineWith(adapter);
    await pipeline.start();
    await eventually(async () => (await fulfilledEvents('c1')).length === 1);
    const [fulfilled] = await fulfilledEvents('c1');
    expect(fulfilled).toMatchObject({
      streamVersion: 2,
      data: { careActionId: 'c1', orderId: orders.orders()[0].orderId, fulfilledAt: expect.any(String) },
      metadata: { eventId: fulfilledEventId('c1'), actorUserId: 'system', causationId: sent.metadata.eventId, correlationId: sent.metadata.correlationId },
    });
    expect(calls).toEqual(['c1']);
    // The read model follows: status fulfilled.
    await eventually(async () => (await readModels.get<CareActionDoc>('care-actions', 'c1'))?.status === 'fulfilled');
  });

  it('a job delivered twice orders once and appends once', async () => {
    const sent = await sendCare('c1');
    const { adapter, calls } = counting(orders);
    const { pipeline, queue, readModels } = pipelineWith(adapter);
    // The same event twice on the reactor's queue before the relay even starts (two job ids: the queue
    // would merge equal ids; a redelivery after a lost acknowledgement looks like this).
    await queue.add(reactorQueueName(CARE_FULFILMENT_REACTOR), [
      { id: 'dup-1', payload: sent },
      { id: 'dup-2', payload: sent },
    ]);
    // ...and the checkpoint lost, so the position guard does not hide the duplicate.
    const wipe = readModels.setCheckpoint.bind(readModels);
    readModels.setCheckpoint = async (name, position) => (name === reactorCheckpoint(CARE_FULFILMENT_REACTOR) ? undefined : wipe(name, position));
    await pipeline.start();
    await eventually(async () => (await queue.backlog(reactorQueueName(CARE_FULFILMENT_REACTOR))) === 0 && (await fulfilledEvents('c1')).length === 1);
    // The relay's own delivery of the event arrives too: once it has relayed past the event and the queue is empty.
    const head = await store.headPosition();
    await eventually(async () => (await readModels.getCheckpoint(RELAY_CHECKPOINT)) >= head && (await queue.backlog(reactorQueueName(CARE_FULFILMENT_REACTOR))) === 0);
    expect(await queue.backlog(reactorQueueName(CARE_FULFILMENT_REACTOR))).toBe(0);
    expect(await fulfilledEvents('c1')).toHaveLength(1);
    expect(orders.orders()).toHaveLength(1);
    // The first delivery ordered; the others found the action fulfilled and did not call the partner.
    expect(calls).toEqual(['c1']);
  });

  it('two deliveries racing (two replicas) get the same order and append once', async () => {
    const sent = await sendCare('c1');
    const reactor = careFulfilmentReactor(orders);
    const ctx = { store, readModels: new InMemoryReadModelStore() };
    await Promise.all([reactor.react(sent, ctx), reactor.react(sent, ctx), reactor.react(sent, ctx)]);
    expect(await fulfilledEvents('c1')).toHaveLength(1);
    expect(orders.orders()).toHaveLength(1);
    expect((await fulfilledEvents('c1'))[0].data.orderId).toBe(orders.orders()[0].orderId);
  });

  it('a crash between the order and the append: after the restart the same order is recorded, nothing is ordered twice', async () => {
    await sendCare('c1');
    await sendCare('c2', 'handwritten_card');
    // The worker "dies" right after the partner accepted c1's order: its append to the event store fails.
    let crashed = false;
    const crashingStore: EventStore = Object.assign(Object.create(store) as SqliteEventStore, {
      async appendToStream(...args: Parameters<EventStore['appendToStream']>) {
        if (!crashed && args[0] === careStream('c1')) {
          crashed = true;
          throw new Error('worker crashed between order and append');
        }
        return store.appendToStream(...args);
      },
    });
    const first = counting(orders);
    const readModels = new InMemoryReadModelStore();
    const queue = new InProcessQueue();
    const dying = new ProjectionPipeline(crashingStore, readModels, queue, PROJECTIONS, {
      watermarkMs: 20, relayRetryMs: 20, consumer: { maxAttempts: 1 }, reactors: [careFulfilmentReactor(first.adapter)],
    });
    await dying.start();
    await eventually(async () => (await dying.reactorStatus())[0].state === 'stopped');
    expect(crashed).toBe(true);
    expect(orders.orders().map((o) => o.idempotencyKey)).toEqual(['c1']); // ordered...
    expect(await fulfilledEvents('c1')).toHaveLength(0); // ...but not recorded
    await dying.stop();
    await queue.close(); // its queued jobs are gone with it
    orders.close();

    // The restarted worker: a new adapter on the same file, new queue, read models rebuilt from nothing.
    orders = new RecordingCareFulfilment(join(dir, 'care-orders.sqlite'));
    const second = counting(orders);
    const { pipeline } = pipelineWith(second.adapter);
    await pipeline.start();
    await eventually(async () => (await fulfilledEvents('c1')).length === 1 && (await fulfilledEvents('c2')).length === 1);
    const recorded = orders.orders();
    expect(recorded.map((o) => o.idempotencyKey)).toEqual(['c1', 'c2']);
    expect((await fulfilledEvents('c1'))[0].data.orderId).toBe(recorded[0].orderId);
    expect((await fulfilledEvents('c2'))[0].data.orderId).toBe(recorded[1].orderId);
    expect(second.calls).toEqual(['c1', 'c2']); // c1 asked again with its key: the partner returned the first order

    // A third start (everything replayed again): nothing new anywhere.
    const before = await store.headPosition();
    const third = counting(orders);
    const { pipeline: replay, readModels: fresh } = pipelineWith(third.adapter);
    await replay.start();
    await replay.waitUntilCaughtUp();
    await eventually(async () => (await fresh.getCheckpoint(reactorCheckpoint(CARE_FULFILMENT_REACTOR))) >= before);
    expect(await store.headPosition()).toBe(before);
    expect(third.calls).toEqual([]);
    expect(orders.orders()).toHaveLength(2);
  });

  // A review (11-27): a partner failing for under a second (5 tries, 50 ms apart) stopped the reactor for good,
  // for everyone, until a restart, and health said "ok"; and a restart with the partner down failed Joy's start.
  describe('with a partner that fails for a while', () => {
    /** A partner that answers 503 while `down`. */
    function flaky(inner: CareFulfilment) {
      const state = { down: true, refusals: 0 };
      const adapter: CareFulfilment = {
        order: async (careAction, key) => {
          if (state.down) {
            state.refusals++;
            throw new Error('Partner answered 503');
          }
          return inner.order(careAction, key);
        },
      };
      return { adapter, state };
    }

    it('waits it out, never stopped, and fulfils every care action once when it answers again', async () => {
      await sendCare('c1');
      const partner = flaky(orders);
      const { pipeline } = pipelineWith(partner.adapter, new InMemoryReadModelStore(), { consumer: { maxAttempts: 3, backoffMs: 5 } });
      await pipeline.start();
      await eventually(async () => partner.state.refusals > 6); // twice the attempts a failing event gets
      await sendCare('c2', 'handwritten_card'); // sent during the outage: waits behind c1
      const [waiting] = await pipeline.reactorStatus();
      expect(waiting).toMatchObject({ state: 'running', error: 'Waiting for an outage to pass, trying again: Care partner unavailable: Partner answered 503' });
      expect(await fulfilledEvents('c1')).toHaveLength(0);

      partner.state.down = false;
      await eventually(async () => (await fulfilledEvents('c1')).length === 1 && (await fulfilledEvents('c2')).length === 1, 10_000);
      expect(orders.orders().map((o) => o.idempotencyKey)).toEqual(['c1', 'c2']);
      await eventually(async () => (await pipeline.reactorStatus())[0].error === undefined);
      expect((await pipeline.reactorStatus())[0].state).toBe('running');
    });

    it('does not keep the app from starting: the start goes on, and the care action is fulfilled once the partner answers', async () => {
      await sendCare('c1');
      await sendCare('c2', 'handwritten_card');
      const partner = flaky(orders);
      const { pipeline, readModels } = pipelineWith(partner.adapter, new InMemoryReadModelStore(), { consumer: { maxAttempts: 3, backoffMs: 5 } });
      // The embedded default's start: everything caught up from the event store before serving.
      await expect(pipeline.catchUpAtStart()).resolves.toMatchObject({ position: await store.headPosition() });
      expect(await readModels.getCheckpoint(reactorCheckpoint(CARE_FULFILMENT_REACTOR))).toBeLessThan((await store.readStream(careStream('c1')))[0].position);
      await pipeline.start();
      partner.state.down = false;
      await eventually(async () => (await fulfilledEvents('c1')).length === 1 && (await fulfilledEvents('c2')).length === 1, 10_000);
      expect(orders.orders().map((o) => o.idempotencyKey)).toEqual(['c1', 'c2']);
    });

    it('a reactor failing for another reason (a bug) still stops, and health names it', async () => {
      await sendCare('c1');
      const buggy = { name: 'thank-you-cards', eventTypes: ['CareActionSent'], react: async () => Promise.reject(new TypeError('a bug')) };
      const readModels = new InMemoryReadModelStore();
      const queue = new InProcessQueue();
      const pipeline = new ProjectionPipeline(store, readModels, queue, PROJECTIONS, { watermarkMs: 20, relayRetryMs: 20, consumer: { maxAttempts: 2, backoffMs: 5 }, reactors: [buggy] });
      cleanups.push(async () => {
        await pipeline.stop();
        await queue.close();
      });
      await pipeline.start();
      await eventually(async () => (await pipeline.reactorStatus())[0].state === 'stopped');
      const report = await healthReport({ store, readModels, queue, pipeline });
      expect(report.status).toBe('degraded');
      expect(report.projections).toContainEqual(expect.objectContaining({ name: 'reactor.thank-you-cards', state: 'stopped', error: expect.stringContaining('a bug') }));
      expect(publicHealth(report).projections).toEqual({ ok: false, stopped: ['reactor.thank-you-cards'], error: expect.any(String) });
    });
  });

  // A review (11-27): with outages waited out, a care action sent before its recipient declined care (or left, or
  // deleted their account) was still ordered once the partner answered.
  describe('looks again before ordering', () => {
    /** The partner down until `up()`; meanwhile the facts change. */
    function downUntilUp() {
      let down = true;
      let refusals = 0;
      const adapter: CareFulfilment = {
        order: async (careAction, key) => {
          if (down) {
            refusals++;
            throw new Error('Partner answered 503');
          }
          return orders.order(careAction, key);
        },
      };
      return { adapter, up: () => (down = false), refusals: () => refusals };
    }

    const cases: [string, () => Promise<void>, string][] = [
      ['the recipient turned care actions off', () => record('user-bob', 'UserSettingsChanged', { userId: 'bob', acceptCareActions: false }), 'recipient_declined'],
      ['the recipient left the group', () => record('user-bob', 'MemberLeft', { groupId: 'g1', userId: 'bob', reason: 'left', leftAt: '2026-11-20T09:00:00.000Z' }), 'left_group'],
      ['the sender was removed from the group', () => record('user-ada', 'MemberLeft', { groupId: 'g1', userId: 'ada', reason: 'removed', leftAt: '2026-11-20T09:00:00.000Z' }), 'left_group'],
      ['the group was deleted', () => record('group-g1', 'GroupDeleted', { groupId: 'g1', deletedBy: 'ada', deletedAt: '2026-11-20T09:00:00.000Z' }), 'left_group'],
      ['the recipient deleted their account', () => record('user-bob', 'UserDeleted', { userId: 'bob', deletedAt: '2026-11-20T09:00:00.000Z' }), 'account_deleted'],
      ['the sender deleted their account', () => record('user-ada', 'UserDeleted', { userId: 'ada', deletedAt: '2026-11-20T09:00:00.000Z' }), 'account_deleted'],
    ];
    it.each(cases)('%s while the partner was down: cancelled, nothing ordered, the lists say why', async (_, change, reason) => {
      await sendCare('c1');
      const partner = downUntilUp();
      const { pipeline, readModels } = pipelineWith(partner.adapter, new InMemoryReadModelStore(), { consumer: { maxAttempts: 3, backoffMs: 5 } });
      await pipeline.start();
      await eventually(async () => partner.refusals() > 0);
      await change();
      partner.up();
      await eventually(async () => (await eventsOf('c1', 'CareActionCancelled')).length === 1, 10_000);
      const [cancelled] = await eventsOf('c1', 'CareActionCancelled');
      expect(cancelled).toMatchObject({ streamVersion: 2, data: { careActionId: 'c1', reason, cancelledAt: expect.any(String) }, metadata: { eventId: cancelledEventId('c1'), actorUserId: 'system' } });
      expect(orders.orders()).toEqual([]);
      expect(await fulfilledEvents('c1')).toEqual([]);
      await eventually(async () => (await readModels.get<CareActionDoc>('care-actions', 'c1'))?.status === 'cancelled');
      expect(await readModels.get<CareActionDoc>('care-actions', 'c1')).toMatchObject({ cancelReason: reason, cancelledAt: cancelled.data.cancelledAt, orderId: null });
    });

    it('orders what still may go, and a redelivery of a cancelled care action orders and appends nothing', async () => {
      const first = await sendCare('c1');
      await record('user-bob', 'UserSettingsChanged', { userId: 'bob', acceptCareActions: false });
      await record('user-bob', 'UserSettingsChanged', { userId: 'bob', acceptCareActions: true });
      const reactor = careFulfilmentReactor(orders);
      const ctx = { store, readModels: new InMemoryReadModelStore() };
      await reactor.react(first, ctx); // turned off and on again: still welcome
      expect(orders.orders().map((o) => o.idempotencyKey)).toEqual(['c1']);

      const second = await sendCare('c2');
      await record('user-bob', 'UserSettingsChanged', { userId: 'bob', acceptCareActions: false });
      await reactor.react(second, ctx);
      await reactor.react(second, ctx);
      expect(await eventsOf('c2', 'CareActionCancelled')).toHaveLength(1);
      expect(orders.orders().map((o) => o.idempotencyKey)).toEqual(['c1']);
      // Fulfilled stays fulfilled: turning care off afterwards cancels nothing already ordered.
      await reactor.react(first, ctx);
      expect(await eventsOf('c1', 'CareActionCancelled')).toEqual([]);
    });
  });
});
