import { randomUUID } from 'node:crypto';
import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  START,
  WrongExpectedVersionError,
  eventTypeFilter,
  jsonEvent,
  type AllStreamResolvedEvent,
  type Position,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { EventStoreDbStandIn } from './server';
import { waitUntil } from '../../testing/wait';

/*
 * The stand-in as the official client sees it, without the adapter: the protocol messages this client version
 * acts on (subscription confirmation, caught-up, filter checkpoints), both append calls (BatchAppend, and Append,
 * which the client uses when a call carries credentials), reads both ways, and EventStoreDB's answers to a read of
 * `$all` that starts inside a record and to a wrong expected revision.
 */

let standIn: EventStoreDbStandIn;
let client: EventStoreDBClient;
beforeAll(async () => {
  standIn = await EventStoreDbStandIn.start();
  client = EventStoreDBClient.connectionString(standIn.url);
});
afterAll(async () => {
  await client.dispose();
  await standIn.stop();
});

const typed = (type: string) => jsonEvent({ type, data: { type } });
async function collect<T>(read: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of read) items.push(item);
  return items;
}

describe('the EventStoreDB stand-in through the official client', () => {
  it('appends with BatchAppend and with Append (credentials), each checked against the expected revision', async () => {
    const stream = `both-${randomUUID()}`;
    const batch = await client.appendToStream(stream, [typed('A'), typed('B')], { expectedRevision: 'no_stream' });
    expect(batch.nextExpectedRevision).toBe(1n);
    const unary = await client.appendToStream(stream, typed('C'), {
      expectedRevision: 1n,
      credentials: { username: 'admin', password: 'changeit' }, // makes the client use Append
    });
    expect(unary.nextExpectedRevision).toBe(2n);
    expect(unary.position!.commit).toBeGreaterThan(batch.position!.commit);
    for (const credentials of [undefined, { username: 'admin', password: 'changeit' }]) {
      const wrong = client.appendToStream(stream, typed('X'), { expectedRevision: 0n, credentials });
      await expect(wrong).rejects.toBeInstanceOf(WrongExpectedVersionError);
      await expect(wrong).rejects.toMatchObject({ streamName: stream, expectedVersion: 0n, actualVersion: 2n });
    }
    const read = await collect<ResolvedEvent>(client.readStream(stream));
    expect(read.map((e) => [e.event?.type, e.event?.revision])).toEqual([['A', 0n], ['B', 1n], ['C', 2n]]);
  });

  it('reads streams and $all in both directions; a missing stream is StreamNotFound', async () => {
    const stream = `dirs-${randomUUID()}`;
    await client.appendToStream(stream, [typed('A'), typed('B'), typed('C')]);
    const backwards = await collect<ResolvedEvent>(client.readStream(stream, { direction: BACKWARDS, fromRevision: END, maxCount: 2 }));
    expect(backwards.map((e) => e.event?.type)).toEqual(['C', 'B']);
    expect((await collect<ResolvedEvent>(client.readStream(stream, { fromRevision: 1n }))).map((e) => e.event?.type)).toEqual(['B', 'C']);
    await expect(collect(client.readStream(`none-${randomUUID()}`))).rejects.toMatchObject({ type: 'stream-not-found' });

    const forwards = await collect<AllStreamResolvedEvent>(client.readAll({ direction: FORWARDS, fromPosition: START }));
    const last = await collect<AllStreamResolvedEvent>(client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 }));
    expect(last[0].event?.id).toBe(forwards.at(-1)!.event?.id);
    const ours = forwards.filter((e) => e.event?.streamId === stream);
    expect(ours.map((e) => e.event?.type)).toEqual(['A', 'B', 'C']);
    expect(forwards.some((e) => e.event?.type.startsWith('$'))).toBe(true); // system events, as on a server
  });

  it('refuses to read $all from inside a record, with the server\'s "Invalid position"', async () => {
    const stream = `inside-${randomUUID()}`;
    const { position } = await client.appendToStream(stream, typed('A'));
    const inside: Position = { commit: position!.commit + 1n, prepare: position!.commit + 1n };
    await expect(collect(client.readAll({ fromPosition: inside }))).rejects.toThrow(/OUT_OF_RANGE: Invalid position/);
    const from = await collect<AllStreamResolvedEvent>(client.readAll({ fromPosition: position!, maxCount: 1 }));
    expect(from[0].event?.streamId).toBe(stream); // a forwards read includes its start
  });

  it('a filtered subscription to $all: confirmation, the matching events, caught-up, checkpoints, then live events', async () => {
    const type = `Only${randomUUID().slice(0, 8)}`;
    const others = Array.from({ length: 40 }, () => typed('Other'));
    await client.appendToStream(`sub-${randomUUID()}`, [typed(type), ...others, typed(type)]);
    const signals: string[] = [];
    const checkpoints: Position[] = [];
    const subscription = client.subscribeToAll({
      fromPosition: START,
      filter: eventTypeFilter({ regex: `^${type}$`, checkpointReached: (_s, position) => void checkpoints.push(position) }),
    });
    subscription.on('confirmation', () => signals.push('confirmation'));
    subscription.on('caughtUp', () => signals.push('caughtUp'));
    const iterator = subscription[Symbol.asyncIterator]();
    const next = async () => ((await iterator.next()).value as AllStreamResolvedEvent).event!;
    const first = await next();
    const second = await next();
    expect([first.type, second.type]).toEqual([type, type]);
    // Caught up once the events written so far are delivered; only then comes the live one.
    await waitUntil(() => signals.includes('caughtUp'), 2000, 10);
    expect(signals).toEqual(['confirmation', 'caughtUp']);
    // The 40 events the filter skipped moved a checkpoint on, between the two matching events.
    expect(checkpoints.length).toBeGreaterThan(0);
    expect(checkpoints[0].commit > first.position!.commit && checkpoints[0].commit < second.position!.commit).toBe(true);
    await client.appendToStream(`sub-${randomUUID()}`, [typed('Other'), typed(type)]);
    expect((await next()).type).toBe(type);
    await subscription.unsubscribe();
  });
});
