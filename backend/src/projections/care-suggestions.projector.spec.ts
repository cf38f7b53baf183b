import { InMemoryReadModelStore } from '../read-models/in-memory-read-model-store';
import { recorded } from '../testing/events';
import { CareSupportDoc, careSuggestionsProjector } from './care-suggestions.projector';
import { applyEvent } from './pipeline/applier';
import { PROJECTIONS } from './projections';

const projection = PROJECTIONS.find((p) => p.name === 'care-suggestions')!;
const joined = (userId: string, groupId: string, position: number) =>
  recorded('MemberJoined', { groupId, userId, role: 'member', joinedAt: '2026-11-20T08:00:00.000Z' }, position);
const rated = (userId: string, overallScore: number, position: number) =>
  recorded('RatingSubmitted', { ratingId: `r${position}`, userId, relationships: 1, health: 1, purpose: 1, growth: 1, joy: 1, overallScore, submittedAt: `2026-11-20T08:${String(position).padStart(2, '0')}:00.000Z` }, position);

const events = [
  rated('bob', 2, 1), // before joining: counts once he joins
  joined('ada', 'g1', 2),
  joined('bob', 'g1', 3),
  joined('bob', 'g2', 4),
  rated('cy', 1.4, 5), // in no group
  rated('ada', 4.2, 6),
  joined('bob', 'g1', 7), // a duplicate join changes nothing
];

async function project(store: InMemoryReadModelStore, list = events) {
  await store.ensureIndex(careSuggestionsProjector.collection, 'groupIds');
  for (const e of list) await applyEvent(store, projection, e);
}
const needing = async (store: InMemoryReadModelStore, groupId: string) =>
  (await store.find<CareSupportDoc>(careSuggestionsProjector.collection, { groupIds: groupId, needsSupport: true })).map((d) => d.userId);

describe('care-suggestions projection', () => {
  it('keeps each member’s groups and latest score, flagging a score below 3', async () => {
    const store = new InMemoryReadModelStore();
    await project(store);
    expect(await store.get(careSuggestionsProjector.collection, 'bob')).toEqual({
      _id: 'bob', _position: 7,
      userId: 'bob', groupIds: ['g1', 'g2'], latestScore: 2, latestAt: '2026-11-20T08:01:00.000Z', latestRatingId: 'r1', latestSeq: 1, needsSupport: true,
    });
    expect(await store.get(careSuggestionsProjector.collection, 'ada')).toMatchObject({ latestScore: 4.2, needsSupport: false });
    expect(await needing(store, 'g1')).toEqual(['bob']);
    expect(await needing(store, 'g2')).toEqual(['bob']);
  });

  it('drops the suggestion once the member rates 3 or more, and brings it back on a low rating', async () => {
    const store = new InMemoryReadModelStore();
    await project(store, [...events, rated('bob', 3, 8)]);
    expect(await needing(store, 'g1')).toEqual([]);
    await project(store, [rated('bob', 2.8, 9)]);
    expect(await needing(store, 'g1')).toEqual(['bob']);
  });

  it('a member without a rating needs nothing', async () => {
    const store = new InMemoryReadModelStore();
    await project(store, [joined('dan', 'g1', 1)]);
    expect(await store.get(careSuggestionsProjector.collection, 'dan')).toMatchObject({ latestScore: null, needsSupport: false });
  });

  it('gives the same documents when the events are applied twice', async () => {
    const store = new InMemoryReadModelStore();
    await project(store);
    const once = await Promise.all(['ada', 'bob', 'cy'].map((id) => store.get(careSuggestionsProjector.collection, id)));
    await project(store);
    expect(await Promise.all(['ada', 'bob', 'cy'].map((id) => store.get(careSuggestionsProjector.collection, id)))).toEqual(once);
    // evolve itself is pure: the same event on the same document gives the same document.
    const doc = careSuggestionsProjector.evolve(null, events[0]);
    expect(careSuggestionsProjector.evolve(doc, events[0])).toEqual(doc);
  });

  it('keeps the latest score by its time: an older rating that comes later (imported) changes nothing', async () => {
    const store = new InMemoryReadModelStore();
    const old = recorded('RatingSubmitted', { ratingId: 'old', userId: 'bob', relationships: 1, health: 1, purpose: 1, growth: 1, joy: 1, overallScore: 1, submittedAt: '2025-01-05T08:00:00.000Z' }, 20);
    await project(store, [joined('bob', 'g1', 1), rated('bob', 4.2, 2), old]);
    expect(await store.get(careSuggestionsProjector.collection, 'bob')).toMatchObject({ latestScore: 4.2, needsSupport: false });
    expect(await needing(store, 'g1')).toEqual([]);
  });

  it('keeps the latest score of the latest day: a low missed day rated later suggests nothing', async () => {
    const store = new InMemoryReadModelStore();
    const missed = recorded('RatingSubmitted', { ratingId: 'missed', userId: 'bob', relationships: 1, health: 1, purpose: 1, growth: 1, joy: 1, overallScore: 1, submittedAt: '2026-11-20T21:00:00.000Z', day: '2026-11-15' }, 20);
    await project(store, [joined('bob', 'g1', 1), rated('bob', 4.2, 2), missed]);
    expect(await store.get(careSuggestionsProjector.collection, 'bob')).toMatchObject({ latestScore: 4.2, needsSupport: false });
    expect(await needing(store, 'g1')).toEqual([]);
    // A low rating of today (made after the one before) does.
    await project(store, [recorded('RatingSubmitted', { ratingId: 'today', userId: 'bob', relationships: 1, health: 1, purpose: 1, growth: 1, joy: 1, overallScore: 1.4, submittedAt: '2026-11-20T22:00:00.000Z', day: '2026-11-20' }, 21)]);
    expect(await store.get(careSuggestionsProjector.collection, 'bob')).toMatchObject({ latestScore: 1.4, latestDay: '2026-11-20', needsSupport: true });
  });

  it('never suggests someone who declined care actions, whatever they rate afterwards', async () => {
    const store = new InMemoryReadModelStore();
    const declined = recorded('UserSettingsChanged', { userId: 'bob', acceptCareActions: false }, 2);
    await project(store, [joined('bob', 'g1', 1), declined, rated('bob', 1.2, 3)]);
    expect(await store.get(careSuggestionsProjector.collection, 'bob')).toMatchObject({ latestScore: 1.2, needsSupport: true, declinesCare: true });
  });

  describe('corrections and withdrawals', () => {
    const corrected = (userId: string, ratingId: string, overallScore: number, submittedAt: string, position: number) =>
      recorded('RatingCorrected', { ratingId, userId, relationships: 1, health: 1, purpose: 1, growth: 1, joy: 1, overallScore, submittedAt, correctedAt: '2026-11-21T08:00:00.000Z' }, position);
    const withdrawn = (userId: string, ratingId: string, latest: { ratingId: string; overallScore: number; submittedAt: string } | null, position: number) =>
      recorded('RatingWithdrawn', {
        ratingId, userId, submittedAt: '2026-11-20T08:00:00.000Z', withdrawnAt: '2026-11-21T08:00:00.000Z',
        latest: latest && { ...latest, relationships: 1, health: 1, purpose: 1, growth: 1, joy: 1 },
      }, position);

    it('a correction of the latest rating changes the score that counts; of an older one, nothing', async () => {
      const store = new InMemoryReadModelStore();
      await project(store, [...events, rated('bob', 4, 8)]);
      expect(await needing(store, 'g1')).toEqual([]);
      await project(store, [corrected('bob', 'r1', 1.2, '2026-11-20T08:01:00.000Z', 9)]); // older: nothing
      expect(await needing(store, 'g1')).toEqual([]);
      await project(store, [corrected('bob', 'r8', 2.2, '2026-11-20T08:08:00.000Z', 10)]);
      expect(await needing(store, 'g1')).toEqual(['bob']);
      expect(await store.get(careSuggestionsProjector.collection, 'bob')).toMatchObject({ latestScore: 2.2, latestRatingId: 'r8' });
    });

    it('a withdrawal makes the rating the event names the latest; none left, nothing is suggested', async () => {
      const store = new InMemoryReadModelStore();
      await project(store, [...events, rated('bob', 4, 8)]);
      await project(store, [withdrawn('bob', 'r8', { ratingId: 'r1', overallScore: 2, submittedAt: '2026-11-20T08:01:00.000Z' }, 9)]);
      expect(await needing(store, 'g1')).toEqual(['bob']);
      await project(store, [withdrawn('bob', 'r1', null, 10)]);
      expect(await needing(store, 'g1')).toEqual([]);
      expect(await store.get(careSuggestionsProjector.collection, 'bob')).toMatchObject({ groupIds: ['g1', 'g2'], latestScore: null, latestAt: null, needsSupport: false });
    });

    it('a correction reaches a document projected before ratings had ids in it (by the latest time)', () => {
      const old: CareSupportDoc = { userId: 'bob', groupIds: ['g1'], latestScore: 4, latestAt: '2026-11-20T08:08:00.000Z', latestSeq: 8, needsSupport: false };
      expect(careSuggestionsProjector.evolve(old, corrected('bob', 'r8', 1, '2026-11-20T08:08:00.000Z', 9))).toMatchObject({ latestScore: 1, needsSupport: true });
      expect(careSuggestionsProjector.evolve(old, corrected('bob', 'r7', 1, '2026-11-20T08:07:00.000Z', 9))).toEqual(old);
    });
  });
});
