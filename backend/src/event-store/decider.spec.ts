import { DomainError } from '@joy/domain';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConcurrencyConflictError, Decider, decideAndAppend, DomainEvent, MAX_ATTEMPTS, retryDelayMs } from './decider';
import { WrongExpectedVersionError } from './event-store.port';
import { SqliteEventStore } from './sqlite-event-store';

type Added = DomainEvent<'Added', { n: number }>;
/** A counter that refuses to go past 3: its decisions depend on every earlier event. */
const counter: Decider<number, { n: number }, Added> = {
  initialState: 0,
  evolve: (total, e) => total + e.data.n,
  decide: ({ n }, total) => {
    if (total + n > 3) throw new DomainError('group.already_member', 'Too many');
    return [{ type: 'Added', data: { n } }];
  },
};
const ctx = { actorUserId: 'u1' };

describe('decideAndAppend', () => {
  it('folds the whole stream, decides and appends with the expected version', async () => {
    const store = new SqliteEventStore(':memory:');
    await decideAndAppend(store, 'counter-1', counter, { n: 2 }, ctx);
    await decideAndAppend(store, 'counter-1', counter, { n: 1 }, ctx);
    await expect(decideAndAppend(store, 'counter-1', counter, { n: 1 }, ctx)).rejects.toThrow('Too many');
    expect((await store.readStream('counter-1')).map((e) => e.data.n)).toEqual([2, 1]);
    await store.close();
  });

  it('reads only the events it has not folded yet', async () => {
    const store = new SqliteEventStore(':memory:');
    const reads: (number | undefined)[] = [];
    const readStream = store.readStream.bind(store);
    store.readStream = (id, options) => {
      reads.push(options?.afterVersion);
      return readStream(id, options);
    };
    await decideAndAppend(store, 'counter-2', counter, { n: 1 }, ctx);
    await decideAndAppend(store, 'counter-2', counter, { n: 1 }, ctx);
    expect(reads).toEqual([0, 1]);
    await store.close();
  });

  it('sees what another writer appended meanwhile, so a cached state never breaks a rule', async () => {
    const store = new SqliteEventStore(':memory:');
    await decideAndAppend(store, 'counter-3', counter, { n: 2 }, ctx);
    // Another process appends behind this one's back.
    await store.appendToStream('counter-3', [{ type: 'Added', data: { n: 1 }, metadata: { eventId: 'x', schemaVersion: 1, correlationId: 'c', causationId: 'c', actorUserId: 'u2', occurredAt: new Date().toISOString() } }], { expectedVersion: 1 });
    await expect(decideAndAppend(store, 'counter-3', counter, { n: 1 }, ctx)).rejects.toThrow('Too many');
    await store.close();
  });

  it('decides again on a version conflict between reading and appending', async () => {
    const store = new SqliteEventStore(':memory:');
    const results = await Promise.allSettled([1, 1, 1, 1, 1].map((n) => decideAndAppend(store, 'counter-4', counter, { n }, ctx)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.message)).toEqual(['Too many', 'Too many']);
    await store.close();
  });

  it('never conflicts with itself: a burst of 300 commands on one stream in one process is stored whole, in order', async () => {
    const store = new SqliteEventStore(':memory:');
    const unbounded: Decider<number, { n: number }, Added> = { ...counter, decide: ({ n }) => [{ type: 'Added', data: { n } }] };
    const appends = jest.spyOn(store, 'appendToStream');
    await Promise.all(Array.from({ length: 300 }, (_, n) => decideAndAppend(store, 'burst-1', unbounded, { n }, ctx)));
    expect((await store.readStream('burst-1')).map((e) => e.data.n)).toEqual(Array.from({ length: 300 }, (_, n) => n));
    expect(appends).toHaveBeenCalledTimes(300); // not one conflict, so not one retry
    await store.close();
  });

  it('retries a conflict with another process on the same file, and both writers are stored', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'joy-decider-'));
    const a = new SqliteEventStore(join(dir, 'events.sqlite'));
    const b = new SqliteEventStore(join(dir, 'events.sqlite'));
    const unbounded: Decider<number, { n: number }, Added> = { ...counter, decide: ({ n }) => [{ type: 'Added', data: { n } }] };
    await Promise.all(Array.from({ length: 20 }, (_, n) => decideAndAppend(n % 2 ? a : b, 'shared-1', unbounded, { n }, ctx)));
    expect((await a.readStream('shared-1')).map((e) => e.data.n as number).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, n) => n));
    await a.close();
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives up after a bounded number of attempts with a 409 naming the reason, storing nothing', async () => {
    const store = new SqliteEventStore(':memory:');
    const append = jest.spyOn(store, 'appendToStream').mockRejectedValue(new WrongExpectedVersionError('counter-5', 0, 1));
    const refused = decideAndAppend(store, 'counter-5', counter, { n: 1 }, ctx);
    await expect(refused).rejects.toBeInstanceOf(ConcurrencyConflictError);
    await expect(refused).rejects.toMatchObject({ kind: 'conflict', code: 'store.conflict', message: expect.stringMatching(/nothing was saved\. Please try again/) });
    expect(append).toHaveBeenCalledTimes(MAX_ATTEMPTS);
    append.mockRestore();
    expect(await store.readStream('counter-5')).toEqual([]);
    await store.close();
  });

  it('waits a random, growing and capped time before each retry (full jitter)', () => {
    expect(retryDelayMs(2, () => 0)).toBe(0);
    expect(retryDelayMs(2, () => 0.999)).toBe(3);
    expect(retryDelayMs(5, () => 0.999)).toBe(31);
    expect(retryDelayMs(30, () => 0.999)).toBe(99);
  });
});
