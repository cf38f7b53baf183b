import type { RecordedEvent } from '../../event-store/event-store.port';
import { InMemoryReadModelStore } from '../../read-models/in-memory-read-model-store';
import { recorded } from '../../testing/events';
import type { Projection } from '../projector';
import { whenFound } from '../projector';
import { PROJECTIONS } from '../projections';
import { applyEvent, WorkingSet } from './applier';

const byName = (name: string) => PROJECTIONS.find((p) => p.name === name)!;
const rating = (ratingId: string, userId: string, joy: number, at: string) => ({
  ratingId, userId, relationships: 3, health: 3, purpose: 3, growth: 3, joy, overallScore: (12 + joy) / 5, submittedAt: at,
});
const inStream = (type: string, data: object, position: number, streamVersion: number): RecordedEvent => ({
  ...recorded(type, data, position),
  streamId: `ratings-${(data as { userId: string }).userId}`,
  streamVersion,
});

/** Every document of the collections, as the store answers them. */
async function snapshot(store: InMemoryReadModelStore, collections: string[], ids: string[]) {
  const docs: Record<string, unknown> = {};
  for (const c of collections) for (const id of ids) docs[`${c}/${id}`] = await store.get(c, id);
  return docs;
}

describe('WorkingSet (what a catch-up or a rebuild folds events into)', () => {
  // Ratings of two people, a correction, a withdrawal, a group membership and an account deletion (its ids are
  // found by lookups), applied to the ratings and group-stats projections.
  const events: RecordedEvent[] = [
    recorded('MemberJoined', { groupId: 'g1', userId: 'ada', role: 'member', joinedAt: '2026-11-10T08:00:00Z' }, 1),
    inStream('RatingSubmitted', rating('r1', 'ada', 1, '2026-11-11T08:00:00Z'), 2, 1),
    inStream('RatingSubmitted', rating('r2', 'bob', 4, '2026-11-11T09:00:00Z'), 3, 1),
    inStream('RatingSubmitted', rating('r3', 'ada', 5, '2026-11-12T08:00:00Z'), 4, 2),
    inStream('RatingCorrected', { ...rating('r1', 'ada', 3, '2026-11-11T08:00:00Z'), correctedAt: '2026-11-13T08:00:00Z' }, 5, 3),
    inStream('RatingWithdrawn', { ratingId: 'r3', userId: 'ada', submittedAt: '2026-11-12T08:00:00Z', withdrawnAt: '2026-11-13T09:00:00Z', latest: { ratingId: 'r1', relationships: 3, health: 3, purpose: 3, growth: 3, joy: 3, overallScore: 3, submittedAt: '2026-11-11T08:00:00Z' } }, 6, 4),
    inStream('RatingSubmitted', rating('r4', 'bob', 2, '2026-11-14T08:00:00Z'), 7, 2),
    recorded('UserDeleted', { userId: 'bob', deletedAt: '2026-11-15T08:00:00Z' }, 8),
  ];
  const projections = [byName('ratings'), byName('rating-days'), byName('group-stats')];
  const collections = projections.flatMap((p) => p.projectors.map((x) => x.collection));
  const ids = ['r1', 'r2', 'r3', 'r4', 'ada', 'bob', 'ada:0', 'bob:0', 'g1:2026-W46', 'ada:2026-11-11', 'ada:2026-11-12', 'bob:2026-11-11', 'ada:2026-11-09', 'bob:2026-11-09'];
  /** The store as a server-backed one (MongoDB) offers it: every read a promise, no synchronous access. */
  const remote = (store: InMemoryReadModelStore) =>
    ({ get: (c: string, id: string) => store.get(c, id), put: store.put.bind(store), bulkPut: store.bulkPut.bind(store) }) as unknown as InMemoryReadModelStore;

  it('builds the same documents as applying each event to the store, whatever the batches', async () => {
    const plain = new InMemoryReadModelStore();
    for (const e of events) for (const p of projections) await applyEvent(plain, p, e);
    const expected = await snapshot(plain, collections, ids);
    expect(expected['latest-ratings/ada']).toMatchObject({ id: 'r1', joy: 3 });
    expect(expected['ratings/r4']).toBeNull();
    expect(expected['group-weekly-activity/g1:2026-W46']).toMatchObject({ ratingsCount: 1, memberIds: ['ada'] });
    // r1 (corrected to joy 3) stands, r3 was withdrawn; bob's account went with his totals.
    expect(expected['rating-totals/ada']).toMatchObject({ count: 1, daysTracked: 1, joy: 3, overallTenths: 30 });
    expect(expected['rating-totals/bob']).toBeNull();
    expect(expected['rating-weeks/ada:2026-11-09']).toMatchObject({ days: [{ day: '2026-11-11', count: 1, joy: 3 }] });
    expect(expected['rating-weeks/bob:2026-11-09']).toBeNull();

    for (const every of [1, 3, events.length]) {
      const store = new InMemoryReadModelStore();
      const work = new WorkingSet(store, 2);
      for (const [i, e] of events.entries()) {
        for (const p of projections) await work.apply(p, e);
        if ((i + 1) % every === 0) await work.flush();
      }
      await work.flush();
      expect(await snapshot(store, collections, ids)).toEqual(expected);
    }
  });

  it('builds the same documents on a store read through promises (MongoDB), applied live or in batches', async () => {
    const plain = new InMemoryReadModelStore();
    for (const e of events) for (const p of projections) await applyEvent(plain, p, e);
    const expected = await snapshot(plain, collections, ids);

    const live = new InMemoryReadModelStore();
    for (const e of events) for (const p of projections) await applyEvent(remote(live), p, e);
    expect(await snapshot(live, collections, ids)).toEqual(expected);

    const batched = new InMemoryReadModelStore();
    const work = new WorkingSet(remote(batched), 2);
    for (const [i, e] of events.entries()) {
      for (const p of projections) await work.apply(p, e);
      if (i % 3 === 2) await work.flush();
    }
    await work.flush();
    expect(await snapshot(batched, collections, ids)).toEqual(expected);
  });

  it('does not bring back a document whose deletion the store already has (a replay after a crash)', async () => {
    // b records what a lookup of a's document answers when the event comes.
    const tally: Projection = {
      name: 'tally',
      projectors: [
        { collection: 'a', eventTypes: ['Counted'], ids: () => ['x'], evolve: (doc: { count: number } | null) => ({ count: (doc?.count ?? 0) + 1 }) },
        {
          collection: 'b',
          eventTypes: ['Counted'],
          ids: () => ['x'],
          evolve: () => null,
        },
      ],
    };
    let seen: unknown = 'not looked up';
    tally.projectors[1].ids = (_event, lookup) => whenFound(lookup<{ count: number }>('a', 'x'), (a) => ((seen = a?.count ?? null), ['x']));
    const store = new InMemoryReadModelStore();
    await store.put('a', 'x', null, 10);
    const work = new WorkingSet(store);
    await work.apply(tally, recorded('Counted', {}, 5));
    expect(seen).toBeNull();
    await work.apply(tally, recorded('Counted', {}, 11));
    expect(seen).toEqual(1);
    await work.flush();
    expect(await store.get('a', 'x')).toMatchObject({ _position: 11, count: 1 });
  });
});
