import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { describeEventStoreConformance } from './event-store.conformance';
import { SqliteEventStore } from './sqlite-event-store';
import { EventToAppend } from './event-store.port';

describeEventStoreConformance('SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'joy-events-'));
  const file = join(dir, 'events.sqlite');
  return {
    store: new SqliteEventStore(file),
    reopen: async () => new SqliteEventStore(file),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    gapFreePositions: true,
  };
});

describe('SqliteEventStore specifics', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'joy-events-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const event = (type: string): EventToAppend => ({
    type,
    data: {},
    metadata: {
      eventId: randomUUID(),
      schemaVersion: 1,
      correlationId: 'c',
      causationId: 'c',
      actorUserId: 'system',
      occurredAt: new Date().toISOString(),
    },
  });

  it('appendBatch writes several streams in order in one transaction: all of them, or none when one conflicts', async () => {
    const store = new SqliteEventStore(join(dir, 'events.sqlite'));
    await store.appendToStream('b', [event('B1')], { expectedVersion: 0 });
    const results = await store.appendBatch([
      { streamId: 'a', events: [event('A1'), event('A2')], expectedVersion: 0 },
      { streamId: 'b', events: [event('B2')], expectedVersion: 1 },
    ]);
    expect(results).toEqual([{ nextVersion: 2, position: 3 }, { nextVersion: 2, position: 4 }]);

    await expect(
      store.appendBatch([
        { streamId: 'c', events: [event('C1')], expectedVersion: 0 },
        { streamId: 'a', events: [event('A3')], expectedVersion: 1 }, // a is at version 2
      ]),
    ).rejects.toThrow('Stream a: expected version 1, actual 2');
    expect((await store.readAll({ from: 0, limit: 10 })).map((e) => e.type)).toEqual(['B1', 'A1', 'A2', 'B2']);
    await store.close();
  });

  it('works in memory and starts at position 1', async () => {
    const store = new SqliteEventStore(':memory:');
    expect(await store.headPosition()).toBe(0);
    expect(await store.appendToStream('s-1', [event('A')], { expectedVersion: 0 })).toEqual({
      nextVersion: 1,
      position: 1,
    });
    await store.close();
  });

  it('a live subscription sees appends made by another connection on the same file (polling)', async () => {
    const file = join(dir, 'events.sqlite');
    const reader = new SqliteEventStore(file);
    const writer = new SqliteEventStore(file);
    const controller = new AbortController();
    const iterator = reader.subscribe({ from: 0, signal: controller.signal })[Symbol.asyncIterator]();
    try {
      const pending = iterator.next();
      await writer.appendToStream('s-1', [event('A')], { expectedVersion: 0 });
      const first = await pending;
      expect(first.done).toBe(false);
      expect(first.value).toMatchObject({ type: 'A', position: 1 });
    } finally {
      controller.abort();
      await reader.close();
      await writer.close();
    }
  });

  it('pages through a backlog larger than one page', async () => {
    const store = new SqliteEventStore(join(dir, 'events.sqlite'));
    const batch = Array.from({ length: 1203 }, (_, i) => event(i % 2 ? 'Odd' : 'Even'));
    await store.appendToStream('big-1', batch, { expectedVersion: 0 });
    const controller = new AbortController();
    let count = 0;
    let last = 0;
    for await (const e of store.subscribe({ from: 0, types: ['Odd'], signal: controller.signal })) {
      expect(e.position).toBeGreaterThan(last);
      last = e.position;
      if (++count === 601) controller.abort();
    }
    expect(count).toBe(601);
    expect(last).toBe(1202);
    await store.close();
  });

  it('reads a long stream whole and in order, letting other work run between its pages (a long history held every request)', async () => {
    const store = new SqliteEventStore(join(dir, 'events.sqlite'));
    for (let i = 0; i < 9; i++) await store.appendToStream('ratings-long', Array.from({ length: 500 }, () => event('RatingSubmitted')), { expectedVersion: i * 500 });
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    const whole = await store.readStream('ratings-long');
    clearInterval(ticker);
    expect(whole.map((e) => e.streamVersion)).toEqual(Array.from({ length: 4500 }, (_, i) => i + 1));
    expect(turns).toBeGreaterThan(0);
    const rest = await store.readStream('ratings-long', { afterVersion: 1999 });
    expect(rest.map((e) => e.streamVersion)).toEqual(Array.from({ length: 2501 }, (_, i) => i + 2000));
    await store.close();
  });

  it('an idempotent retry after the stream moved on returns the original result', async () => {
    const store = new SqliteEventStore(':memory:');
    const batch = [event('A'), event('B')];
    const first = await store.appendToStream('s-1', batch, { expectedVersion: 0 });
    await store.appendToStream('s-1', [event('C')], { expectedVersion: 2 });
    expect(await store.appendToStream('s-1', batch, { expectedVersion: 0 })).toEqual(first);
    expect(await store.appendToStream('s-1', batch, { expectedVersion: 'any' })).toEqual(first);
    expect(await store.readStream('s-1')).toHaveLength(3);
    await store.close();
  });

  it('rejects a reused event id in another stream without writing', async () => {
    const store = new SqliteEventStore(':memory:');
    const e = event('A');
    await store.appendToStream('s-1', [e], { expectedVersion: 0 });
    await expect(store.appendToStream('s-2', [event('B'), e], { expectedVersion: 0 })).rejects.toThrow(/event id/);
    expect(await store.readStream('s-2')).toEqual([]);
    expect(await store.headPosition()).toBe(1);
    await store.close();
  });

  it('close ends a live subscription', async () => {
    const store = new SqliteEventStore(':memory:');
    const waiting = store.subscribe({ from: 0 })[Symbol.asyncIterator]().next();
    await store.close();
    expect((await waiting).done).toBe(true);
  });
});
