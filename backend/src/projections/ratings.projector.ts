import type { UserDeleted } from '../identity/identity.decider';
import { type FactorScores, latestFirst } from '@joy/domain';
import { upcastRatingEvent } from '../ratings/rating-events';
import { type RatingCorrected, ratingViewOf, type RatingSubmitted, type RatingWithdrawn } from '../ratings/ratings.decider';
import { dataOf, Lookup, Projector, withFields } from './projector';

export type RatingDoc = FactorScores & {
  id: string;
  userId: string;
  overallScore: number;
  createdAt: string;
  /** The day it rates (`YYYY-MM-DD`, the person's zone; derived for schemaVersion 1, see rating-events.ts). Absent on documents written before days. */
  day?: string;
  /** The owner's note as stored: encrypted with their key (opened only when the owner reads), or null. */
  note?: string | null;
  /** Global position of the rating's event: orders ratings newest first without ties. */
  seq: number;
  /** The rating's version in its stream `ratings-<userId>` (kept on latest-ratings: how many index and list chunks exist). */
  streamVersion?: number;
  /**
   * On `ratings` only: the list chunk it belongs to (`<userId>:<n>`, chunkOf), an indexed field, so that a page of
   * the list reads a few chunks of at most 500 ratings instead of all of a person's (rating-timeline).
   */
  chunk?: string;
};

/** The last event `ratingDocFrom` was given and its answer: two projectors of a rating ask for the same event in turn. */
let lastRatingEvent: object | null = null;
let lastRatingDoc: RatingDoc | null = null;

/** The rating document of a submission (projectors never change what they are given, so one answer serves both). */
export function ratingDocFrom(event: { type?: string; data: object; position: number; streamVersion?: number }): RatingDoc {
  if (event === lastRatingEvent) return lastRatingDoc!;
  const doc = ratingDocOf(event);
  lastRatingEvent = event;
  lastRatingDoc = doc;
  return doc;
}

function ratingDocOf(event: { type?: string; data: object; position: number; streamVersion?: number }): RatingDoc {
  const d = upcastRatingEvent({ type: event.type ?? 'RatingSubmitted', data: event.data as Record<string, unknown> }).data as RatingSubmitted['data'];
  // ratingViewOf's fields, then the owner and the place, in one object (a rebuild makes one per rating).
  const doc: RatingDoc = withFields(ratingViewOf(d), { userId: d.userId, seq: event.position });
  if (event.streamVersion !== undefined) doc.streamVersion = event.streamVersion;
  return doc;
}

/**
 * Ratings per list chunk: the `chunk` field of `ratings` and the spans of rating-timeline. A page of the list reads
 * one or two chunks.
 */
export const RATING_LIST_CHUNK = 500;
/**
 * Rating ids per rating-index document: bounded, since each rating writes its chunk again whole (100 ids: about
 * 4 KB of JSON at most; at 500, 20 KB, the largest document a rating wrote, cost a tenth of the writes measured).
 */
export const RATING_INDEX_CHUNK = 100;

/**
 * rating-index: per user, the ids of their ratings in chunks keyed `<userId>:<n>` (n = (streamVersion - 1) / 100,
 * rounded down: indexChunkOf). It is what lets the ratings projection delete every rating of a deleted account: a projector
 * only looks documents up by id, and `ratings` is keyed by rating id.
 */
export interface RatingIndexDoc {
  userId: string;
  ratingIds: string[];
}

/** The list chunk of a rating, by its stream version. */
export const chunkOf = (streamVersion: number) => Math.floor((streamVersion - 1) / RATING_LIST_CHUNK);
/** The rating-index chunk of a rating, by its stream version. */
export const indexChunkOf = (streamVersion: number) => Math.floor((streamVersion - 1) / RATING_INDEX_CHUNK);
export const chunkId = (userId: string, chunk: number) => `${userId}:${chunk}`;

/** The index chunks of a user, from the latest rating's stream version (read before latest-ratings is deleted). */
async function indexChunkIds(userId: string, lookup: Lookup): Promise<string[]> {
  const latest = await lookup<RatingDoc>('latest-ratings', userId);
  if (!latest?.streamVersion) return [];
  return Array.from({ length: indexChunkOf(latest.streamVersion) + 1 }, (_, n) => chunkId(userId, n));
}

/** Every rating id of a user, from their index chunks. */
async function ratingIdsOfUser(userId: string, lookup: Lookup): Promise<string[]> {
  const chunks = await Promise.all((await indexChunkIds(userId, lookup)).map((id) => lookup<RatingIndexDoc>('rating-index', id)));
  return chunks.flatMap((c) => c?.ratingIds ?? []);
}

/** The index chunks of a user that hold a (withdrawn) rating. */
async function chunksHolding({ userId, ratingId }: { userId: string; ratingId: string }, lookup: Lookup): Promise<string[]> {
  const ids = await indexChunkIds(userId, lookup);
  const chunks = await Promise.all(ids.map((id) => lookup<RatingIndexDoc>('rating-index', id)));
  return ids.filter((_id, i) => chunks[i]?.ratingIds.includes(ratingId));
}

/** A rating document with the values of a correction (same id, time and place in the list). */
function corrected(doc: RatingDoc, d: RatingCorrected['data']): RatingDoc {
  const { relationships, health, purpose, growth, joy, overallScore } = d;
  // A correction of schemaVersion 2 carries the note as it is now (encrypted, or null); one of version 1 leaves it.
  return { ...doc, relationships, health, purpose, growth, joy, overallScore, ...(d.note !== undefined ? { note: d.note } : {}) };
}

const RATING_EVENTS = ['RatingSubmitted', 'RatingCorrected', 'RatingWithdrawn', 'UserDeleted'] as const;

/**
 * ratings: one document per standing rating, found by userId, ordered by seq (the submission's position, so a
 * correction keeps the rating's place); a withdrawn rating's document goes, and all of a user's go with the account.
 */
export const ratingsProjector: Projector<RatingDoc> = {
  collection: 'ratings',
  eventTypes: RATING_EVENTS,
  // By chunk only: a page reads a chunk or two (rating-timeline); nothing reads a person's ratings all at once.
  indexes: ['chunk'],
  // Synchronous but for an account deletion: a rebuild applies a rating without waiting on a promise.
  ids(event, lookup) {
    if (event.type !== 'UserDeleted') return [dataOf<{ ratingId: string }>(event).ratingId];
    return ratingIdsOfUser(dataOf<UserDeleted['data']>(event).userId, lookup);
  },
  evolve(doc, event) {
    switch (event.type) {
      case 'RatingSubmitted': {
        const rating = ratingDocFrom(event);
        return withFields(rating, { chunk: chunkId(rating.userId, chunkOf(event.streamVersion)) });
      }
      case 'RatingCorrected':
        return doc && corrected(doc, dataOf<RatingCorrected['data']>(event));
      default:
        return null;
    }
  },
};

/**
 * rating-index: a withdrawn rating's id leaves its chunk (found by looking the chunks up), and an emptied chunk
 * goes, so that the chunks above the newest standing rating's are gone and account deletion leaves none behind.
 */
export const ratingIndexProjector: Projector<RatingIndexDoc> = {
  collection: 'rating-index',
  eventTypes: ['RatingSubmitted', 'RatingWithdrawn', 'UserDeleted'],
  // Synchronous for a submission (the bulk of a rebuild): no promise to wait on.
  ids(event, lookup) {
    if (event.type === 'UserDeleted') return indexChunkIds(dataOf<UserDeleted['data']>(event).userId, lookup);
    if (event.type === 'RatingWithdrawn') return chunksHolding(dataOf<RatingWithdrawn['data']>(event), lookup);
    return [chunkId(dataOf<RatingSubmitted['data']>(event).userId, indexChunkOf(event.streamVersion))];
  },
  evolve(doc, event) {
    if (event.type === 'UserDeleted') return null;
    if (event.type === 'RatingWithdrawn') {
      if (!doc) return null;
      const { ratingId } = dataOf<RatingWithdrawn['data']>(event);
      const ratingIds = doc.ratingIds.filter((id) => id !== ratingId);
      return ratingIds.length === 0 ? null : { ...doc, ratingIds };
    }
    const d = dataOf<RatingSubmitted['data']>(event);
    const ratingIds = doc?.ratingIds ?? [];
    return ratingIds.includes(d.ratingId) ? doc : { userId: d.userId, ratingIds: [...ratingIds, d.ratingId] };
  },
};

/** The time span (ms since the epoch) of the ratings submitted into one list chunk. */
export interface TimelineChunk {
  n: number;
  newest: number;
  oldest: number;
}

/**
 * rating-timeline: per user (keyed by user id), the time span of each list chunk (chunkOf), in chunk order. It is
 * what pages the list (GET /api/joy-ratings?limit=&before=) without reading every rating: ratings mostly arrive
 * in time order, so the newest page is in the last chunk or two, and a chunk whose span lies wholly after the
 * cursor, or before the page's last rating, is not read. An imported rating (made long before it was submitted)
 * widens its chunk's span. A span is never narrowed when a rating is withdrawn: it only has to contain the
 * chunk's standing ratings. About 100 entries for 50,000 ratings.
 */
export interface RatingTimelineDoc {
  userId: string;
  chunks: TimelineChunk[];
  /**
   * The stream version of the first submission this document saw: 1 when it was built from the stream's start. More
   * in a persistent read model that was running before the timeline existed, where it (and the ratings' `chunk`)
   * covers only the ratings since: the list is then read without it until `projections rebuild ratings`.
   */
  firstVersion: number;
}

export const ratingTimelineProjector: Projector<RatingTimelineDoc> = {
  collection: 'rating-timeline',
  eventTypes: ['RatingSubmitted', 'UserDeleted'],
  ids: (event) => [dataOf<{ userId: string }>(event).userId],
  evolve(doc, event) {
    if (event.type === 'UserDeleted') return null;
    const d = dataOf<RatingSubmitted['data']>(event);
    const at = Date.parse(ratingViewOf(d).createdAt);
    const n = chunkOf(event.streamVersion);
    const chunks = doc?.chunks ?? [];
    const i = chunks.findIndex((c) => c.n === n);
    const firstVersion = doc?.firstVersion ?? event.streamVersion;
    if (i < 0) return { userId: d.userId, chunks: [...chunks, { n, newest: at, oldest: at }].sort((a, b) => a.n - b.n), firstVersion };
    const c = chunks[i];
    if (at <= c.newest && at >= c.oldest) return doc;
    const next = chunks.slice();
    next[i] = { n, newest: Math.max(c.newest, at), oldest: Math.min(c.oldest, at) };
    return { userId: d.userId, chunks: next, firstVersion };
  },
};

/**
 * latest-ratings: each user's latest standing rating, keyed by user id, with the stream version of their newest
 * submission (how many index chunks there are: it stays when that rating is withdrawn). Latest by its day, then by
 * its time (`latestFirst`, @joy/domain): a missed day rated today, or an imported rating (account/account-import.ts,
 * later in the stream than it was made), replaces the latest only when it rates a later day (or the same day,
 * made later). After a withdrawal the event names the rating that is latest now; its `seq` is then the
 * withdrawal's position (nothing orders by it).
 */
export const latestRatingsProjector: Projector<RatingDoc> = {
  collection: 'latest-ratings',
  eventTypes: RATING_EVENTS,
  ids: (event) => [dataOf<{ userId: string }>(event).userId],
  evolve(doc, event) {
    switch (event.type) {
      case 'RatingSubmitted': {
        const rating = ratingDocFrom(event);
        if (!doc || latestFirst(rating, doc) <= 0) return rating;
        return { ...doc, streamVersion: Math.max(doc.streamVersion ?? 0, rating.streamVersion ?? 0) };
      }
      case 'RatingCorrected': {
        const d = dataOf<RatingCorrected['data']>(event);
        return doc && doc.id === d.ratingId ? corrected(doc, d) : doc;
      }
      case 'RatingWithdrawn': {
        const { userId, latest } = dataOf<RatingWithdrawn['data']>(event);
        if (!latest) return null;
        if (doc?.id === latest.ratingId) return doc;
        const upcast = upcastRatingEvent(event).data as RatingWithdrawn['data'];
        return { ...ratingViewOf(upcast.latest!), userId, seq: event.position, ...(doc?.streamVersion !== undefined ? { streamVersion: doc.streamVersion } : {}) };
      }
      default:
        return null;
    }
  },
};
