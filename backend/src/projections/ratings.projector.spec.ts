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
});
