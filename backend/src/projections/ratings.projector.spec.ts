import { InMemoryReadModelStore } from '../read-models/in-memory-read-model-store';
import { recorded } from '../testing/events';
import { applyEvent } from './pipeline/applier';
import { PROJECTIONS } from './projections';
import { RATING_INDEX_CHUNK } from './ratings.projector';

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

  describe('corrections and withdrawals', () => {
    // Events of Ada's stream ratings-ada with their stream versions, as the store records them.
    const inStream = (type: string, data: object, position: number, streamVersion = position) => ({ ...recorded(type, data, position), streamId: 'ratings-ada', streamVersion });
    const submitted = (id: string, joy: number, position: number, streamVersion = position) =>
      inStream('RatingSubmitted', rating(id, 'ada', joy, `2026-11-${String(10 + position).padStart(2, '0')}T08:00:00Z`), position, streamVersion);
    const corrected = (id: string, joy: number, submittedAt: string, position: number, streamVersion = position) =>
      inStream('RatingCorrected', { ...rating(id, 'ada', joy, submittedAt), correctedAt: '2026-11-30T08:00:00Z' }, position, streamVersion);
    const withdrawn = (id: string, latest: ReturnType<typeof rating> | null, position: number, streamVersion = position) => {
      const facts = latest && (({ userId: _u, ...rest }) => rest)(latest);
      return inStream('RatingWithdrawn', { ratingId: id, userId: 'ada', submittedAt: '2026-11-11T08:00:00Z', withdrawnAt: '2026-11-30T08:00:00Z', latest: facts }, position, streamVersion);
    };
    const list = async (store: InMemoryReadModelStore) =>
      (await store.find<{ id: string; joy: number }>('ratings', { userId: 'ada' }, { sort: { field: 'seq', direction: 'desc' } })).map((r) => `${r.id}:${r.joy}`);
    const apply = async (store: InMemoryReadModelStore, ...events: ReturnType<typeof recorded>[]) => {
      for (const e of events) await applyEvent(store, ratings, e);
    };

    it('a correction changes the rating in the list, in its place, and the latest when it is the latest', async () => {
      const store = new InMemoryReadModelStore();
      await store.ensureIndex('ratings', 'userId');
      await apply(store, submitted('r1', 1, 1), submitted('r2', 2, 2), corrected('r1', 5, '2026-11-11T08:00:00Z', 3));
      expect(await list(store)).toEqual(['r2:2', 'r1:5']);
      expect(await store.get('ratings', 'r1')).toMatchObject({ overallScore: 3.4, createdAt: '2026-11-11T08:00:00Z', seq: 1 });
      expect(await store.get('latest-ratings', 'ada')).toMatchObject({ id: 'r2', joy: 2 });
      await apply(store, corrected('r2', 4, '2026-11-12T08:00:00Z', 4));
      expect(await store.get('latest-ratings', 'ada')).toMatchObject({ id: 'r2', joy: 4, overallScore: 3.2, createdAt: '2026-11-12T08:00:00Z', streamVersion: 2 });
    });

    it('a withdrawal takes the rating out of the list; the latest becomes the one the event names, or none', async () => {
      const store = new InMemoryReadModelStore();
      await store.ensureIndex('ratings', 'userId');
      await apply(store, submitted('r1', 1, 1), submitted('r2', 2, 2), submitted('r3', 3, 3));
      await apply(store, withdrawn('r2', rating('r3', 'ada', 3, '2026-11-13T08:00:00Z'), 4));
      expect(await list(store)).toEqual(['r3:3', 'r1:1']);
      expect(await store.get('latest-ratings', 'ada')).toMatchObject({ id: 'r3', streamVersion: 3 });
      await apply(store, withdrawn('r3', rating('r1', 'ada', 1, '2026-11-11T08:00:00Z'), 5));
      expect(await store.get('latest-ratings', 'ada')).toMatchObject({ id: 'r1', joy: 1, createdAt: '2026-11-11T08:00:00Z', streamVersion: 3 });
      await apply(store, withdrawn('r1', null, 6));
      expect(await list(store)).toEqual([]);
      expect(await store.get('latest-ratings', 'ada')).toBeNull();
      expect(await store.get('rating-index', 'ada:0')).toBeNull();
    });

    it('leaves no index chunk behind: an account deleted after its newest ratings were withdrawn loses every rating', async () => {
      const store = new InMemoryReadModelStore();
      await store.ensureIndex('ratings', 'userId');
      const older = submitted('old', 3, 1, RATING_INDEX_CHUNK); // the last id of chunk 0
      const newer = submitted('new', 4, 2, RATING_INDEX_CHUNK + 1); // the first of chunk 1
      await apply(store, older, newer, withdrawn('new', rating('old', 'ada', 3, '2026-11-11T08:00:00Z'), 3, RATING_INDEX_CHUNK + 2));
      expect(await store.get('rating-index', `ada:1`)).toBeNull();
      expect(await store.get('rating-index', `ada:0`)).toMatchObject({ ratingIds: ['old'] });
      await apply(store, recorded('UserDeleted', { userId: 'ada', deletedAt: '2026-12-01T00:00:00Z' }, 4));
      expect(await list(store)).toEqual([]);
      expect(await store.get('rating-index', `ada:0`)).toBeNull();
      expect(await store.get('latest-ratings', 'ada')).toBeNull();
    });

    it('keeps working on an index built in chunks of 500 ids (before they were 100): a withdrawal finds its id there, and the account takes every rating', async () => {
      const store = new InMemoryReadModelStore();
      await store.ensureIndex('ratings', 'userId');
      await apply(store, submitted('a450', 3, 1, 450), submitted('a520', 4, 2, 520));
      // As the index was written before: stream versions 1-500 in chunk 0, 501-1000 in chunk 1.
      for (const id of ['ada:4', 'ada:5']) await store.put('rating-index', id, null, 2);
      await store.put('rating-index', 'ada:0', { userId: 'ada', ratingIds: ['a450'] }, 1);
      await store.put('rating-index', 'ada:1', { userId: 'ada', ratingIds: ['a520'] }, 2);
      await apply(store, submitted('a521', 5, 3, 521), withdrawn('a520', rating('a521', 'ada', 5, '2026-11-13T08:00:00Z'), 4, 522));
      expect(await list(store)).toEqual(['a521:5', 'a450:3']);
      expect(await store.get('rating-index', 'ada:1')).toBeNull();
      expect(await store.get('rating-index', 'ada:5')).toMatchObject({ ratingIds: ['a521'] });
      await apply(store, recorded('UserDeleted', { userId: 'ada', deletedAt: '2026-12-01T00:00:00Z' }, 5));
      expect(await list(store)).toEqual([]);
      for (const id of ['ada:0', 'ada:5']) expect(await store.get('rating-index', id)).toBeNull();
    });

    it('gives the same documents when a correction or withdrawal is applied twice', async () => {
      const store = new InMemoryReadModelStore();
      await store.ensureIndex('ratings', 'userId');
      const events = [submitted('r1', 1, 1), submitted('r2', 2, 2), corrected('r1', 5, '2026-11-11T08:00:00Z', 3), withdrawn('r2', rating('r1', 'ada', 5, '2026-11-11T08:00:00Z'), 4)];
      await apply(store, ...events);
      const once = { list: await list(store), latest: await store.get('latest-ratings', 'ada') };
      await apply(store, ...events);
      expect({ list: await list(store), latest: await store.get('latest-ratings', 'ada') }).toEqual(once);
      expect(once).toMatchObject({ list: ['r1:5'], latest: { id: 'r1', joy: 5 } });
    });
  });
});
