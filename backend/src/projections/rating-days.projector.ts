import { addDays, type DaySums, dayNumber, FACTOR_NAMES, isoWeekOfDay, noRatingTotals, type RatingTotals, tenthsOf, withDaySums } from '@joy/domain';
import type { UserDeleted } from '../identity/identity.decider';
import { dayOfStoredRating } from '../ratings/rating-events';
import type { RatingCorrected, RatingSubmitted } from '../ratings/ratings.decider';
import type { RecordedEvent } from '../event-store/event-store.port';
import { dataOf, type Lookup, type MaybePromise, type Projector, whenFound } from './projector';

/**
 * One standing rating of a day, as the day's document keeps it: what a correction replaces and a withdrawal takes
 * out of the sums (the events carry the new values only). `[ratingId, submittedAt, overall × 10, relationships,
 * health, purpose, growth, joy]`: a tuple, so a day of many ratings stays small.
 */
export type DayRatingEntry = [string, string, number, number, number, number, number, number];

/**
 * One rated day as its week's document keeps it (the ratings' own day, `YYYY-MM-DD` in the person's zone): the count
 * and the sums of the day's standing ratings (DaySums), the time of its earliest, and each rating's values. The
 * summary of a range (GET /api/joy-ratings/summary?from=&to=), the calendar and the analytics read these instead
 * of every rating; rating-totals is kept from them.
 */
export interface RatedDay extends DaySums {
  /** The `submittedAt` of the day's earliest standing rating. */
  firstAt: string;
  ratings: DayRatingEntry[];
}

/** rating-totals: per person (keyed by user id), the count and sums of all their standing ratings and how many days they rated. */
export interface RatingTotalsDoc extends RatingTotals {
  userId: string;
}

/**
 * rating-weeks: per person and ISO week (keyed `<userId>:<the week's Monday>`, weekDocId), each rated day of the
 * week. A week rather than a document per day: a rating then writes one document where it wrote two, which is most
 * of what a rebuild costs (docs/decisions.md, "Rebuild speed"); a week of a person who rates often stays a few KB.
 */
export interface RatingWeekDoc {
  userId: string;
  weekStart: string;
  /** Oldest day first; only days with ratings. */
  days: RatedDay[];
}

/** rating-day-span: per person (keyed by user id), their first and last rated day: which week documents an account deletion removes. */
export interface RatingDaySpanDoc {
  userId: string;
  first: string;
  last: string;
}

/** The id of the week document that holds a person's day. */
export const weekDocId = (userId: string, day: string) => `${userId}:${mondayOf(day)}`;

/** The Monday of a day's ISO week, remembered per day: a rebuild asks twice per event, and there are few days. */
const mondays = new Map<string, string>();
export function mondayOf(day: string): string {
  let monday = mondays.get(day);
  if (monday === undefined) mondays.set(day, (monday = isoWeekOfDay(day).weekStart));
  return monday;
}

type RatingFields = { ratingId: string; userId: string; submittedAt: string; day?: string };

/** The day a rating event counts on: its own, or (events from before days were kept) the UTC day of its time. */
const dayOfEvent = (d: RatingFields) => dayOfStoredRating(d);

function entryOf(d: RatingSubmitted['data'] | RatingCorrected['data']): DayRatingEntry {
  return [d.ratingId, d.submittedAt, tenthsOf(d.overallScore), d.relationships, d.health, d.purpose, d.growth, d.joy];
}

/**
 * The day with these entries: sums recomputed from them (a day holds a handful), none left: gone.
 * `firstAt` when the caller knows it: working it out parses every entry's time, costly on a day of many ratings.
 */
function withEntries(day: string, ratings: DayRatingEntry[], firstAt?: string): RatedDay | null {
  if (ratings.length === 0) return null;
  const sums: DaySums = { day, count: 0, overallTenths: 0, relationships: 0, health: 0, purpose: 0, growth: 0, joy: 0 };
  for (const e of ratings) addEntry(sums, e);
  firstAt ??= ratings.reduce((min, e) => earlier(min, e[1]), ratings[0][1]);
  // Fields added to the fresh sums in place: a spread that adds fields costs microseconds per document (rebuilds).
  return Object.assign(sums, { firstAt, ratings });
}

/**
 * The day with one more rating: its sums moved by that rating alone. Summing the whole day again made a day's n-th
 * rating cost n entries (a day of 500 ratings, a rebuild of 100,000 ratings at 3,600 a second).
 */
function withEntryAdded(rated: RatedDay, entry: DayRatingEntry): RatedDay {
  const { day, count, overallTenths, relationships, health, purpose, growth, joy } = rated;
  const sums: DaySums = { day, count, overallTenths, relationships, health, purpose, growth, joy };
  addEntry(sums, entry);
  return Object.assign(sums, { firstAt: earlier(rated.firstAt, entry[1]), ratings: [...(rated.ratings ?? []), entry] });
}

function addEntry(sums: DaySums, e: DayRatingEntry): void {
  sums.count++;
  sums.overallTenths += e[2];
  for (let i = 0; i < FACTOR_NAMES.length; i++) sums[FACTOR_NAMES[i]] += e[3 + i] as number;
}

/** The earlier of two times (ISO, as written); the first when they are the same instant. */
const earlier = (a: string, b: string) => (Date.parse(b) < Date.parse(a) ? b : a);

/**
 * The Monday of each week from `first`'s to `last`'s. Counted in day numbers, not by comparing the days as text: a
 * day's text stops sorting as a day past 9999-12-31 (the Monday after 9999-12-27 is written +010000-01-03), and a
 * loop on the text then never ended (found 11-27: one request for 9999-12-31 took the server down).
 */
export function weekMondays(first: string, last: string): string[] {
  const mondays: string[] = [];
  const end = dayNumber(last);
  for (let monday = mondayOf(first), n = dayNumber(monday); n <= end; monday = addDays(monday, 7), n += 7) mondays.push(monday);
  return mondays;
}

/** The Monday of each week of a person's span (read before rating-day-span forgets it). */
async function spanWeeks(userId: string, lookup: Lookup): Promise<string[]> {
  const span = await lookup<RatingDaySpanDoc>('rating-day-span', userId);
  return span ? weekMondays(span.first, span.last) : [];
}

/**
 * rating-weeks' `ids`: the week of the event's day; on an account deletion, every week of the person's span.
 * Synchronous but for an account deletion: a rebuild applies a rating without waiting on a promise.
 */
const idsByWeek: Projector['ids'] = (event, lookup) => {
  if (event.type !== 'UserDeleted') {
    const d = dataOf<RatingFields>(event);
    return [weekDocId(d.userId, dayOfEvent(d))];
  }
  const { userId } = dataOf<UserDeleted['data']>(event);
  return spanWeeks(userId, lookup).then((weeks) => weeks.map((monday) => weekDocId(userId, monday)));
};

/**
 * The context of rating-totals and rating-weeks (rating-totals first in the projection): the event's day as its week
 * held it before the event, and that week's position (an event at or before it is in the week already); null on
 * an account deletion.
 */
interface DayBefore {
  rated: RatedDay | null;
  position: number;
}

function dayBeforeEvent(event: RecordedEvent, lookup: Lookup): MaybePromise<DayBefore | null> {
  if (event.type === 'UserDeleted') return null;
  const d = dataOf<RatingFields>(event);
  const day = dayOfEvent(d);
  return whenFound(lookup<RatingWeekDoc>('rating-weeks', weekDocId(d.userId, day)), (week) => ({
    rated: week?.days.find((r) => r.day === day) ?? null,
    position: week?._position ?? 0,
  }));
}

/** The event's day after the event; null when the event changes nothing (the week has it already, or it is a no-op). */
function dayAfterEvent(event: RecordedEvent, before: DayBefore): DayChange {
  // rating-totals and rating-weeks ask in turn with the same event and day: worked out once (a day may be long).
  if (lastDayChange.event === event && lastDayChange.before === before.rated) return lastDayChange.change;
  let change: DayChange = null;
  if (before.position < event.position) {
    const after = dayEvolved(before.rated, event);
    change = after === before.rated ? null : { after };
  }
  lastDayChange = { event, before: before.rated, change };
  return change;
}

let lastDayChange: { event: RecordedEvent | null; before: RatedDay | null; change: DayChange } = { event: null, before: null, change: null };

type DayChange = { after: RatedDay | null } | null;

const RATING_EVENTS = ['RatingSubmitted', 'RatingCorrected', 'RatingWithdrawn', 'UserDeleted'] as const;

/** A rating event applied to its day (null: no rating that day, before or after); the same day when it changes nothing. */
function dayEvolved(rated: RatedDay | null, event: RecordedEvent): RatedDay | null {
  const d = dataOf<RatingFields>(event);
  const day = dayOfEvent(d);
  // A day written by version 2 (MongoDB, before `projections rebuild rating-days`) has its sums but not its ratings.
  const entries = rated?.ratings ?? [];
  if (event.type === 'RatingSubmitted') {
    // Submitted twice (a redelivery): as it was.
    if (entries.some((e) => e[0] === d.ratingId)) return rated;
    const entry = entryOf(dataOf<RatingSubmitted['data']>(event));
    return rated ? withEntryAdded(rated, entry) : withEntries(day, [entry], entry[1]);
  }
  const others = entries.filter((e) => e[0] !== d.ratingId);
  // A correction or a withdrawal of a rating this day does not hold (withdrawn) changes nothing.
  if (!rated || others.length === entries.length) return rated;
  if (event.type === 'RatingCorrected') {
    const entry = entryOf(dataOf<RatingCorrected['data']>(event));
    const before = entries.find((e) => e[0] === d.ratingId)!;
    return withEntries(day, [...others, entry], before[1] === entry[1] ? rated.firstAt : undefined);
  }
  // RatingWithdrawn: out of its day's sums. The day's earliest time stays unless the rating that carried it goes.
  const gone = entries.find((e) => e[0] === d.ratingId)!;
  return withEntries(day, others, gone[1] !== rated.firstAt ? rated.firstAt : undefined);
}

/**
 * rating-totals: the whole history's summary (GET /api/joy-ratings/summary without a range) in one document,
 * kept from the days: an event takes its day's sums out of the totals as they were before it, and puts them back
 * in as they are after it. Before rating-weeks in its projection, so that its context is the day before the event.
 */
export const ratingTotalsProjector: Projector<RatingTotalsDoc, DayBefore | null> = {
  collection: 'rating-totals',
  eventTypes: RATING_EVENTS,
  ids: (event) => [dataOf<{ userId: string }>(event).userId],
  context: dayBeforeEvent,
  evolve(doc, event, dayBefore) {
    if (event.type === 'UserDeleted' || !dayBefore) return null;
    const change = dayAfterEvent(event, dayBefore);
    if (!change) return doc;
    let totals: RatingTotals = doc ?? noRatingTotals();
    if (dayBefore.rated) totals = withDaySums(totals, dayBefore.rated, -1);
    if (change.after) totals = withDaySums(totals, change.after, 1);
    if (totals.count === 0) return null;
    const { daysTracked, count, overallTenths, relationships, health, purpose, growth, joy } = totals;
    return { userId: dataOf<RatingFields>(event).userId, daysTracked, count, overallTenths, relationships, health, purpose, growth, joy };
  },
};

/** rating-weeks: an event replaces its day in its week with the day as it is after it (RatingWeekDoc). */
export const ratingWeeksProjector: Projector<RatingWeekDoc, DayBefore | null> = {
  collection: 'rating-weeks',
  eventTypes: RATING_EVENTS,
  indexes: ['userId'],
  ids: idsByWeek,
  context: dayBeforeEvent,
  evolve(doc, event, dayBefore) {
    if (event.type === 'UserDeleted' || !dayBefore) return null;
    const change = dayAfterEvent(event, dayBefore);
    if (!change) return doc;
    const d = dataOf<RatingFields>(event);
    const day = dayOfEvent(d);
    const days = (doc?.days ?? []).filter((r) => r.day !== day);
    if (change.after) {
      days.push(change.after);
      days.sort((a, b) => (a.day < b.day ? -1 : 1));
    }
    return days.length === 0 ? null : { userId: d.userId, weekStart: mondayOf(day), days };
  },
};

/**
 * rating-day-span: the first and last day a person rated (submissions only: a span is never narrowed, it only has
 * to contain every rated day). Last in its projection: on UserDeleted, rating-weeks reads it before it goes.
 */
export const ratingDaySpanProjector: Projector<RatingDaySpanDoc> = {
  collection: 'rating-day-span',
  eventTypes: ['RatingSubmitted', 'UserDeleted'],
  ids: (event) => [dataOf<{ userId: string }>(event).userId],
  evolve(doc, event) {
    if (event.type === 'UserDeleted') return null;
    const d = dataOf<RatingFields>(event);
    const day = dayOfEvent(d);
    if (!doc) return { userId: d.userId, first: day, last: day };
    if (day >= doc.first && day <= doc.last) return doc;
    return { userId: d.userId, first: day < doc.first ? day : doc.first, last: day > doc.last ? day : doc.last };
  },
};
