import { InMemoryReadModelStore } from '../read-models/in-memory-read-model-store';
import { recorded } from '../testing/events';
import { applyEvent } from './pipeline/applier';
import { PROJECTIONS } from './projections';

const ratings = PROJECTIONS.find((p) => p.name === 'ratings')!;
const rating = (ratingId: string, userId: string, joy: number, at: string) => ({
  ratingId, userId, relationships: 3, health: 3, purpose: 3, growth: 3, joy, overallScore: (12 + joy) / 5, submittedAt: at,
});

describe('ratings projection', () => {
  it('keeps every rating of a user, newest first, and the latest per user', async () => {
    const store = new InMemoryReadModelStore();
    await store.ensureIndex('ratings', 'userId');
    await applyEvent(store, ratings, recorded('RatingSubmitted', rating('r1', 'ada', 1, '2026-11-19T08:00:00Z'), 1));
    await applyEvent(store, ratings, recorded('RatingSubmitted', rating('r2', 'bob', 5, '2026-11-19T09:00:00Z'), 2));
    await applyEvent(store, ratings, recorded('RatingSubmitted', rating('r3', 'ada', 5, '2026-11-20T08:00:00Z'), 3));

    const adas = await store.find('ratings', { userId: 'ada' }, { sort: { field: 'seq', direction: 'desc' } });
    expect(adas.map((r) => r.id)).toEqual(['r3', 'r1']);
    expect(await store.get('latest-ratings', 'ada')).toMatchObject({ id: 'r3', overallScore: 3.4, joy: 5, createdAt: '2026-11-20T08:00:00Z' });
    expect(await store.get('latest-ratings', 'bob')).toMatchObject({ id: 'r2' });
  });

  it('gives the same documents when an event is applied twice', async () => {
    const store = new InMemoryReadModelStore();
    const first = recorded('RatingSubmitted', rating('r1', 'ada', 2, '2026-11-19T08:00:00Z'), 1);
    const second = recorded('RatingSubmitted', rating('r2', 'ada', 4, '2026-11-20T08:00:00Z'), 2);
    await applyEvent(store, ratings, first);
    await applyEvent(store, ratings, second);
    const once = { latest: await store.get('latest-ratings', 'ada'), r1: await store.get('ratings', 'r1') };
    await applyEvent(store, ratings, first); // a redelivered, older event
    await applyEvent(store, ratings, second);
    expect({ latest: await store.get('latest-ratings', 'ada'), r1: await store.get('ratings', 'r1') }).toEqual(once);
    expect(once.latest).toMatchObject({ id: 'r2' });
  });

  it('keeps the newest rating by its time as the latest when an older one (imported) comes later, with the last stream version', async () => {
    const store = new InMemoryReadModelStore();
    const at = (streamVersion: number, e: ReturnType<typeof recorded>) => ({ ...e, streamVersion });
    await applyEvent(store, ratings, at(1, recorded('RatingSubmitted', rating('r1', 'ada', 4, '2026-11-20T08:00:00.000Z'), 1)));
    await applyEvent(store, ratings, at(2, recorded('RatingSubmitted', rating('old', 'ada', 1, '2025-03-01T08:00:00.000Z'), 2)));
    expect(await store.get('latest-ratings', 'ada')).toMatchObject({ id: 'r1', joy: 4, streamVersion: 2 });
    await applyEvent(store, ratings, at(3, recorded('RatingSubmitted', rating('r3', 'ada', 2, '2026-11-21T08:00:00Z'), 3)));
    expect(await store.get('latest-ratings', 'ada')).toMatchObject({ id: 'r3', streamVersion: 3 });
    // Both are in the list and in the index, so both go with the account.
    expect((await store.find('ratings', { userId: 'ada' })).map((r) => r.id).sort()).toEqual(['old', 'r1', 'r3']);
    await applyEvent(store, ratings, recorded('UserDeleted', { userId: 'ada', deletedAt: '2026-11-22T00:00:00Z' }, 4));
    expect(await store.find('ratings', { userId: 'ada' })).toEqual([]);
  });
});
