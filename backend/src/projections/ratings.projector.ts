import type { UserDeleted } from '../identity/identity.decider';
import type { FactorScores } from '@joy/domain';
import { ratingViewOf, type RatingSubmitted } from '../ratings/ratings.decider';
import { dataOf, Lookup, Projector } from './projector';

export type RatingDoc = FactorScores & {
  id: string;
  userId: string;
  overallScore: number;
  createdAt: string;
  /** Global position of the rating's event: orders ratings newest first without ties. */
  seq: number;
  /** The rating's version in its stream `ratings-<userId>` (kept on latest-ratings: how many index chunks exist). */
  streamVersion?: number;
};

export function ratingDocFrom(event: { data: object; position: number; streamVersion?: number }): RatingDoc {
  const d = event.data as RatingSubmitted['data'];
  return {
    ...ratingViewOf(d),
    userId: d.userId,
    seq: event.position,
    ...(event.streamVersion !== undefined ? { streamVersion: event.streamVersion } : {}),
  };
}

/** Rating ids per index document: bounded, so that adding a rating copies at most this many ids. */
export const RATING_INDEX_CHUNK = 500;

/**
 * rating-index: per user, the ids of their ratings in chunks keyed `<userId>:<n>` (n = (streamVersion - 1) / 500,
 * rounded down). It is what lets the ratings projection delete every rating of a deleted account: a projector
 * only looks documents up by id, and `ratings` is keyed by rating id.
 */
export interface RatingIndexDoc {
  userId: string;
  ratingIds: string[];
}

const chunkOf = (streamVersion: number) => Math.floor((streamVersion - 1) / RATING_INDEX_CHUNK);
const chunkId = (userId: string, chunk: number) => `${userId}:${chunk}`;

/** The index chunks of a user, from the latest rating's stream version (read before latest-ratings is deleted). */
async function indexChunkIds(userId: string, lookup: Lookup): Promise<string[]> {
  const latest = await lookup<RatingDoc>('latest-ratings', userId);
  if (!latest?.streamVersion) return [];
  return Array.from({ length: chunkOf(latest.streamVersion) + 1 }, (_, n) => chunkId(userId, n));
}

/** ratings: one document per rating, found by userId, ordered by seq; all of a user's go with the account. */
export const ratingsProjector: Projector<RatingDoc> = {
  collection: 'ratings',
  eventTypes: ['RatingSubmitted', 'UserDeleted'],
  indexes: ['userId'],
  async ids(event, lookup) {
    if (event.type !== 'UserDeleted') return [dataOf<RatingSubmitted['data']>(event).ratingId];
    const { userId } = dataOf<UserDeleted['data']>(event);
    const chunks = await Promise.all((await indexChunkIds(userId, lookup)).map((id) => lookup<RatingIndexDoc>('rating-index', id)));
    return chunks.flatMap((c) => c?.ratingIds ?? []);
  },
  evolve: (_doc, event) => (event.type === 'UserDeleted' ? null : ratingDocFrom(event)),
};

export const ratingIndexProjector: Projector<RatingIndexDoc> = {
  collection: 'rating-index',
  eventTypes: ['RatingSubmitted', 'UserDeleted'],
  async ids(event, lookup) {
    if (event.type === 'UserDeleted') return indexChunkIds(dataOf<UserDeleted['data']>(event).userId, lookup);
    return [chunkId(dataOf<RatingSubmitted['data']>(event).userId, chunkOf(event.streamVersion))];
  },
  evolve(doc, event) {
    if (event.type === 'UserDeleted') return null;
    const d = dataOf<RatingSubmitted['data']>(event);
    const ratingIds = doc?.ratingIds ?? [];
    return ratingIds.includes(d.ratingId) ? doc : { userId: d.userId, ratingIds: [...ratingIds, d.ratingId] };
  },
};

/**
 * latest-ratings: each user's newest rating, keyed by user id, with the stream version of their last rating event
 * (how many index chunks exist). Newest by its time: an imported rating (account/account-import.ts) comes later in
 * the stream than it was made, and replaces the latest only when it was made after it.
 */
export const latestRatingsProjector: Projector<RatingDoc> = {
  collection: 'latest-ratings',
  eventTypes: ['RatingSubmitted', 'UserDeleted'],
  ids: (event) => [dataOf<{ userId: string }>(event).userId],
  evolve(doc, event) {
    if (event.type === 'UserDeleted') return null;
    const rating = ratingDocFrom(event);
    if (!doc || Date.parse(rating.createdAt) >= Date.parse(doc.createdAt)) return rating;
    return { ...doc, streamVersion: Math.max(doc.streamVersion ?? 0, rating.streamVersion ?? 0) };
  },
};
