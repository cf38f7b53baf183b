import { DomainError, FACTOR_NAMES, type FactorScores, isFactorScore, overallScore, type RatingView } from '@joy/domain';
import { Decider, DomainEvent } from '../event-store/decider';

export type RatingSubmitted = DomainEvent<
  'RatingSubmitted',
  FactorScores & { ratingId: string; userId: string; overallScore: number; submittedAt: string }
>;
export type RatingEvent = RatingSubmitted;

/** A rating as its owner sees it, from its event. */
export function ratingViewOf(d: RatingSubmitted['data']): RatingView {
  const { ratingId: id, submittedAt: createdAt, overallScore, relationships, health, purpose, growth, joy } = d;
  return { id, createdAt, overallScore, relationships, health, purpose, growth, joy };
}

export interface SubmitRating {
  ratingId: string;
  userId: string;
  scores: FactorScores;
  at: Date;
}

export const ratingsDecider: Decider<null, SubmitRating, RatingEvent> = {
  initialState: null,
  evolve: (state) => state,
  decide({ ratingId, userId, scores, at }) {
    for (const factor of FACTOR_NAMES) {
      // The HTTP edge validates too; the rule lives here so no other entry point can break it.
      if (!isFactorScore(scores[factor])) {
        throw new DomainError('rating.factor_out_of_range', `${factor} must be a whole number from 1 to 5`);
      }
    }
    const factors = Object.fromEntries(FACTOR_NAMES.map((f) => [f, scores[f]])) as FactorScores;
    return [
      {
        type: 'RatingSubmitted',
        data: { ratingId, userId, ...factors, overallScore: overallScore(factors), submittedAt: at.toISOString() },
      },
    ];
  },
};
