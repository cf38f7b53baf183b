import { Decider, DomainError, DomainEvent } from '../event-store/decider';

/** The five PERMA factors, in the order the product shows them. */
export const FACTORS = ['relationships', 'health', 'purpose', 'growth', 'joy'] as const;
export type Factor = (typeof FACTORS)[number];
export type FactorScores = Record<Factor, number>;

export type RatingSubmitted = DomainEvent<
  'RatingSubmitted',
  FactorScores & { ratingId: string; userId: string; overallScore: number; submittedAt: string }
>;
export type RatingEvent = RatingSubmitted;

export interface SubmitRating {
  ratingId: string;
  userId: string;
  scores: FactorScores;
  at: Date;
}

/** The mean of the five factors, rounded to one decimal. */
export function overallScore(scores: FactorScores): number {
  const sum = FACTORS.reduce((total, f) => total + scores[f], 0);
  return Math.round((sum / FACTORS.length) * 10) / 10;
}

export const ratingsDecider: Decider<null, SubmitRating, RatingEvent> = {
  initialState: null,
  evolve: (state) => state,
  decide({ ratingId, userId, scores, at }) {
    for (const factor of FACTORS) {
      const value = scores[factor];
      // The HTTP edge validates too; the rule lives here so no other entry point can break it.
      if (!Number.isInteger(value) || value < 1 || value > 5) {
        throw new DomainError(400, `${factor} must be a whole number from 1 to 5`);
      }
    }
    const factors = Object.fromEntries(FACTORS.map((f) => [f, scores[f]])) as FactorScores;
    return [
      {
        type: 'RatingSubmitted',
        data: { ratingId, userId, ...factors, overallScore: overallScore(factors), submittedAt: at.toISOString() },
      },
    ];
  },
};
