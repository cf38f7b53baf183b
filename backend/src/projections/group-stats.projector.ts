import { isoWeekOfDay, latestFirst, ratingDay } from '@joy/domain';
import type { MemberJoined } from '../groups/groups.decider';
import type { RecordedEvent } from '../event-store/event-store.port';
import type { RatingCorrected, RatingSubmitted, RatingWithdrawn } from '../ratings/ratings.decider';
import { withoutMembership } from './groups.projector';
import { dataOf, type Lookup, type MaybePromise, Projector, whenFound, withFields } from './projector';

/** What a group may see of a member's rating: never the factor scores. */
export interface MemberRating {
  id: string;
  userId: string;
  overallScore: number;
  createdAt: string;
  /** Global position of the rating's event: orders ratings newest first without ties. */
  seq: number;
  /**
   * The day it rates, so that a group sees a missed day rated later for what it is; absent for ratings from before
   * days were kept, and in entries projected before 11-27 (they show as before, by the time made).
   */
  day?: string;
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
  doc.recent.map(({ id, overallScore, createdAt, seq, day }) => ({ id, userId: doc.userId, overallScore, createdAt, seq, ...(day ? { day } : {}) }));

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
  /** The latest rating by its day, then its time (`latestFirst`), with its day (absent: its UTC day). */
  latest: MemberRatingEntry | null;
  /** Newest first by the time made, at most MEMBER_RECENT_RATINGS: the activity a group shows. */
  recent: MemberRatingEntry[];
  /** The weeks of the member's group-member-weeks documents (what an account deletion removes); absent: none. */
  weeks?: string[];
}

/**
 * A member who leaves a group drops out of that group's figures (its average of latest scores, its recent
 * ratings) because the group folds only its current members' documents; a deleted account's document goes.
 * Its ratings stay only as anonymous counts and sums in group-weekly-activity. Last in its projection: the
 * weekly projectors look up the member's groups (and on a deletion, weeks) as they were before the event.
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
      const seq = recent.find((r) => r.id === named?.ratingId)?.seq ?? 0;
      const latest = named ? { id: named.ratingId, overallScore: named.overallScore, createdAt: named.submittedAt, seq, ...dayField(named) } : null;
      return { ...current, latest, recent };
    }
    const d = dataOf<RatingSubmitted['data']>(event);
    const rating: MemberRatingEntry = { id: d.ratingId, overallScore: d.overallScore, createdAt: d.submittedAt, seq: event.position, ...dayField(d) };
    const recent = withRecentRating(current.recent, rating);
    // The latest by its day, then its time (latestFirst): a missed day rated today is not how the member is now.
    const latest = current.latest && latestFirst(current.latest, rating) < 0 ? current.latest : rating;
    const week = groupsRatedIn(current, event).length > 0 ? weekOfRating(d) : null;
    if (week === null || current.weeks?.includes(week)) return withFields(current, { latest, recent });
    return withFields(current, { latest, recent, weeks: [...(current.weeks ?? []), week] });
  },
};

/**
 * `list` (newest first, at most MEMBER_RECENT_RATINGS) with `rating` in its place: what sorting the whole list gave,
 * built in one array, each date parsed once (a rebuild does this for every rating). A rating older than every one of
 * a full list is not kept and the list is not walked: an import of a file newest first does that rating after rating.
 */
function withRecentRating(list: MemberRatingEntry[], rating: MemberRatingEntry): MemberRatingEntry[] {
  const at = Date.parse(rating.createdAt);
  const goesBefore = (r: MemberRatingEntry) => (at - Date.parse(r.createdAt) || rating.seq - r.seq) >= 0;
  if (list.length >= MEMBER_RECENT_RATINGS && !goesBefore(list[list.length - 1])) return list;
  const recent: MemberRatingEntry[] = [];
  let placed = false;
  for (const r of list) {
    if (recent.length >= MEMBER_RECENT_RATINGS) break;
    if (r.id === rating.id) continue;
    if (!placed && goesBefore(r)) {
      recent.push(rating);
      placed = true;
      if (recent.length >= MEMBER_RECENT_RATINGS) break;
    }
    recent.push(r);
  }
  if (!placed && recent.length < MEMBER_RECENT_RATINGS) recent.push(rating);
  return recent;
}

/**
 * The ISO week a rating counts in: that of its day in its owner's zone (`ratingDay`, @joy/domain), e.g. `2026-W47`;
 * a rating from before days were kept, the UTC week of its time.
 */
const weekOfRating = (d: { day?: string; submittedAt: string }) => isoWeekOfDay(ratingDay({ day: d.day, createdAt: d.submittedAt }, 'UTC')!).week;

/** A rating's day, as a field to spread (none for ratings from before days were kept). */
const dayField = (d: { day?: string }): { day?: string } => (d.day ? { day: d.day } : {});

/**
 * The groups a submitted rating counts in: those the member had joined before it (a later position), so that a
 * rating replayed by a rebuild does not count in a group joined since.
 */
function groupsRatedIn(member: Pick<GroupMemberStatsDoc, 'groups'> | null, event: RecordedEvent): string[] {
  return (member?.groups ?? []).filter((g) => g.seq < event.position).map((g) => g.groupId);
}

/** Keyed `<groupId>:<week>` (see weeklyActivityId): `evolve` does not learn which of the rating's groups it is
 * evolving, so the group is in the key only. */
export interface GroupWeeklyActivityDoc {
  /** The ISO week its ratings count in (their days), e.g. `2026-W47`. */
  week: string;
  ratingsCount: number;
  /** Distinct members who rated that week. */
  memberIds: string[];
  /** How many of the week's ratings each of `memberIds` made (in the same order): a member whose last one is withdrawn leaves. */
  memberCounts: number[];
  /** Sum of the overall scores in tenths (integers, so the mean has no rounding drift). */
  scoreTenths: number;
  /** Mean overall score of the week's ratings, one decimal. */
  meanScore: number;
}

export const weeklyActivityId = (groupId: string, week: string) => `${groupId}:${week}`;

/** A member's rating that counts in groups, as their week keeps it: what a correction or withdrawal takes out. */
export interface SharedRating {
  id: string;
  /** Overall score in tenths, as last corrected. */
  tenths: number;
  /** The groups it counts in (those the member was in when it was made). */
  groups: string[];
}

/** group-member-weeks, keyed `<userId>:<week>`: the member's ratings of that week that count in a group. */
export interface GroupMemberWeekDoc {
  ratings: SharedRating[];
}

export const memberWeekId = (userId: string, week: string) => `${userId}:${week}`;

const tenthsOf = (overallScore: number) => Math.round(overallScore * 10);

/** The event's rating as its member's week held it before the event; null when it counts in no group. */
function sharedBeforeEvent(event: RecordedEvent, lookup: Lookup): MaybePromise<SharedRating | null> {
  const d = dataOf<{ ratingId: string; userId: string; submittedAt: string; day?: string }>(event);
  const week = lookup<GroupMemberWeekDoc>(groupMemberWeeksProjector.collection, memberWeekId(d.userId, weekOfRating(d)));
  return whenFound(week, (doc) => doc?.ratings.find((r) => r.id === d.ratingId) ?? null);
}

/** The figures of a week with one member's count and the sum moved; no rating left: no document. */
function weekMoved(doc: GroupWeeklyActivityDoc, userId: string, count: -1 | 0 | 1, tenths: number): GroupWeeklyActivityDoc | null {
  const ratingsCount = doc.ratingsCount + count;
  if (ratingsCount <= 0) return null;
  const scoreTenths = doc.scoreTenths + tenths;
  let memberIds = doc.memberIds;
  let memberCounts = doc.memberCounts;
  if (count !== 0) {
    const at = memberIds.indexOf(userId);
    if (at < 0) {
      memberIds = [...memberIds, userId];
      memberCounts = [...memberCounts, count];
    } else if (memberCounts[at] + count <= 0) {
      memberIds = memberIds.filter((_, i) => i !== at);
      memberCounts = memberCounts.filter((_, i) => i !== at);
    } else {
      memberCounts = memberCounts.map((n, i) => (i === at ? n + count : n));
    }
  }
  return { week: doc.week, ratingsCount, memberIds, memberCounts, scoreTenths, meanScore: Math.round(scoreTenths / ratingsCount) / 10 };
}

/**
 * The group weeks an event changes: a submission counts once (an id seen before changes nothing) in the groups the
 * member had joined before it; a correction or withdrawal reaches the groups that counted the rating and that the
 * member is still in (a group they left since keeps it as it was).
 */
function weeksOfGroups(event: RecordedEvent, member: GroupMemberStatsDoc | null, lookup: Lookup): MaybePromise<string[]> {
  // (Most ratings are of people in no group: they cost a lookup here, no more.)
  if (event.type === 'RatingSubmitted' && groupsRatedIn(member, event).length === 0) return [];
  const week = weekOfRating(dataOf<{ submittedAt: string; day?: string }>(event));
  return whenFound(sharedBeforeEvent(event, lookup), (shared) => {
    if (event.type === 'RatingSubmitted') return shared ? [] : groupsRatedIn(member, event).map((g) => weeklyActivityId(g, week));
    const current = new Set((member?.groups ?? []).map((g) => g.groupId));
    return (shared?.groups ?? []).filter((g) => current.has(g)).map((g) => weeklyActivityId(g, week));
  });
}

/**
 * group-weekly-activity: per group and ISO week (UTC), keyed `<groupId>:<week>`: ratings made by members
 * while they were members, as counts and sums. A rating's own score and groups are kept once, in its member's
 * week (group-member-weeks), not in each group's week: a rating then costs each of its groups a count and a sum,
 * however many ratings the week holds (a list per group made a member of 40 groups importing 20,000 ratings hold
 * the server for a minute). First in its projection: its context is the member's week before the event.
 *
 * It depends on the order of the events in `$all` (a rating counts only in the groups whose join it comes
 * after), so a rebuild after the EventStoreDB personal-data migration and a scavenge — where the copied joins
 * come after every earlier rating — counts none of the ratings made before the migration. Making it
 * order-independent would need `evolve` to see the member's earlier ratings when a join arrives (a projector
 * sees only its own document and the event), i.e. a redesign; no endpoint serves this collection, so it is left
 * as a known limit (docs/decisions.md).
 */
export const groupWeeklyActivityProjector: Projector<GroupWeeklyActivityDoc, SharedRating | null> = {
  collection: 'group-weekly-activity',
  eventTypes: ['RatingSubmitted', 'RatingCorrected', 'RatingWithdrawn'],
  // Synchronous when the lookups are (a rebuild's documents in memory): no promise per rating.
  ids(event, lookup) {
    const member = lookup<GroupMemberStatsDoc>(groupMemberStatsProjector.collection, dataOf<{ userId: string }>(event).userId);
    if (member instanceof Promise) return member.then(async (m) => weeksOfGroups(event, m, lookup));
    return weeksOfGroups(event, member, lookup);
  },
  // The score a correction or withdrawal takes out.
  context: (event, lookup) => (event.type === 'RatingSubmitted' ? null : sharedBeforeEvent(event, lookup)),
  evolve(doc, event, shared) {
    const d = dataOf<RatingSubmitted['data']>(event);
    if (event.type === 'RatingSubmitted') {
      const tenths = tenthsOf(d.overallScore);
      if (!doc) return { week: weekOfRating(d), ratingsCount: 1, memberIds: [d.userId], memberCounts: [1], scoreTenths: tenths, meanScore: tenths / 10 };
      return weekMoved(doc, d.userId, 1, tenths);
    }
    if (!doc || !shared) return doc;
    if (event.type === 'RatingWithdrawn') return weekMoved(doc, d.userId, -1, -shared.tenths);
    return weekMoved(doc, d.userId, 0, tenthsOf(dataOf<RatingCorrected['data']>(event).overallScore) - shared.tenths);
  },
};

/**
 * group-member-weeks: per member and ISO week, keyed `<userId>:<week>`: each rating of that week that counts in
 * a group, with its score and those groups; only members' ratings have one. Gone with the account (the weeks are
 * in the member's group-member-stats, which comes after it in the projection).
 */
export const groupMemberWeeksProjector: Projector<GroupMemberWeekDoc, string[]> = {
  collection: 'group-member-weeks',
  eventTypes: ['RatingSubmitted', 'RatingCorrected', 'RatingWithdrawn', 'UserDeleted'],
  ids(event, lookup) {
    const d = dataOf<{ userId: string; submittedAt: string; day?: string }>(event);
    return whenFound(lookup<GroupMemberStatsDoc>(groupMemberStatsProjector.collection, d.userId), (member) => {
      if (event.type === 'UserDeleted') return (member?.weeks ?? []).map((week) => memberWeekId(d.userId, week));
      if (event.type === 'RatingSubmitted' && groupsRatedIn(member, event).length === 0) return [];
      // A correction or withdrawal: only a week the member has (a rating of someone in no group has none).
      const week = weekOfRating(d);
      return event.type === 'RatingSubmitted' || member?.weeks?.includes(week) ? [memberWeekId(d.userId, week)] : [];
    });
  },
  // The groups a submitted rating counts in; for a correction, the groups the member is in now (the ones it reaches).
  context: (event, lookup) =>
    event.type === 'RatingWithdrawn'
      ? []
      : whenFound(lookup<GroupMemberStatsDoc>(groupMemberStatsProjector.collection, dataOf<{ userId: string }>(event).userId), (member) =>
          event.type === 'RatingSubmitted' ? groupsRatedIn(member, event) : (member?.groups ?? []).map((g) => g.groupId),
        ),
  evolve(doc, event, groups) {
    if (event.type === 'UserDeleted') return null;
    const d = dataOf<RatingSubmitted['data']>(event);
    if (event.type === 'RatingSubmitted') {
      if (doc?.ratings.some((r) => r.id === d.ratingId)) return doc;
      return { ratings: [...(doc?.ratings ?? []), { id: d.ratingId, tenths: tenthsOf(d.overallScore), groups }] };
    }
    if (!doc) return doc;
    if (event.type === 'RatingWithdrawn') {
      const ratings = doc.ratings.filter((r) => r.id !== d.ratingId);
      return ratings.length > 0 ? { ratings } : null;
    }
    // A group the member has left since keeps the old score (the correction does not reach it), so it is no longer
    // one of the rating's groups: a later correction or withdrawal, after a rejoin, must not take the new one out of it.
    const tenths = tenthsOf(dataOf<RatingCorrected['data']>(event).overallScore);
    return { ratings: doc.ratings.map((r) => (r.id === d.ratingId ? { ...r, tenths, groups: r.groups.filter((g) => groups.includes(g)) } : r)) };
  },
};
