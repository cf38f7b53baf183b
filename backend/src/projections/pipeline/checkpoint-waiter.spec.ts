import { EventEmitter } from 'node:events';
import type { ReadModelStore } from '../../read-models/read-model-store.port';
import type { Projection } from '../projector';
import { CheckpointWaiter } from './checkpoint-waiter';

/** A store of checkpoints only; `failing` makes it throw as a MongoDB in an election does. */
function checkpoints(initial: Record<string, number>) {
  const values = new Map(Object.entries(initial));
  const store = {
    failing: false,
    reads: 0,
    set: (name: string, position: number) => values.set(name, position),
    readModels: {
      getCheckpoint: async (name: string) => {
        store.reads += 1;
        if (store.failing) throw new Error('MongoDB unavailable: reading the checkpoint failed 2 times');
        return values.get(name) ?? 0;
      },
    } as unknown as ReadModelStore,
  };
  return store;
}

const projections = [{ name: 'ratings' }, { name: 'groups' }] as unknown as Projection[];
const types = new Map([
  ['ratings', new Set(['RatingSubmitted'])],
  ['groups', new Set(['MemberJoined'])],
]);

describe('waiting for the read models to show a write', () => {
  it('answers once the projections that handle the event have applied it (moved by another process)', async () => {
    const store = checkpoints({ ratings: 4, groups: 0 });
    const waiter = new CheckpointWaiter(store.readModels, projections, types, new EventEmitter());
    let done = false;
    const wait = waiter.waitFor(5, { eventTypes: ['RatingSubmitted'] }).then(() => (done = true));
    await new Promise((r) => setTimeout(r, 120));
    expect(done).toBe(false);
    store.set('ratings', 5); // groups never reaches 5: it does not handle the event
    await wait;
    expect(done).toBe(true);
  });

  it('answers at once when a consumer of this process reports the checkpoint', async () => {
    const store = checkpoints({ ratings: 0, groups: 0 });
    const progress = new EventEmitter();
    const waiter = new CheckpointWaiter(store.readModels, projections, types, progress);
    const wait = waiter.waitFor(7, { eventTypes: ['MemberJoined'], timeoutMs: 60_000 });
    await new Promise((r) => setTimeout(r, 10));
    progress.emit('checkpoint', 'groups', 7);
    await wait;
    expect(progress.listenerCount('checkpoint')).toBe(0);
  });

  // A review (11-27): the poll's failure went unhandled, and Node ends the process on an unhandled rejection, so a
  // MongoDB election during any command's wait took the API down.
  it('outlasts a store that does not answer for a while, and goes on when it does', async () => {
    const store = checkpoints({ ratings: 0, groups: 0 });
    const waiter = new CheckpointWaiter(store.readModels, projections, types, new EventEmitter());
    store.failing = true;
    const wait = waiter.waitFor(3, { eventTypes: ['RatingSubmitted'], timeoutMs: 10_000 });
    await new Promise((r) => setTimeout(r, 200));
    expect(store.reads).toBeGreaterThan(2);
    store.set('ratings', 3);
    store.failing = false;
    await wait;
  });

  it('answers after its time even when the read models never catch up: the write is stored, and it says nothing else', async () => {
    const store = checkpoints({ ratings: 0, groups: 0 });
    store.failing = true;
    const waiter = new CheckpointWaiter(store.readModels, projections, types, new EventEmitter());
    const started = Date.now();
    await expect(waiter.waitFor(3, { timeoutMs: 150 })).resolves.toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    const readsAtEnd = store.reads;
    await new Promise((r) => setTimeout(r, 150));
    expect(store.reads).toBe(readsAtEnd); // no poll left running after the answer
  });
});
