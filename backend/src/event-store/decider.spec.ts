import { Decider, decideAndAppend, DomainError, DomainEvent } from './decider';
import { SqliteEventStore } from './sqlite-event-store';

type Added = DomainEvent<'Added', { n: number }>;
/** A counter that refuses to go past 3: its decisions depend on every earlier event. */
const counter: Decider<number, { n: number }, Added> = {
  initialState: 0,
  evolve: (total, e) => total + e.data.n,
  decide: ({ n }, total) => {
    if (total + n > 3) throw new DomainError(409, 'Too many');
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
});
