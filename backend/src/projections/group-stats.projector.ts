import { isoWeekOfDay, ratingDay } from '@joy/domain';
import type { MemberJoined } from '../groups/groups.decider';
import type { RatingCorrected, RatingSubmitted, RatingWithdrawn } from '../ratings/ratings.decider';
import { withoutMembership } from './groups.projector';
import { dataOf, Projector, whenFound, withFields } from './projector';

/** What a group may see of a member's rating: never the factor scores. */
export interface MemberRating {
  id: string;
  userId: string;
  overallScore: number;
  createdAt: string;
  /** Global position of the rating's event: orders ratings newest first without ties. */
  seq: number;
}

/**
 * A rating as a member's document keeps it: its owner is the document's `userId` (kept once, not in each of the
 * up to 100 entries: a third of the document that every rating writes again). Entries written before 11-26 also
 * carry `userId`; nothing reads it from them.
 */
export type MemberRatingEntry = Omit<MemberRating, 'userId'>;

/**
 * Newest first by the rating's time, then by position: an imported rating (account-import.ts) is placed at the
 * time it was made, not at the end.
 */
export const newestFirst = (a: MemberRatingEntry, b: MemberRatingEntry) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || b.seq - a.seq;

/** A member document's newest ratings with their owner: what a group shows. */
export const ratingsOfMember = (doc: GroupMemberStatsDoc): MemberRating[] =>
  doc.recent.map(({ id, overallScore, createdAt, seq }) => ({ id, userId: doc.userId, overallScore, createdAt, seq }));

/** Newest ratings kept per user: enough for a group's 100 newest ratings and a week's count. */
export const MEMBER_RECENT_RATINGS = 100;

/**
 * group-member-stats: per user (whether or not in a group yet), keyed by user id: the user→groups index of
 * this projection, the latest rating (score and time) and the newest ratings (overall score only).
 *
 * Keeping them per user rather than copied into a per-group document is what lets a rating made before
 * joining count once the user joins: `evolve` sees only its own document and the event, so a per-group
 * document could not pick up a joining member's earlier ratings. A group's figures (average of the members'
 * latest scores, active this week, recent ratings) are folded from its members' documents at query time,
 * which is also where the time-dependent ones ("in the last 7 days") belong.
 */
export interface GroupMemberStatsDoc {
  userId: string;
  /**
   * Groups joined, in the order of the user's stream, with the position of the MemberJoined event projected (for
   * the weekly activity's lookup; a rebuild after the EventStoreDB migration and a scavenge gives the copy's).
   */
  groups: { groupId: string; seq: number }[];
  latest: MemberRatingEntry | null;
  /** Newest first, at most MEMBER_RECENT_RATINGS. */
  recent: MemberRatingEntry[];
}

/**
 * A member who leaves a group drops out of that group's figures (its average of latest scores, its recent
 * ratings) because the group folds only its current members' documents; a deleted account's document goes.
 * Its ratings stay only as anonymous counts and sums in group-weekly-activity.
 */
export const groupMemberStatsProjector: Projector<GroupMemberStatsDoc> = {
  collection: 'group-member-stats',
  eventTypes: ['MemberJoined', 'MemberLeft', 'RatingSubmitted', 'RatingCorrected', 'RatingWithdrawn', 'UserDeleted'],
  ids: (event) => [dataOf<{ userId: string }>(event).userId],
  evolve(doc, event) {
    if (event.type === 'UserDeleted' || event.type === 'MemberLeft') return withoutMembership(doc, event);
    const current: GroupMemberStatsDoc = doc ?? { userId: dataOf<{ userId: string }>(event).userId, groups: [], latest: null, recent: [] };
    if (event.type === 'MemberJoined') {
      const d = dataOf<MemberJoined['data']>(event);
      if (current.groups.some((g) => g.groupId === d.groupId)) return current;
      return { ...current, groups: [...current.groups, { groupId: d.groupId, seq: event.position }] };
    }
    if (event.type === 'RatingCorrected') {
      // The new overall score where the rating shows (latest, recent); its place stays.
      const d = dataOf<RatingCorrected['data']>(event);
      const fix = (r: MemberRatingEntry): MemberRatingEntry => (r.id === d.ratingId ? { ...r, overallScore: d.overallScore } : r);
      return { ...current, latest: current.latest && fix(current.latest), recent: current.recent.map(fix) };
    }
    if (event.type === 'RatingWithdrawn') {
      // Gone from the recent ratings; the latest is the one the event names (found among the recent ones with its
      // position; older than all of them: its position is unknown here, and only `recent` is ordered by it).
      const d = dataOf<RatingWithdrawn['data']>(event);
      const recent = current.recent.filter((r) => r.id !== d.ratingId);
      const named = d.latest;
      const latest = named
        ? (recent.find((r) => r.id === named.ratingId) ?? { id: named.ratingId, overallScore: named.overallScore, createdAt: named.submittedAt, seq: 0 })
        : null;
      return { ...current, latest, recent };
    }
    const d = dataOf<RatingSubmitted['data']>(event);
    const rating: MemberRatingEntry = { id: d.ratingId, overallScore: d.overallScore, createdAt: d.submittedAt, seq: event.position };
    // `recent` is kept newest first: the rating goes in its place (what sorting the whole list gave, without
    // parsing every date of it for each rating), built in one array (a rebuild does this for every rating).
    const recent: MemberRatingEntry[] = [];
    let placed = false;
    for (const r of current.recent) {
      if (recent.length >= MEMBER_RECENT_RATINGS) break;
      if (r.id === rating.id) continue;
      if (!placed && newestFirst(r, rating) >= 0) {
        recent.push(rating);
        placed = true;
        if (recent.length >= MEMBER_RECENT_RATINGS) break;
      }
      recent.push(r);
    }
    if (!placed && recent.length < MEMBER_RECENT_RATINGS) recent.push(rating);
    return withFields(current, { latest: recent[0], recent });
  },
};

/**
 * The ISO week a rating counts in: that of its day in its owner's zone (`ratingDay`, @joy/domain), e.g. `2026-W47`;
 * a rating from before days were kept, the UTC week of its time.
 */
const weekOfRating = (d: { day?: string; submittedAt: string }) => isoWeekOfDay(ratingDay({ day: d.day, createdAt: d.submittedAt }, 'UTC')!).week;

/** Keyed `<groupId>:<week>` (see weeklyActivityId): `evolve` does not learn which of the rating's groups it is
 * evolving, so the group is in the key only. */
export interface GroupWeeklyActivityDoc {
  /** The ISO week its ratings count in (their days), e.g. `2026-W47`. */
  week: string;
  ratingsCount: number;
  /** Distinct members who rated that week. */
  memberIds: string[];
  /** Sum of the overall scores in tenths (integers, so the mean has no rounding drift). */
  scoreTenths: number;
  /** Mean overall score of the week's ratings, one decimal. */
  meanScore: number;
  /**
   * The week's ratings (id, author, score in tenths), from which the figures above are derived, so that a
   * correction or a withdrawal can change them. Absent on documents projected before corrections existed: those
   * only count on (`npm run projections -- rebuild group-stats` gives them the list).
   */
  ratings?: WeeklyRating[];
}

export interface WeeklyRating {
  id: string;
  userId: string;
  tenths: number;
}

/** The figures of a week from its ratings; no rating left: no document. */
function weekOf(week: string, ratings: WeeklyRating[]): GroupWeeklyActivityDoc | null {
  if (ratings.length === 0) return null;
  const scoreTenths = ratings.reduce((sum, r) => sum + r.tenths, 0);
  return {
    week,
    ratingsCount: ratings.length,
    memberIds: [...new Set(ratings.map((r) => r.userId))],
    scoreTenths,
    meanScore: Math.round(scoreTenths / ratings.length) / 10,
    ratings,
  };
}

export const weeklyActivityId = (groupId: string, week: string) => `${groupId}:${week}`;

/**
 * group-weekly-activity: per group and ISO week (UTC), keyed `<groupId>:<week>`: ratings made by members
 * while they were members. The member's groups come from group-member-stats (same projection, so it has seen
 * every earlier event); a group joined after the rating (a later position) is left out, which keeps a
 * replayed rating from counting in a group joined since.
 *
 * It depends on the order of the events in `$all` (a rating counts only in the groups whose join it comes
 * after), so a rebuild after the EventStoreDB personal-data migration and a scavenge — where the copied joins
 * come after every earlier rating — counts none of the ratings made before the migration. Making it
 * order-independent would need `evolve` to see the member's earlier ratings when a join arrives (a projector
 * sees only its own document and the event), i.e. a redesign; no endpoint serves this collection, so it is left
 * as a known limit (docs/decisions.md).
 */
export const groupWeeklyActivityProjector: Projector<GroupWeeklyActivityDoc> = {
  collection: 'group-weekly-activity',
  eventTypes: ['RatingSubmitted', 'RatingCorrected', 'RatingWithdrawn'],
  // Synchronous when the lookup is (a rebuild's documents in memory): no promise per rating.
  ids(event, lookup) {
    const d = dataOf<{ userId: string; submittedAt: string; day?: string }>(event);
    return whenFound(lookup<GroupMemberStatsDoc>(groupMemberStatsProjector.collection, d.userId), (member) => {
      // A correction or withdrawal: the week of the rating in each group the member is in (evolve changes only
      // the documents that hold the rating). A group they left since keeps counting the rating as it was.
      const groups = event.type === 'RatingSubmitted' ? (member?.groups ?? []).filter((g) => g.seq < event.position) : (member?.groups ?? []);
      if (groups.length === 0) return [];
      const week = weekOfRating(d);
      return groups.map((g) => weeklyActivityId(g.groupId, week));
    });
  },
  evolve(doc, event) {
    if (event.type !== 'RatingSubmitted') {
      const { ratingId } = dataOf<{ ratingId: string }>(event);
      if (!doc?.ratings?.some((r) => r.id === ratingId)) return doc;
      if (event.type === 'RatingWithdrawn') return weekOf(doc.week, doc.ratings.filter((r) => r.id !== ratingId));
      const tenths = Math.round(dataOf<RatingCorrected['data']>(event).overallScore * 10);
      return weekOf(doc.week, doc.ratings.map((r) => (r.id === ratingId ? { ...r, tenths } : r)));
    }
    const d = dataOf<RatingSubmitted['data']>(event);
    const rating: WeeklyRating = { id: d.ratingId, userId: d.userId, tenths: Math.round(d.overallScore * 10) };
    if (!doc) return weekOf(weekOfRating(d), [rating]);
    if (doc.ratings) return doc.ratings.some((r) => r.id === rating.id) ? doc : weekOf(doc.week, [...doc.ratings, rating]);
    // A document from before the list: counts on as it did.
    const current = doc;
    const ratingsCount = current.ratingsCount + 1;
    const scoreTenths = current.scoreTenths + Math.round(d.overallScore * 10);
    return {
      week: current.week,
      ratingsCount,
      memberIds: current.memberIds.includes(d.userId) ? current.memberIds : [...current.memberIds, d.userId],
      scoreTenths,
      meanScore: Math.round(scoreTenths / ratingsCount) / 10,
    };
  },
};
