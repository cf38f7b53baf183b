import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import {
  EventStoreOutcomeUnknownError,
  EventStoreRefusedError,
  EventStoreUnavailableError,
  type RecordedEvent,
} from './event-store.port';
import { EventStoreDbEventStore } from './eventstoredb-event-store';
import { EventStoreDbStandIn } from './standin/server';
import { appendable } from '../testing/events';
import { toApiError } from '../http/api-exception.filter';
import { waitUntil } from '../testing/wait';

/*
 * What the adapter does when EventStoreDB misbehaves, through the official client against the gRPC stand-in with
 * its faults: a follower answering NotLeader, access denied, a server past the deadline, a dropped subscription,
 * a server gone and back.
 */

Logger.overrideLogger(false);

const event = appendable;
const streamEvents = (standIn: EventStoreDbStandIn, stream: string) =>
  standIn.log.records.filter((r) => r.kind === 'event' && r.streamId === stream).map((r) => r.type);

describe('EventStoreDB faults, on the wire', () => {
  let standIn: EventStoreDbStandIn;
  let store: EventStoreDbEventStore;
  const opened: { close(): Promise<void> }[] = [];
  beforeEach(async () => {
    standIn = await EventStoreDbStandIn.start();
    // Unanswered appends are sent again for 1 s (5 s by default): a server gone does not hold each case for long.
    store = new EventStoreDbEventStore(standIn.url, { resendWindowMs: 1_000 });
    opened.push(store, { close: () => standIn.stop() });
  });
  afterEach(async () => {
    for (const item of opened.splice(0).reverse()) await item.close();
  });

  it('NotLeader: the adapter reconnects to the leader the follower names and the call succeeds there', async () => {
    const leader = await EventStoreDbStandIn.start();
    opened.push({ close: () => leader.stop() });
    standIn.faults = { notLeader: { host: leader.host, port: leader.port } };
    const stream = `leader-${randomUUID()}`;

    const written = await store.appendToStream(stream, [event('A'), event('B')], { expectedVersion: 0 });
    expect(written.nextVersion).toBe(2);
    expect(streamEvents(leader, stream)).toEqual(['A', 'B']);
    expect(streamEvents(standIn, stream)).toEqual([]); // nothing written on the follower
    // The client stays on the leader: reads and the next appends go there.
    expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['A', 'B']);
    await store.appendToStream(stream, [event('C')], { expectedVersion: 2 });
    expect(streamEvents(leader, stream)).toEqual(['A', 'B', 'C']);
    expect(await store.headPosition()).toBe(Number(leader.log.records.filter((r) => r.streamId === stream).at(-1)!.position));
  });

  it('cluster discovery (esdb+discover://): the client asks the node for its members over gossip and uses the leader', async () => {
    const discovering = new EventStoreDbEventStore(`esdb+discover://${standIn.host}:${standIn.port}?tls=false`);
    opened.push(discovering);
    const stream = `gossip-${randomUUID()}`;
    expect((await discovering.appendToStream(stream, [event('A')], { expectedVersion: 0 })).nextVersion).toBe(1);
    expect(streamEvents(standIn, stream)).toEqual(['A']);
  });

  it('access denied: appends and reads fail with a refusal naming the cause; a subscription ends, it does not spin', async () => {
    const stream = `denied-${randomUUID()}`;
    await store.appendToStream(stream, [event('A')], { expectedVersion: 0 });
    standIn.faults = { accessDenied: true };

    const append = store.appendToStream(stream, [event('B')], { expectedVersion: 1 });
    await expect(append).rejects.toBeInstanceOf(EventStoreRefusedError);
    await expect(append).rejects.toThrow(/denied access \(append to denied-.*lacks the rights/);
    await expect(store.readStream(stream)).rejects.toThrow(/denied access \(read denied-/);
    expect(streamEvents(standIn, stream)).toEqual(['A']);

    const before = standIn.subscriptionRequests;
    const iterator = store.subscribe({ from: 0 })[Symbol.asyncIterator]();
    await expect(iterator.next()).rejects.toBeInstanceOf(EventStoreRefusedError);
    // Asked for once, refused, never again: the subscription has ended (nothing left in it that could retry).
    await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined });
    expect(standIn.subscriptionRequests - before).toBe(1);
  });

  it('a subscription refused once it is live ends with the refusal, without resubscribing', async () => {
    const iterator = store.subscribe({ from: await store.headPosition() })[Symbol.asyncIterator]();
    const pending = iterator.next();
    await waitUntil(() => standIn.liveSubscriptions > 0);
    standIn.faults = { accessDenied: true };
    standIn.dropSubscriptions(); // it resubscribes (a drop is retried) and is refused
    await expect(pending).rejects.toThrow(/denied access \(/);
    const requests = standIn.subscriptionRequests;
    // The subscription has ended (nothing left in it that could resubscribe), and asked no more.
    await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined });
    expect(standIn.subscriptionRequests).toBe(requests);
  });

  it('deadline exceeded: an append the server cannot finish in time is unavailable (503), writes nothing, and a retry succeeds', async () => {
    const hurried = new EventStoreDbEventStore(`${standIn.url}&defaultDeadline=200`, { resendWindowMs: 300 });
    opened.push(hurried);
    const stream = `deadline-${randomUUID()}`;
    standIn.faults = { appendDelayMs: 600 };
    const started = Date.now();
    const append = hurried.appendToStream(stream, [event('A')], { expectedVersion: 0 });
    // EventStoreDB may still carry out an append it answered with a timeout: sent again, then "outcome unknown".
    await expect(append).rejects.toBeInstanceOf(EventStoreOutcomeUnknownError);
    await expect(append).rejects.toThrow(/did not answer an append within 300 ms of sending it again \(append to deadline-.*\): it may be stored/);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(streamEvents(standIn, stream)).toEqual([]);

    standIn.faults = {};
    expect((await hurried.appendToStream(stream, [event('A')], { expectedVersion: 0 })).nextVersion).toBe(1);
  });

  it('a server that never answers: reads and appends are unavailable after the deadline, nothing hangs', async () => {
    const hurried = new EventStoreDbEventStore(`${standIn.url}&defaultDeadline=300`, { resendWindowMs: 300 });
    opened.push(hurried);
    const stream = `hung-${randomUUID()}`;
    await hurried.appendToStream(stream, [event('A')], { expectedVersion: 0 });
    standIn.faults = { unresponsive: true };
    const started = Date.now();
    await expect(hurried.readStream(stream)).rejects.toThrow(/EventStoreDB did not answer within 300 ms \(read hung-/);
    await expect(hurried.readAll({ from: 0, limit: 10 })).rejects.toBeInstanceOf(EventStoreUnavailableError);
    await expect(hurried.headPosition()).rejects.toBeInstanceOf(EventStoreUnavailableError);
    await expect(hurried.appendToStream(stream, [event('B')], { expectedVersion: 1 })).rejects.toBeInstanceOf(EventStoreUnavailableError);
    expect(Date.now() - started).toBeLessThan(4_000);
    standIn.faults = {};
    expect((await hurried.readStream(stream)).map((e) => e.type)).toEqual(['A']); // whole reads again, never cut short
  });

  // A review (11-27): a stream was read in one call under one deadline, so a long one (years of ratings, an import)
  // on a slow link failed every time, and with it every command of its person.
  it('a long stream on a slow link is read whole, in pages that each have the deadline', async () => {
    const patient = new EventStoreDbEventStore(`${standIn.url}&defaultDeadline=1500`);
    opened.push(patient);
    const stream = `long-${randomUUID()}`;
    for (let version = 0; version < 3_000; version += 500) {
      await patient.appendToStream(stream, Array.from({ length: 500 }, (_, i) => event(`E${version + i + 1}`)), { expectedVersion: version });
    }
    expect(await patient.readStream(stream)).toHaveLength(3_000);
    // 1,000 events in 800 ms (and what the stand-in takes itself), the 3,000 in more than 2.4 s: longer than one deadline.
    standIn.faults = { streamReadMsPer100: 80 };
    const events = await patient.readStream(stream);
    expect(events.map((e) => e.streamVersion)).toEqual(Array.from({ length: 3_000 }, (_, i) => i + 1));
    expect(events.at(-1)!.type).toBe('E3000');
    const tail = await patient.readStream(stream, { afterVersion: 1_200 });
    expect(tail.map((e) => e.type)).toEqual(Array.from({ length: 1_800 }, (_, i) => `E${i + 1_201}`));
  });

  it('a failed read of $all is that failure, never taken for an invalid position (no scan of $all)', async () => {
    const stream = `scan-${randomUUID()}`;
    await store.appendToStream(stream, [event('A'), event('B')], { expectedVersion: 0 });
    const [a] = await store.readStream(stream);
    standIn.faults = { internalError: true };
    const reads = standIn.allReads;
    await expect(store.readAll({ from: a.position, limit: 10 })).rejects.toThrow(/Internal error/);
    await expect(store.readAll({ from: a.position + 1, limit: 10 })).rejects.toThrow(/Internal error/);
    expect(standIn.allReads - reads).toBe(2); // one each
    standIn.faults = {};
    expect((await store.readAll({ from: a.position + 1, limit: 10 })).map((e) => e.type)).toEqual(['B']);
  });

  it('dropped subscriptions, again and again while events come: each event is delivered once, in order', async () => {
    const stream = `drops-${randomUUID()}`;
    const controller = new AbortController();
    const received: RecordedEvent[] = [];
    const consuming = (async () => {
      for await (const e of store.subscribe({ from: await store.headPosition(), signal: controller.signal })) {
        if (e.streamId === stream) received.push(e);
        if (received.length === 30) return;
      }
    })();
    for (let i = 0; i < 30; i++) {
      await store.appendToStream(stream, [event(`E${i}`)], { expectedVersion: i });
      if (i % 4 === 0) standIn.dropSubscriptions();
    }
    await consuming;
    controller.abort();
    expect(received.map((e) => e.type)).toEqual(Array.from({ length: 30 }, (_, i) => `E${i}`));
    expect(received.map((e) => e.streamVersion)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });

  it('server gone: calls fail fast as unavailable; when it is back, calls and the subscription recover', async () => {
    const stream = `gone-${randomUUID()}`;
    await store.appendToStream(stream, [event('A')], { expectedVersion: 0 });
    const controller = new AbortController();
    const iterator = store.subscribe({ from: await store.headPosition(), signal: controller.signal })[Symbol.asyncIterator]();
    const next = iterator.next();

    await standIn.stop();
    const started = Date.now();
    // Sent on the connection that just went: whether it got there is unknown, so it is sent again for the resend
    // window (1 s here), then "outcome unknown"; the read fails at once.
    const append = store.appendToStream(stream, [event('B')], { expectedVersion: 1 });
    await expect(append).rejects.toBeInstanceOf(EventStoreOutcomeUnknownError);
    await expect(append).rejects.toThrow(/did not answer an append within 1000 ms of sending it again \(append to gone-.*\): it may be stored/);
    await expect(store.readStream(stream)).rejects.toThrow(/EventStoreDB is unreachable \(read gone-/);
    expect(Date.now() - started).toBeLessThan(3_000);

    await standIn.resume();
    await store.appendToStream(stream, [event('B')], { expectedVersion: 1 });
    expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['A', 'B']);
    // The subscription resumed after its last event: B arrives, once.
    expect(((await next).value as RecordedEvent).type).toBe('B');
    controller.abort();
  });

  describe('an append whose answer is lost', () => {
    it('is sent again with the same ids and recognised: stored once, answered as written', async () => {
      const stream = `lost-${randomUUID()}`;
      await store.appendToStream(stream, [event('A')], { expectedVersion: 0 });
      // Written, then the connection drops before the answer (a leader crashing after its commit).
      standIn.faults = { loseAppendAnswers: 1 };
      const written = await store.appendToStream(stream, [event('B')], { expectedVersion: 1 });
      expect(written.nextVersion).toBe(2);
      expect(written.position).toBe(Number(standIn.log.records.filter((r) => r.streamId === stream).at(-1)!.position));
      expect(streamEvents(standIn, stream)).toEqual(['A', 'B']);
    });

    it('still unanswered after the resend window: "outcome unknown", never "nothing was saved"; stored once all the same', async () => {
      const impatient = new EventStoreDbEventStore(standIn.url, { resendWindowMs: 600 });
      opened.push(impatient);
      const stream = `lost-${randomUUID()}`;
      standIn.faults = { loseAppendAnswers: 1_000 };
      const append = impatient.appendToStream(stream, [event('A')], { expectedVersion: 0 });
      await expect(append).rejects.toBeInstanceOf(EventStoreOutcomeUnknownError);
      await expect(append).rejects.toThrow(/it may be stored/);
      expect(toApiError(await append.catch((err: unknown) => err))).toEqual({
        statusCode: 503,
        code: 'store.outcome_unknown',
        message: 'Joy could not confirm that this was saved. Please check before trying again.',
      });
      expect(streamEvents(standIn, stream)).toEqual(['A']);
    });

    it('a server that cannot be reached at all: nothing was sent, so the answer is at once that nothing was saved', async () => {
      const stream = `down-${randomUUID()}`;
      await standIn.stop();
      const append = store.appendToStream(stream, [event('A')], { expectedVersion: 0 });
      await expect(append).rejects.toBeInstanceOf(EventStoreUnavailableError);
      await expect(append).rejects.not.toBeInstanceOf(EventStoreOutcomeUnknownError);
      await standIn.resume();
      expect(streamEvents(standIn, stream)).toEqual([]);
    });
  });
});
