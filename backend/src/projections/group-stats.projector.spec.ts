import { InMemoryReadModelStore } from '../read-models/in-memory-read-model-store';
import { recorded } from '../testing/events';
import { isoWeekOf } from '@joy/domain';
import { type GroupMemberStatsDoc, MEMBER_RECENT_RATINGS, ratingsOfMember } from './group-stats.projector';

const isoWeek = (instant: string) => isoWeekOf(instant, 'UTC').week;
import { applyEvent } from './pipeline/applier';
import { PROJECTIONS } from './projections';

const stats = PROJECTIONS.find((p) => p.name === 'group-stats')!;
let position = 0;
const rated = (ratingId: string, userId: string, overallScore: number, at: string) =>
  recorded('RatingSubmitted', { ratingId, userId, relationships: 5, health: 5, purpose: 5, growth: 5, joy: 5, overallScore, submittedAt: at }, ++position);
const joined = (groupId: string, userId: string) =>
  recorded('MemberJoined', { groupId, userId, role: 'member', joinedAt: '2026-11-16T08:00:00.000Z' }, ++position);

describe('group-stats projection', () => {
  // Ada rates before joining g1; Bob is in g1 and g2; ratings fall into ISO weeks 47 and 48 of 2026.
  position = 0;
  const events = [
    rated('r1', 'ada', 2.4, '2026-11-16T07:00:00.000Z'), // before Ada joins: her latest once she joins, no weekly activity
    joined('g1', 'bob'),
    joined('g2', 'bob'),
    joined('g1', 'ada'),
    rated('r2', 'bob', 4.2, '2026-11-17T10:00:00.000Z'),
    rated('r3', 'bob', 3.6, '2026-11-22T23:59:59.000Z'), // Sunday: still week 47
    rated('r4', 'ada', 3.1, '2026-11-23T00:00:00.000Z'), // Monday: week 48
  ];
  const project = async (store: InMemoryReadModelStore) => {
    for (const e of events) await applyEvent(store, stats, e);
  };
  const snapshot = async (store: InMemoryReadModelStore) => ({
    ada: await store.get('group-member-stats', 'ada'),
    bob: await store.get('group-member-stats', 'bob'),
    weeks: await Promise.all(['g1:2026-W47', 'g1:2026-W48', 'g2:2026-W47', 'g2:2026-W48'].map((id) => store.get('group-weekly-activity', id))),
  });

  it('keeps per user the groups, the latest rating and the newest ratings (overall score only)', async () => {
    const store = new InMemoryReadModelStore();
    await applyEvent(store, stats, events[0]);
    await applyEvent(store, stats, events[1]);
    await applyEvent(store, stats, events[2]);
    await applyEvent(store, stats, events[3]);
    // Ada's rating from before she joined is there for the group to pick up.
    expect(await store.get('group-member-stats', 'ada')).toMatchObject({
      userId: 'ada',
      groups: [{ groupId: 'g1', seq: 4 }],
      latest: { id: 'r1', overallScore: 2.4, createdAt: '2026-11-16T07:00:00.000Z', seq: 1 },
    });
    for (const e of events.slice(4)) await applyEvent(store, stats, e);
    const bob = await store.get('group-member-stats', 'bob');
    expect(bob).toEqual({
      _id: 'bob', _position: 6,
      userId: 'bob',
      groups: [{ groupId: 'g1', seq: 2 }, { groupId: 'g2', seq: 3 }],
      latest: { id: 'r3', overallScore: 3.6, createdAt: '2026-11-22T23:59:59.000Z', seq: 6 },
      recent: [
        { id: 'r3', overallScore: 3.6, createdAt: '2026-11-22T23:59:59.000Z', seq: 6 },
        { id: 'r2', overallScore: 4.2, createdAt: '2026-11-17T10:00:00.000Z', seq: 5 },
      ],
      // The weeks of Bob's ratings that count in his groups (group-member-weeks).
      weeks: ['2026-W47'],
    });
    expect(JSON.stringify(bob)).not.toMatch(/relationships|health|purpose|growth|"joy"/);
    // The owner is kept once, on the document; a group gets each rating with it.
    expect(ratingsOfMember(bob as unknown as GroupMemberStatsDoc)).toEqual([
      { id: 'r3', userId: 'bob', overallScore: 3.6, createdAt: '2026-11-22T23:59:59.000Z', seq: 6 },
      { id: 'r2', userId: 'bob', overallScore: 4.2, createdAt: '2026-11-17T10:00:00.000Z', seq: 5 },
    ]);
  });

  it('takes each rating’s owner from the document, also for entries written with it (before 11-26)', () => {
    // As such a document was stored: each entry with its owner.
    const entry = { id: 'old', userId: 'cy', overallScore: 3, createdAt: '2026-11-01T08:00:00.000Z', seq: 1 };
    const doc: GroupMemberStatsDoc = { userId: 'cy', groups: [], latest: null, recent: [entry] };
    expect(ratingsOfMember(doc)).toEqual([{ id: 'old', userId: 'cy', overallScore: 3, createdAt: '2026-11-01T08:00:00.000Z', seq: 1 }]);
  });

  it('counts weekly activity per group and ISO week in UTC, only for ratings made as a member', async () => {
    const store = new InMemoryReadModelStore();
    await project(store);
    expect(await store.get('group-weekly-activity', 'g1:2026-W47')).toMatchObject({
      week: '2026-W47', ratingsCount: 2, memberIds: ['bob'], meanScore: 3.9, // Ada's r1 came before she joined
    });
    expect(await store.get('group-weekly-activity', 'g1:2026-W48')).toMatchObject({ ratingsCount: 1, memberIds: ['ada'], meanScore: 3.1 });
    expect(await store.get('group-weekly-activity', 'g2:2026-W47')).toMatchObject({ ratingsCount: 2, memberIds: ['bob'], meanScore: 3.9 });
    expect(await store.get('group-weekly-activity', 'g2:2026-W48')).toBeNull();
  });

  it("counts a rating in the week of its day (the owner's zone), not of the instant it was saved", async () => {
    const store = new InMemoryReadModelStore();
    await project(store);
    // Saved on Monday 23 November (W48) for Sunday 22 November (W47), an earlier day filled in.
    const late = recorded('RatingSubmitted', { ...rated('late', 'bob', 2, '2026-11-23T09:00:00.000Z').data, day: '2026-11-22' }, 100);
    await applyEvent(store, stats, late);
    expect(await store.get('group-weekly-activity', 'g1:2026-W47')).toMatchObject({ ratingsCount: 3 });
    // Its withdrawal names the day, so the same week lets it go.
    const gone = recorded('RatingWithdrawn', { ratingId: 'late', userId: 'bob', submittedAt: '2026-11-23T09:00:00.000Z', day: '2026-11-22', withdrawnAt: '2026-11-24T09:00:00.000Z', latest: null }, 101);
    await applyEvent(store, stats, gone);
    expect(await store.get('group-weekly-activity', 'g1:2026-W47')).toMatchObject({ ratingsCount: 2 });
  });

  it('gives the same documents when the events are applied twice', async () => {
    const store = new InMemoryReadModelStore();
    await project(store);
    const once = await snapshot(store);
    await project(store);
    expect(await snapshot(store)).toEqual(once);
  });

  it('places a rating that comes after newer ones (imported) at its time: the latest stays the newest by time', async () => {
    const store = new InMemoryReadModelStore();
    for (const e of [rated('n1', 'dee', 4, '2026-11-20T08:00:00.000Z'), rated('old', 'dee', 1, '2025-01-05T08:00:00.000Z'), rated('n2', 'dee', 3, '2026-11-21T08:00:00.000Z')]) {
      await applyEvent(store, stats, e);
    }
    const dee = await store.get<{ latest: { id: string }; recent: { id: string }[] }>('group-member-stats', 'dee');
    expect(dee?.latest.id).toBe('n2');
    expect(dee?.recent.map((r) => r.id)).toEqual(['n2', 'n1', 'old']);
  });

  it('keeps as latest the rating of the latest day; a missed day rated later shows in the activity at the time it was made', async () => {
    const store = new InMemoryReadModelStore();
    const missed = recorded('RatingSubmitted', { ratingId: 'missed', userId: 'fay', overallScore: 1, submittedAt: '2026-11-20T21:00:00.000Z', day: '2026-11-15' }, 901);
    for (const e of [joined('g9', 'fay'), rated('today', 'fay', 4, '2026-11-20T08:00:00.000Z'), missed]) await applyEvent(store, stats, e);
    const fay = await store.get<GroupMemberStatsDoc>('group-member-stats', 'fay');
    expect(fay?.latest).toMatchObject({ id: 'today', overallScore: 4 });
    expect(fay?.recent.map((r) => r.id)).toEqual(['missed', 'today']);
    // Each with the day it rates: a group can say the missed one is for its day.
    expect(fay?.recent.map((r) => r.day)).toEqual(['2026-11-15', undefined]);
  });

  it('keeps at most the newest 100 ratings of a user', async () => {
    const store = new InMemoryReadModelStore();
    for (let i = 1; i <= MEMBER_RECENT_RATINGS + 5; i++) {
      await applyEvent(store, stats, recorded('RatingSubmitted', { ratingId: `x${i}`, userId: 'cy', overallScore: 3, submittedAt: '2026-11-20T08:00:00.000Z' }, 1000 + i));
    }
    const doc = (await store.get('group-member-stats', 'cy')) as unknown as { recent: { id: string }[]; latest: { id: string } };
    expect(doc.recent).toHaveLength(MEMBER_RECENT_RATINGS);
    expect(doc.recent[0].id).toBe('x105');
    expect(doc.latest.id).toBe('x105');
  });

  it.each([
    ['newest first, as an export lists them', (i: number) => 300 - i],
    ['oldest first', (i: number) => i],
    ['in no order', (i: number) => (i * 7919) % 301],
  ])('keeps the newest 100 by time whatever order 300 ratings come in (%s)', async (_order, minuteOf) => {
    const store = new InMemoryReadModelStore();
    const all = Array.from({ length: 300 }, (_, i) => ({ id: `m${i}`, at: new Date(Date.UTC(2026, 0, 1, 0, minuteOf(i) % 150)).toISOString(), seq: 5000 + i }));
    for (const r of all) await applyEvent(store, stats, recorded('RatingSubmitted', { ratingId: r.id, userId: 'gus', overallScore: 3, submittedAt: r.at }, r.seq));
    const newest = [...all].sort((a, b) => Date.parse(b.at) - Date.parse(a.at) || b.seq - a.seq).slice(0, MEMBER_RECENT_RATINGS);
    const doc = await store.get<GroupMemberStatsDoc>('group-member-stats', 'gus');
    expect(doc?.recent.map((r) => r.id)).toEqual(newest.map((r) => r.id));
  });

  it.each([
    ['2026-01-01T00:00:00Z', '2026-W01'],
    ['2027-01-01T12:00:00Z', '2026-W53'],
    ['2024-12-30T00:00:00Z', '2025-W01'],
    ['2026-11-22T23:59:59Z', '2026-W47'],
    ['2026-11-23T00:00:00+01:00', '2026-W47'], // 22 Nov 23:00 UTC
  ])('puts %s in ISO week %s (UTC)', (instant, week) => {
    expect(isoWeek(instant)).toBe(week);
  });

  describe('corrections and withdrawals', () => {
    const corrected = (ratingId: string, userId: string, overallScore: number, submittedAt: string) =>
      recorded('RatingCorrected', { ratingId, userId, relationships: 1, health: 1, purpose: 1, growth: 1, joy: 1, overallScore, submittedAt, correctedAt: '2026-11-24T08:00:00.000Z' }, ++position);
    const withdrawn = (ratingId: string, userId: string, submittedAt: string, latest: { ratingId: string; overallScore: number; submittedAt: string } | null) =>
      recorded('RatingWithdrawn', {
        ratingId, userId, submittedAt, withdrawnAt: '2026-11-24T08:00:00.000Z',
        latest: latest && { ...latest, relationships: 1, health: 1, purpose: 1, growth: 1, joy: 1 },
      }, ++position);
    const fresh = async () => {
      const store = new InMemoryReadModelStore();
      await project(store);
      return store;
    };
    const apply = async (store: InMemoryReadModelStore, ...list: ReturnType<typeof recorded>[]) => {
      for (const e of list) await applyEvent(store, stats, e);
    };

    it('a correction changes the member’s latest score and recent ratings, and the week’s figures', async () => {
      const store = await fresh();
      await apply(store, corrected('r3', 'bob', 1.6, '2026-11-22T23:59:59.000Z'), corrected('r2', 'bob', 2.2, '2026-11-17T10:00:00.000Z'));
      expect(await store.get('group-member-stats', 'bob')).toMatchObject({
        latest: { id: 'r3', overallScore: 1.6, seq: 6 },
        recent: [{ id: 'r3', overallScore: 1.6 }, { id: 'r2', overallScore: 2.2 }],
      });
      for (const g of ['g1', 'g2']) {
        expect(await store.get('group-weekly-activity', `${g}:2026-W47`)).toMatchObject({ ratingsCount: 2, memberIds: ['bob'], scoreTenths: 38, meanScore: 1.9 });
      }
    });

    it('a withdrawal drops the rating; the latest is the one the event names; the week counts it no more', async () => {
      const store = await fresh();
      await apply(store, withdrawn('r3', 'bob', '2026-11-22T23:59:59.000Z', { ratingId: 'r2', overallScore: 4.2, submittedAt: '2026-11-17T10:00:00.000Z' }));
      expect(await store.get('group-member-stats', 'bob')).toMatchObject({
        latest: { id: 'r2', overallScore: 4.2, seq: 5 },
        recent: [{ id: 'r2' }],
      });
      expect(await store.get('group-weekly-activity', 'g1:2026-W47')).toMatchObject({ ratingsCount: 1, memberIds: ['bob'], meanScore: 4.2 });
      await apply(store, withdrawn('r2', 'bob', '2026-11-17T10:00:00.000Z', null));
      expect(await store.get('group-member-stats', 'bob')).toMatchObject({ latest: null, recent: [] });
      expect(await store.get('group-weekly-activity', 'g1:2026-W47')).toBeNull();
      expect(await store.get('group-weekly-activity', 'g2:2026-W47')).toBeNull();
      // Ada's week 48 in g1 is untouched.
      expect(await store.get('group-weekly-activity', 'g1:2026-W48')).toMatchObject({ ratingsCount: 1, memberIds: ['ada'] });
    });

    it('a rating made before joining is in no week of the group: its withdrawal changes only the member’s latest', async () => {
      const store = await fresh();
      await apply(store, withdrawn('r4', 'ada', '2026-11-23T00:00:00.000Z', { ratingId: 'r1', overallScore: 2.4, submittedAt: '2026-11-16T07:00:00.000Z' }));
      expect(await store.get('group-member-stats', 'ada')).toMatchObject({ latest: { id: 'r1', overallScore: 2.4 } });
      expect(await store.get('group-weekly-activity', 'g1:2026-W48')).toBeNull();
      await apply(store, corrected('r1', 'ada', 5, '2026-11-16T07:00:00.000Z'));
      expect(await store.get('group-weekly-activity', 'g1:2026-W47')).toMatchObject({ ratingsCount: 2, memberIds: ['bob'] });
      expect(await store.get('group-member-stats', 'ada')).toMatchObject({ latest: { id: 'r1', overallScore: 5 } });
    });

    it('keeps each shared rating once, in its member’s week: a group’s week holds counts and sums however many it counts', async () => {
      const store = await fresh();
      // Bob, in g1 and g2, rates 200 more times in week 47 (as an import of many ratings does).
      const many = Array.from({ length: 200 }, (_, i) => rated(`m${i}`, 'bob', 1 + (i % 5), `2026-11-18T${String(i % 24).padStart(2, '0')}:00:00.000Z`));
      await apply(store, ...many);
      for (const g of ['g1', 'g2']) {
        const week = await store.get('group-weekly-activity', `${g}:2026-W47`);
        expect(week).toMatchObject({ ratingsCount: 202, memberIds: ['bob'], memberCounts: [202], scoreTenths: 42 + 36 + 200 * 30 });
        expect(JSON.stringify(week).length).toBeLessThan(200);
      }
      const bobsWeek = await store.get<{ ratings: { id: string; tenths: number; groups: string[] }[] }>('group-member-weeks', 'bob:2026-W47');
      expect(bobsWeek!.ratings).toHaveLength(202);
      expect(bobsWeek!.ratings[2]).toEqual({ id: 'm0', tenths: 10, groups: ['g1', 'g2'] });
      // A correction moves the sums by the difference from the score kept in the member's week.
      await apply(store, corrected('m0', 'bob', 5, '2026-11-18T00:00:00.000Z'));
      expect(await store.get('group-weekly-activity', 'g2:2026-W47')).toMatchObject({ ratingsCount: 202, scoreTenths: 42 + 36 + 200 * 30 + 40 });
      // Ratings of a person in no group keep no week.
      await apply(store, rated('c1', 'cy', 3, '2026-11-18T08:00:00.000Z'));
      expect(await store.get('group-member-weeks', 'cy:2026-W47')).toBeNull();
      expect(await store.get('group-member-stats', 'cy')).not.toHaveProperty('weeks');
    });

    it('counts a rating once when the same rating comes again (a replayed import)', async () => {
      const store = await fresh();
      await apply(store, rated('r2', 'bob', 4.2, '2026-11-17T10:00:00.000Z'));
      expect(await store.get('group-weekly-activity', 'g1:2026-W47')).toMatchObject({ ratingsCount: 2, scoreTenths: 78 });
      expect((await store.get<{ ratings: unknown[] }>('group-member-weeks', 'bob:2026-W47'))!.ratings).toHaveLength(2);
    });

    it('a member who leaves a group keeps counting there as they were; withdrawing their last rating of a week takes them out of it', async () => {
      const store = await fresh();
      const left = recorded('MemberLeft', { groupId: 'g2', userId: 'bob', leftAt: '2026-11-24T08:00:00.000Z' }, ++position);
      await apply(store, left, withdrawn('r3', 'bob', '2026-11-22T23:59:59.000Z', null), withdrawn('r2', 'bob', '2026-11-17T10:00:00.000Z', null));
      expect(await store.get('group-weekly-activity', 'g2:2026-W47')).toMatchObject({ ratingsCount: 2, memberIds: ['bob'] });
      expect(await store.get('group-weekly-activity', 'g1:2026-W47')).toBeNull();
      expect(await store.get('group-member-weeks', 'bob:2026-W47')).toBeNull();
    });

    it('a correction made while out of a group is not taken out of it after a rejoin (the group never held it)', async () => {
      const store = await fresh();
      const left = recorded('MemberLeft', { groupId: 'g2', userId: 'bob', leftAt: '2026-11-24T08:00:00.000Z' }, ++position);
      // Bob leaves g2, corrects r2 (4.2 → 1.0) while out, rejoins, then corrects it again and withdraws it.
      await apply(store, left, corrected('r2', 'bob', 1, '2026-11-17T10:00:00.000Z'), joined('g2', 'bob'));
      expect(await store.get('group-weekly-activity', 'g2:2026-W47')).toMatchObject({ ratingsCount: 2, scoreTenths: 78, meanScore: 3.9 });
      expect(await store.get('group-weekly-activity', 'g1:2026-W47')).toMatchObject({ ratingsCount: 2, scoreTenths: 46, meanScore: 2.3 });
      await apply(store, corrected('r2', 'bob', 2, '2026-11-17T10:00:00.000Z'));
      expect(await store.get('group-weekly-activity', 'g2:2026-W47')).toMatchObject({ ratingsCount: 2, scoreTenths: 78, meanScore: 3.9 });
      expect(await store.get('group-weekly-activity', 'g1:2026-W47')).toMatchObject({ ratingsCount: 2, scoreTenths: 56, meanScore: 2.8 });
      await apply(store, withdrawn('r2', 'bob', '2026-11-17T10:00:00.000Z', null));
      // g2 keeps r2 as it last held it (4.2): only g1, which followed every change, counts it out.
      expect(await store.get('group-weekly-activity', 'g2:2026-W47')).toMatchObject({ ratingsCount: 2, scoreTenths: 78, meanScore: 3.9 });
      expect(await store.get('group-weekly-activity', 'g1:2026-W47')).toMatchObject({ ratingsCount: 1, scoreTenths: 36, meanScore: 3.6 });
    });

    it('an account deletion removes the member’s weeks; the groups’ weeks keep their anonymous counts', async () => {
      const store = await fresh();
      await apply(store, recorded('UserDeleted', { userId: 'bob', deletedAt: '2026-11-24T08:00:00.000Z' }, ++position));
      expect(await store.get('group-member-weeks', 'bob:2026-W47')).toBeNull();
      expect(await store.get('group-member-stats', 'bob')).toBeNull();
      expect(await store.get('group-weekly-activity', 'g1:2026-W47')).toMatchObject({ ratingsCount: 2, scoreTenths: 78 });
    });
  });
});
