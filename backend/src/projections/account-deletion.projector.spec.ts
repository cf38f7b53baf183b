import { InMemoryReadModelStore } from '../read-models/in-memory-read-model-store';
import type { RecordedEvent } from '../event-store/event-store.port';
import { recorded } from '../testing/events';
import { applyEvent } from './pipeline/applier';
import { PROJECTIONS } from './projections';
import { RATING_INDEX_CHUNK } from './ratings.projector';

/*
 * MemberLeft and UserDeleted across the projections (given events, then documents; twice gives the same):
 * Ada and Bob are in g1, Ada also in g2; Ada deletes her account.
 */
let position = 0;
const at = '2026-11-20T08:00:00.000Z';
const ev = (type: string, data: object, streamVersion = 1): RecordedEvent => ({ ...recorded(type, data, ++position, at), streamVersion });
const rating = (id: string, userId: string, score: number, streamVersion: number) =>
  ev('RatingSubmitted', { ratingId: id, userId, relationships: score, health: score, purpose: score, growth: score, joy: score, overallScore: score, submittedAt: at }, streamVersion);

function scenario(adaRatings = 3) {
  position = 0;
  const given = [
    ev('UserRegistered', { userId: 'ada', issuer: 'i', subject: 'enc:v1:a:b:c', email: 'enc:v1:a:b:c', firstName: 'enc:v1:a:b:c', profileImageUrl: null }),
    ev('UserRegistered', { userId: 'bob', issuer: 'i', subject: 's', email: 'bob@example.com', firstName: 'Bob', profileImageUrl: null }),
    ev('GroupCreated', { groupId: 'g1', name: 'Family', description: null, inviteCode: 'ABCD2345', createdBy: 'ada', createdAt: at }),
    ev('MemberJoined', { groupId: 'g1', userId: 'ada', role: 'creator', joinedAt: at }),
    ev('MemberJoined', { groupId: 'g1', userId: 'bob', role: 'member', joinedAt: at }),
    ev('GroupCreated', { groupId: 'g2', name: 'Friends', description: null, inviteCode: 'EFGH6789', createdBy: 'ada', createdAt: at }),
    ev('MemberJoined', { groupId: 'g2', userId: 'ada', role: 'creator', joinedAt: at }),
    ...Array.from({ length: adaRatings }, (_, i) => rating(`a${i + 1}`, 'ada', 2, i + 1)),
    rating('b1', 'bob', 4, 1),
    ev('SubscriptionActivated', { userId: 'ada', provider: 'sandbox', customerId: 'c', subscriptionId: 's1', currentPeriodEnd: '2026-12-20T08:00:00.000Z', activatedAt: at }),
  ];
  const when = [
    ev('SubscriptionEnded', { userId: 'ada', subscriptionId: 's1', endedAt: at, reason: 'canceled' }),
    ev('MemberLeft', { groupId: 'g1', userId: 'ada', reason: 'account_deleted', leftAt: at }),
    ev('MemberLeft', { groupId: 'g2', userId: 'ada', reason: 'account_deleted', leftAt: at }),
    ev('UserDeleted', { userId: 'ada', deletedAt: at }),
  ];
  return { given, when };
}

async function project(store: InMemoryReadModelStore, events: RecordedEvent[]) {
  for (const projection of PROJECTIONS) {
    for (const collection of new Set(projection.projectors.flatMap((p) => (p.indexes ?? []).map((i) => [p.collection, i] as const)))) {
      await store.ensureIndex(collection[0], collection[1]);
    }
    for (const event of events) await applyEvent(store, projection, event);
  }
}

const snapshot = async (store: InMemoryReadModelStore) => ({
  g1: await store.get('groups', 'g1'),
  g2: await store.get('groups', 'g2'),
  memberships: [await store.get('memberships', 'ada'), await store.get('memberships', 'bob')],
  profiles: [await store.get('user-profiles', 'ada'), await store.get('user-profiles', 'bob')],
  stats: [await store.get('group-member-stats', 'ada'), await store.get('group-member-stats', 'bob')],
  care: [await store.get('care-suggestions', 'ada'), await store.get('care-suggestions', 'bob')],
  ratings: [await store.find('ratings', { userId: 'ada' }), await store.find('ratings', { userId: 'bob' })],
  latest: [await store.get('latest-ratings', 'ada'), await store.get('latest-ratings', 'bob')],
  subscription: await store.get('subscriptions', 'ada'),
});

describe('projections: a member leaves, an account is deleted', () => {
  it("drops the member from the groups, their figures and suggestions, keeps everyone else's documents", async () => {
    const { given, when } = scenario();
    const store = new InMemoryReadModelStore();
    await project(store, given);
    expect((await store.get<{ members: { userId: string }[] }>('groups', 'g1'))!.members.map((m) => m.userId)).toEqual(['ada', 'bob']);
    expect(await store.find('care-suggestions', { groupIds: 'g1', needsSupport: true })).toHaveLength(1);
    expect(await store.find('ratings', { userId: 'ada' })).toHaveLength(3);

    await project(store, when);
    const after = await snapshot(store);
    expect(after.g1).toMatchObject({ id: 'g1', name: 'Family', members: [{ userId: 'bob', role: 'member' }] });
    expect(after.g2).toMatchObject({ id: 'g2', members: [] });
    expect(after.memberships[0]).toBeNull();
    expect(after.memberships[1]).toMatchObject({ userId: 'bob', groups: [{ groupId: 'g1' }] });
    expect(after.profiles[0]).toBeNull();
    expect(after.profiles[1]).toMatchObject({ id: 'bob', firstName: 'Bob' });
    expect(after.stats[0]).toBeNull();
    expect(after.stats[1]).toMatchObject({ userId: 'bob', groups: [{ groupId: 'g1' }], latest: { id: 'b1', overallScore: 4 } });
    expect(after.care[0]).toBeNull();
    expect(await store.find('care-suggestions', { groupIds: 'g1', needsSupport: true })).toEqual([]);
    expect(after.ratings[0]).toEqual([]);
    expect(after.ratings[1]).toEqual([expect.objectContaining({ id: 'b1' })]);
    expect(after.latest[0]).toBeNull();
    expect(after.latest[1]).toMatchObject({ id: 'b1' });
    expect(after.subscription).toBeNull();
    // The weekly counts of g1 keep her ratings only as numbers (made while she was a member).
    const weekly = await store.find<{ ratingsCount: number }>('group-weekly-activity', {});
    expect(weekly.reduce((n, w) => n + w.ratingsCount, 0)).toBeGreaterThan(0);
  });

  it('gives the same documents when the events are applied twice', async () => {
    const { given, when } = scenario();
    const store = new InMemoryReadModelStore();
    await project(store, [...given, ...when]);
    const once = await snapshot(store);
    await project(store, [...given, ...when]);
    expect(await snapshot(store)).toEqual(once);
  });

  it(`deletes every rating of a person with more than one index chunk (${RATING_INDEX_CHUNK} ids each)`, async () => {
    const { given, when } = scenario(RATING_INDEX_CHUNK * 2 + 7);
    const store = new InMemoryReadModelStore();
    await project(store, given);
    expect(await store.find('ratings', { userId: 'ada' })).toHaveLength(RATING_INDEX_CHUNK * 2 + 7);
    expect(await store.get('rating-index', 'ada:2')).toMatchObject({ ratingIds: expect.arrayContaining([`a${RATING_INDEX_CHUNK * 2 + 7}`]) });
    await project(store, when);
    expect(await store.find('ratings', { userId: 'ada' })).toEqual([]);
    for (const chunk of ['ada:0', 'ada:1', 'ada:2']) expect(await store.get('rating-index', chunk)).toBeNull();
    expect(await store.find('ratings', { userId: 'bob' })).toHaveLength(1);
  });
});
