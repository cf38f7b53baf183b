import { isoWeekOf } from '@joy/domain';
import type { MemberJoined } from '../groups/groups.decider';
import type { RatingSubmitted } from '../ratings/ratings.decider';
import { withoutMembership } from './groups.projector';
import { dataOf, Projector } from './projector';

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
 * Newest first by the rating's time, then by position: an imported rating (account-import.ts) is placed at the
 * time it was made, not at the end.
 */
export const newestFirst = (a: MemberRating, b: MemberRating) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || b.seq - a.seq;

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
  latest: MemberRating | null;
  /** Newest first, at most MEMBER_RECENT_RATINGS. */
  recent: MemberRating[];
}

/**
 * A member who leaves a group drops out of that group's figures (its average of latest scores, its recent
 * ratings) because the group folds only its current members' documents; a deleted account's document goes.
 * Its ratings stay only as anonymous counts and sums in group-weekly-activity.
 */
export const groupMemberStatsProjector: Projector<GroupMemberStatsDoc> = {
  collection: 'group-member-stats',
  eventTypes: ['MemberJoined', 'MemberLeft', 'RatingSubmitted', 'UserDeleted'],
  ids: (event) => [dataOf<{ userId: string }>(event).userId],
  evolve(doc, event) {
    if (event.type === 'UserDeleted' || event.type === 'MemberLeft') return withoutMembership(doc, event);
    const current: GroupMemberStatsDoc = doc ?? { userId: dataOf<{ userId: string }>(event).userId, groups: [], latest: null, recent: [] };
    if (event.type === 'MemberJoined') {
      const d = dataOf<MemberJoined['data']>(event);
      if (current.groups.some((g) => g.groupId === d.groupId)) return current;
      return { ...current, groups: [...current.groups, { groupId: d.groupId, seq: event.position }] };
    }
    const d = dataOf<RatingSubmitted['data']>(event);
    const rating: MemberRating = { id: d.ratingId, userId: d.userId, overallScore: d.overallScore, createdAt: d.submittedAt, seq: event.position };
    const recent = [rating, ...current.recent.filter((r) => r.id !== rating.id)]
      .sort(newestFirst)
      .slice(0, MEMBER_RECENT_RATINGS);
    return { ...current, latest: recent[0], recent };
  },
};

/** The ISO week of an instant, in UTC: `2026-W47` (the one definition of a week, @joy/domain). */
const utcWeek = (instant: string) => isoWeekOf(instant, 'UTC').week;

/** Keyed `<groupId>:<week>` (see weeklyActivityId): `evolve` does not learn which of the rating's groups it is
 * evolving, so the group is in the key only. */
export interface GroupWeeklyActivityDoc {
  /** ISO week in UTC, e.g. `2026-W47`. */
  week: string;
  ratingsCount: number;
  /** Distinct members who rated that week. */
  memberIds: string[];
  /** Sum of the overall scores in tenths (integers, so the mean has no rounding drift). */
  scoreTenths: number;
  /** Mean overall score of the week's ratings, one decimal. */
  meanScore: number;
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
  eventTypes: ['RatingSubmitted'],
  async ids(event, lookup) {
    const d = dataOf<RatingSubmitted['data']>(event);
    const member = await lookup<GroupMemberStatsDoc>(groupMemberStatsProjector.collection, d.userId);
    const week = utcWeek(d.submittedAt);
    return (member?.groups ?? []).filter((g) => g.seq < event.position).map((g) => weeklyActivityId(g.groupId, week));
  },
  evolve(doc, event) {
    const d = dataOf<RatingSubmitted['data']>(event);
    const current: GroupWeeklyActivityDoc = doc ?? {
      week: utcWeek(d.submittedAt),
      ratingsCount: 0,
      memberIds: [],
      scoreTenths: 0,
      meanScore: 0,
    };
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
