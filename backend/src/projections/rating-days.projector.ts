import { addDays, type DaySums, FACTOR_NAMES, isoWeekOfDay, noRatingTotals, type RatingTotals, tenthsOf, withDaySums } from '@joy/domain';
import type { UserDeleted } from '../identity/identity.decider';
import { dayOfStoredRating } from '../ratings/rating-events';
import type { RatingCorrected, RatingSubmitted } from '../ratings/ratings.decider';
import type { StoredDoc } from '../read-models/read-model-store.port';
import type { RecordedEvent } from '../event-store/event-store.port';
import { dataOf, type Lookup, type MaybePromise, type Projector } from './projector';

/**
 * One standing rating of a day, as the day's document keeps it: what a correction replaces and a withdrawal takes
 * out of the sums (the events carry the new values only). `[ratingId, submittedAt, overall × 10, relationships,
 * health, purpose, growth, joy]`: a tuple, so a day of many ratings stays small.
 */
export type DayRatingEntry = [string, string, number, number, number, number, number, number];

/**
 * rating-days: per person and day (keyed `<userId>:<YYYY-MM-DD>`, the ratings' own day in the person's zone), the
 * count and the sums of the day's standing ratings (DaySums), with each rating's values, and the time of its
 * earliest rating. The summary of a range (GET /api/joy-ratings/summary?from=&to=) reads these instead of every
 * rating; rating-totals and rating-weeks are kept from them. An event changes one document: its day's.
 */
export interface RatingDayDoc extends DaySums {
  userId: string;
  /** The `submittedAt` of the day's earliest standing rating. */
  firstAt: string;
  ratings: DayRatingEntry[];
}

/** rating-totals: per person (keyed by user id), the count and sums of all their standing ratings and how many days they rated. */
export interface RatingTotalsDoc extends RatingTotals {
  userId: string;
}

/** One rated day as a week's document keeps it: the day's sums and its earliest standing rating's time. */
export type RatedDay = DaySums & { firstAt: string };

/**
 * rating-weeks: per person and ISO week (keyed `<userId>:<the week's Monday>`), each rated day of the week: the day
 * documents without their ratings' values. The premium analytics read these (a few small documents a year).
 */
export interface RatingWeekDoc {
  userId: string;
  weekStart: string;
  /** Oldest day first; only days with ratings. */
  days: RatedDay[];
}

/** rating-day-span: per person (keyed by user id), their first and last rated day: which day documents an account deletion removes. */
export interface RatingDaySpanDoc {
  userId: string;
  first: string;
  last: string;
}

export const dayDocId = (userId: string, day: string) => `${userId}:${day}`;
const weekDocId = (userId: string, day: string) => `${userId}:${mondayOf(day)}`;

/** The Monday of a day's ISO week, remembered per day: a rebuild asks twice per event, and there are few days. */
const mondays = new Map<string, string>();
function mondayOf(day: string): string {
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
 * The day's document with these entries: sums recomputed from them (a day holds a handful), none left: gone.
 * `firstAt` when the caller knows it: working it out parses every entry's time, costly on a day of many ratings.
 */
function withEntries(userId: string, day: string, ratings: DayRatingEntry[], firstAt?: string): RatingDayDoc | null {
  if (ratings.length === 0) return null;
  const sums: DaySums = { day, count: 0, overallTenths: 0, relationships: 0, health: 0, purpose: 0, growth: 0, joy: 0 };
  for (const e of ratings) addEntry(sums, e);
  firstAt ??= ratings.reduce((min, e) => earlier(min, e[1]), ratings[0][1]);
  // Fields added to the fresh sums in place: a spread that adds fields costs microseconds per document (rebuilds).
  return Object.assign(sums, { userId, firstAt, ratings });
}

/**
 * The day's document with one more rating: its sums moved by that rating alone. Summing the whole day again made a
 * day's n-th rating cost n entries (a day of 500 ratings, a rebuild of 100,000 ratings at 3,600 a second).
 */
function withEntryAdded(doc: RatingDayDoc, entry: DayRatingEntry): RatingDayDoc {
  const { day, count, overallTenths, relationships, health, purpose, growth, joy } = doc;
  const sums: DaySums = { day, count, overallTenths, relationships, health, purpose, growth, joy };
  addEntry(sums, entry);
  return Object.assign(sums, { userId: doc.userId, firstAt: earlier(doc.firstAt, entry[1]), ratings: [...doc.ratings, entry] });
}

function addEntry(sums: DaySums, e: DayRatingEntry): void {
  sums.count++;
  sums.overallTenths += e[2];
  for (let i = 0; i < FACTOR_NAMES.length; i++) sums[FACTOR_NAMES[i]] += e[3 + i] as number;
}

/** The earlier of two times (ISO, as written); the first when they are the same instant. */
const earlier = (a: string, b: string) => (Date.parse(b) < Date.parse(a) ? b : a);

/**
 * The days of a person's span (read before rating-day-span forgets it): each day (`step` 1), or the Monday of each
 * week (`step` 7).
 */
async function spanDays(userId: string, lookup: Lookup, step: 1 | 7): Promise<string[]> {
  const span = await lookup<RatingDaySpanDoc>('rating-day-span', userId);
  if (!span) return [];
  const days: string[] = [];
  for (let day = step === 7 ? mondayOf(span.first) : span.first; day <= span.last; day = addDays(day, step)) days.push(day);
  return days;
}

/**
 * `ids` of a projector whose documents are keyed by person and day (`idOf`): the event's day's; on an account deletion,
 * those of every day (`step` 1) or week (7) of the person's span. Synchronous but for an account deletion: a rebuild
 * applies a rating without waiting on a promise.
 */
function idsByDay(idOf: (userId: string, day: string) => string, step: 1 | 7): Projector['ids'] {
  return (event, lookup) => {
    if (event.type !== 'UserDeleted') {
      const d = dataOf<RatingFields>(event);
      return [idOf(d.userId, dayOfEvent(d))];
    }
    const { userId } = dataOf<UserDeleted['data']>(event);
    return spanDays(userId, lookup, step).then((days) => days.map((day) => idOf(userId, day)));
  };
}

type DayBefore = (RatingDayDoc & StoredDoc) | null;

/**
 * The context of the projectors that follow the day documents (rating-totals, rating-weeks, before rating-days in
 * the projection): the event's day document as it was before the event; null on an account deletion.
 */
function dayBeforeEvent(event: RecordedEvent, lookup: Lookup): MaybePromise<DayBefore> {
  if (event.type === 'UserDeleted') return null;
  const d = dataOf<RatingFields>(event);
  return lookup<RatingDayDoc>('rating-days', dayDocId(d.userId, dayOfEvent(d)));
}

/**
 * The event's day document after the event, worked out by rating-days' own `evolve` (so that the documents kept
 * from it cannot disagree with it); null when the event changes nothing (the day has it already, or it is a no-op).
 */
function dayAfterEvent(event: RecordedEvent, dayBefore: DayBefore): DayChange {
  // rating-totals and rating-weeks ask in turn with the same event and day: worked out once (a day may be long).
  if (lastDayChange.event === event && lastDayChange.dayBefore === dayBefore) return lastDayChange.change;
  let change: DayChange = null;
  if (!dayBefore || dayBefore._position < event.position) {
    const after = ratingDaysProjector.evolve(dayBefore, event);
    change = after === dayBefore ? null : { after };
  }
  lastDayChange = { event, dayBefore, change };
  return change;
}

let lastDayChange: { event: RecordedEvent | null; dayBefore: DayBefore; change: DayChange } = { event: null, dayBefore: null, change: null };

type DayChange = { after: RatingDayDoc | null } | null;

const RATING_EVENTS = ['RatingSubmitted', 'RatingCorrected', 'RatingWithdrawn', 'UserDeleted'] as const;

export const ratingDaysProjector: Projector<RatingDayDoc> = {
  collection: 'rating-days',
  eventTypes: RATING_EVENTS,
  indexes: ['userId'],
  ids: idsByDay(dayDocId, 1),
  evolve(doc, event) {
    if (event.type === 'UserDeleted') return null;
    const d = dataOf<RatingFields>(event);
    const day = dayOfEvent(d);
    if (event.type === 'RatingSubmitted') {
      // Submitted twice (a redelivery): as it was.
      if (doc?.ratings.some((e) => e[0] === d.ratingId)) return doc;
      const entry = entryOf(dataOf<RatingSubmitted['data']>(event));
      return doc ? withEntryAdded(doc, entry) : withEntries(d.userId, day, [entry], entry[1]);
    }
    const others = (doc?.ratings ?? []).filter((e) => e[0] !== d.ratingId);
    switch (event.type) {
      case 'RatingCorrected': {
        // A correction of a rating this day does not hold (withdrawn) changes nothing.
        if (!doc || others.length === doc.ratings.length) return doc;
        const entry = entryOf(dataOf<RatingCorrected['data']>(event));
        const before = doc.ratings.find((e) => e[0] === d.ratingId)!;
        return withEntries(d.userId, day, [...others, entry], before[1] === entry[1] ? doc.firstAt : undefined);
      }
      default: {
        // RatingWithdrawn: out of its day's sums.
        if (!doc || others.length === doc.ratings.length) return doc;
        // The day's earliest time stays unless the rating that carried it goes.
        const gone = doc.ratings.find((e) => e[0] === d.ratingId)!;
        return withEntries(d.userId, day, others, gone[1] !== doc.firstAt ? doc.firstAt : undefined);
      }
    }
  },
};

/**
 * rating-totals: the whole history's summary (GET /api/joy-ratings/summary without a range) in one document,
 * kept from the day documents: an event takes its day's sums out of the totals as they were before it, and puts
 * them back in as they are after it. Before rating-days in its projection, so that its context is the day before the event.
 */
export const ratingTotalsProjector: Projector<RatingTotalsDoc, DayBefore> = {
  collection: 'rating-totals',
  eventTypes: RATING_EVENTS,
  ids: (event) => [dataOf<{ userId: string }>(event).userId],
  context: dayBeforeEvent,
  evolve(doc, event, dayBefore) {
    if (event.type === 'UserDeleted') return null;
    const change = dayAfterEvent(event, dayBefore);
    if (!change) return doc;
    let totals: RatingTotals = doc ?? noRatingTotals();
    if (dayBefore) totals = withDaySums(totals, dayBefore, -1);
    if (change.after) totals = withDaySums(totals, change.after, 1);
    if (totals.count === 0) return null;
    const { daysTracked, count, overallTenths, relationships, health, purpose, growth, joy } = totals;
    return { userId: dataOf<RatingFields>(event).userId, daysTracked, count, overallTenths, relationships, health, purpose, growth, joy };
  },
};

/**
 * rating-weeks: the day documents of each week without their ratings' values (GET /api/insights/advanced reads
 * these instead of every day's ratings). An event replaces its day in its week with the day as it is after it.
 */
export const ratingWeeksProjector: Projector<RatingWeekDoc, DayBefore> = {
  collection: 'rating-weeks',
  eventTypes: RATING_EVENTS,
  indexes: ['userId'],
  ids: idsByDay(weekDocId, 7),
  context: dayBeforeEvent,
  evolve(doc, event, dayBefore) {
    if (event.type === 'UserDeleted') return null;
    const change = dayAfterEvent(event, dayBefore);
    if (!change) return doc;
    const d = dataOf<RatingFields>(event);
    const day = dayOfEvent(d);
    const days = (doc?.days ?? []).filter((r) => r.day !== day);
    if (change.after) {
      const { userId: _userId, ratings: _ratings, ...rated } = change.after;
      days.push(rated);
      days.sort((a, b) => (a.day < b.day ? -1 : 1));
    }
    return days.length === 0 ? null : { userId: d.userId, weekStart: mondayOf(day), days };
  },
};

/**
 * rating-day-span: the first and last day a person rated (submissions only: a span is never narrowed, it only has
 * to contain every day document). Last in its projection: on UserDeleted, rating-days reads it before it goes.
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
