import { dayOf, DEFAULT_TIME_ZONE, DomainError, FACTOR_NAMES, type FactorScores, isFactorScore, overallScore, RATINGS_PER_DAY_MAX } from '@joy/domain';
import type { Decider } from '../event-store/decider';
import { dayOfStoredRating } from './rating-events';
import { ACCOUNT_DELETED, type RatingCorrected, type RatingsClosed, type RatingSubmitted, type RatingWithdrawn } from './ratings.decider';

/*
 * Importing ratings from an export (POST /api/account/import, account/account-import.ts) into `ratings-<userId>`.
 * An imported rating is a RatingSubmitted like any other, at its original time (`submittedAt` is the file's
 * `createdAt`), under a new id derived from the account and the file's id (the handler derives it), so that two
 * accounts of one install importing the same file never share a rating id.
 *
 * The same rating is never added twice (docs/decisions.md, "Importing ratings"): a rating of the file is already
 * here when the account has a rating
 *   - whose id is the file's id (the file is this account's own export), or the id derived from it (imported
 *     before), or
 *   - made at the same instant (to the millisecond) with the same five factors (the file is an export of an
 *     account that had imported this one's ratings, whose ids are derived ones).
 * Ratings repeated within the file count the same way.
 *
 * A day takes no more than RATINGS_PER_DAY_MAX standing ratings, imported ones included: a write that would pass
 * that is refused whole (409 `rating.day_full`, naming the day), as a rating made here would be.
 */

/** One rating of the file, checked (account-import.ts): its id there, its time, its five factors. */
export interface RatingToImport {
  sourceId: string;
  /** The id it gets here (derived from the account and sourceId). */
  ratingId: string;
  /** ISO instant, normalized (`toISOString`). */
  createdAt: string;
  scores: FactorScores;
  /** The day it rates, as the file says; left out (an export from before days): its createdAt's day in `timeZone`. */
  day?: string;
  /** The owner's note (checked, trimmed), or none. */
  note?: string | null;
}

export interface ImportRatings {
  userId: string;
  ratings: readonly RatingToImport[];
  /** The person's zone (UTC when unset): the day of a rating the file gives no day for. */
  timeZone?: string;
}

/**
 * The account's ratings, as a list linked from the newest event: `evolve` is O(1) and never copies (the state is
 * cached per stream, and a stream may hold thousands of ratings); `decide` reads it through its index (`indexOf`).
 */
interface Node {
  ratingId: string;
  key: string;
  /** The day a submission rates; null for the withdrawal of `ratingId`. */
  day: string | null;
  /** A correction of `ratingId`: its new values are the same rating too (`key`); nothing else changes. */
  corrected?: true;
  previous: Node | null;
}
export interface ImportState {
  last: Node | null;
  /** The account was deleted (`RatingsClosed`): nothing more is written here. */
  closed?: true;
}

/**
 * A file that would fill a day: how many that day holds already, not "already has 100 ratings" (said of an empty day
 * that 150 ratings of the file would overfill: a review, 11-27). Nothing of the file is stored.
 */
export const importDayFullMessage = (day: string, standing: number) =>
  `The file would give ${day} more than ${RATINGS_PER_DAY_MAX} ratings, the most one day can hold (it has ${standing} in Joy now). ` +
  'Take some of that day out of the file, or delete some of it in Joy, and import again.';

/** What makes two ratings the same rating whatever their ids: the instant and the five factors. */
export function sameRatingKey(createdAt: string, scores: FactorScores): string {
  return `${Date.parse(createdAt)}|${FACTOR_NAMES.map((f) => scores[f]).join('')}`;
}

/** What `decide` needs of the account: every rating id and same-rating key, and the standing ratings per day. */
interface Index {
  ids: Set<string>;
  keys: Set<string>;
  perDay: Map<string, number>;
  /** The day of each rating (a withdrawal takes one off its day). */
  dayOf: Map<string, string>;
  withdrawn: Set<string>;
}

/**
 * The index of a state, kept for its newest node only and handed on to the next state built on it: a file is
 * decided once whole and again per write of IMPORT_CHUNK, and each decision walked the account's whole list (a
 * 20,000-rating file into a 100,000-rating account: 41 walks of 100,000, 2 s of CPU). Now a decision walks only
 * the events since the last one. A state whose index was handed on is indexed again from its start if it is
 * decided on (correct, only slower). Never changed by `decide`.
 */
const indexes = new WeakMap<Node, Index>();

function indexOf(last: Node | null): Index {
  const newer: Node[] = [];
  let node = last;
  let index: Index | undefined;
  for (; node; node = node.previous) {
    index = indexes.get(node);
    if (index) break;
    newer.push(node);
  }
  if (node) indexes.delete(node);
  index ??= { ids: new Set(), keys: new Set(), perDay: new Map(), dayOf: new Map(), withdrawn: new Set() };
  // Oldest first, as the events happened.
  for (let i = newer.length - 1; i >= 0; i--) {
    const n = newer[i];
    if (n.corrected) {
      index.keys.add(n.key);
      continue;
    }
    if (n.day === null) {
      const day = index.dayOf.get(n.ratingId);
      if (day !== undefined && !index.withdrawn.has(n.ratingId)) index.perDay.set(day, index.perDay.get(day)! - 1);
      index.withdrawn.add(n.ratingId);
      continue;
    }
    index.ids.add(n.ratingId);
    index.keys.add(n.key);
    index.dayOf.set(n.ratingId, n.day);
    if (!index.withdrawn.has(n.ratingId)) index.perDay.set(n.day, (index.perDay.get(n.day) ?? 0) + 1);
  }
  if (last) indexes.set(last, index);
  return index;
}

export const ratingsImportDecider: Decider<ImportState, ImportRatings, RatingSubmitted> = {
  initialState: { last: null },
  evolve(state, stored) {
    const event = stored as RatingSubmitted | RatingCorrected | RatingWithdrawn | RatingsClosed;
    if (event.type === 'RatingsClosed') return { ...state, closed: true };
    // A corrected rating, exported and imported back (A → B → A), carries its new values: those are its key too, or
    // it was added beside itself (a review, 11-27). Its id, time and day stay.
    if (event.type === 'RatingCorrected') {
      const d = event.data;
      return { ...state, last: { ratingId: d.ratingId, key: sameRatingKey(d.submittedAt, d), day: null, corrected: true, previous: state.last } };
    }
    if (event.type === 'RatingWithdrawn') return { ...state, last: { ratingId: event.data.ratingId, key: '', day: null, previous: state.last } };
    if (event.type !== 'RatingSubmitted') return state;
    const d = event.data;
    // Folded as stored (not upcast): an event from before days were kept counts on its UTC day.
    return { ...state, last: { ratingId: d.ratingId, key: sameRatingKey(d.submittedAt, d), day: dayOfStoredRating(d), previous: state.last } };
  },
  decide({ userId, ratings, timeZone = DEFAULT_TIME_ZONE }, state) {
    if (state.closed) throw new DomainError('auth.unauthorized', ACCOUNT_DELETED);
    const index = indexOf(state.last);
    // The file's own ratings, beside the account's (the index is not changed here).
    const ids = new Set<string>();
    const keys = new Set<string>();
    const perDay = new Map<string, number>();
    const events: RatingSubmitted[] = [];
    for (const r of ratings) {
      const key = sameRatingKey(r.createdAt, r.scores);
      if (index.ids.has(r.sourceId) || index.ids.has(r.ratingId) || index.keys.has(key)) continue;
      if (ids.has(r.sourceId) || ids.has(r.ratingId) || keys.has(key)) continue;
      // The file was checked field by field (400 naming the field); this guards any other entry point.
      if (!FACTOR_NAMES.every((f) => isFactorScore(r.scores[f])) || Number.isNaN(Date.parse(r.createdAt))) {
        throw new Error(`Rating ${r.sourceId} was not checked before the import`);
      }
      const factors = Object.fromEntries(FACTOR_NAMES.map((f) => [f, r.scores[f]])) as FactorScores;
      const day = r.day ?? dayOf(r.createdAt, timeZone)!;
      const onDay = perDay.get(day) ?? index.perDay.get(day) ?? 0;
      if (onDay >= RATINGS_PER_DAY_MAX) throw new DomainError('rating.day_full', importDayFullMessage(day, index.perDay.get(day) ?? 0));
      perDay.set(day, onDay + 1);
      events.push({
        type: 'RatingSubmitted',
        data: {
          ratingId: r.ratingId,
          userId,
          ...factors,
          overallScore: overallScore(factors),
          submittedAt: new Date(r.createdAt).toISOString(),
          day,
          ...(r.note ? { note: r.note } : {}),
        },
      });
      ids.add(r.ratingId);
      keys.add(key);
    }
    return events;
  },
};
