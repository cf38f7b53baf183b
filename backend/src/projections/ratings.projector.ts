import type { Factor, RatingSubmitted } from '../ratings/ratings.decider';
import { dataOf, Projector } from './projector';

export type RatingDoc = Record<Factor, number> & {
  id: string;
  userId: string;
  overallScore: number;
  createdAt: string;
  /** Global position of the rating's event: orders ratings newest first without ties. */
  seq: number;
};

export function ratingDocFrom(event: { data: object; position: number }): RatingDoc {
  const d = event.data as RatingSubmitted['data'];
  return {
    id: d.ratingId,
    userId: d.userId,
    overallScore: d.overallScore,
    relationships: d.relationships,
    health: d.health,
    purpose: d.purpose,
    growth: d.growth,
    joy: d.joy,
    createdAt: d.submittedAt,
    seq: event.position,
  };
}

/** ratings: one document per rating, found by userId, ordered by seq. */
export const ratingsProjector: Projector<RatingDoc> = {
  collection: 'ratings',
  eventTypes: ['RatingSubmitted'],
  indexes: ['userId'],
  ids: (event) => [dataOf<RatingSubmitted['data']>(event).ratingId],
  evolve: (_doc, event) => ratingDocFrom(event),
};

/** latest-ratings: each user's newest rating, keyed by user id. */
export const latestRatingsProjector: Projector<RatingDoc> = {
  collection: 'latest-ratings',
  eventTypes: ['RatingSubmitted'],
  ids: (event) => [dataOf<RatingSubmitted['data']>(event).userId],
  evolve: (_doc, event) => ratingDocFrom(event),
};
