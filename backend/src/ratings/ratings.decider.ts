import { DomainError, FACTOR_NAMES, type FactorScores, isFactorScore, overallScore, type RatingView } from '@joy/domain';
import { Decider, DomainEvent } from '../event-store/decider';

export type RatingSubmitted = DomainEvent<
  'RatingSubmitted',
  FactorScores & { ratingId: string; userId: string; overallScore: number; submittedAt: string; idempotencyKey?: string }
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
  /** The client's Idempotency-Key: one save, one rating, however often the request is sent. */
  idempotencyKey?: string;
}

/**
 * A save is retried within seconds (a double click, a lost answer), so the keys of a person's latest
 * ratings are enough to know one again: the state keeps the last KEYS_REMEMBERED of them.
 */
export const KEYS_REMEMBERED = 100;
export interface RatingsState {
  keyed: ReadonlyArray<RatingSubmitted['data']>;
}

/** The rating an Idempotency-Key already saved, if the stream remembers it. */
export function ratingSavedWith(state: RatingsState, key: string): RatingSubmitted['data'] | undefined {
  return state.keyed.find((d) => d.idempotencyKey === key);
}

export const ratingsDecider: Decider<RatingsState, SubmitRating, RatingEvent> = {
  initialState: { keyed: [] },
  evolve: (state, event) => (event.data.idempotencyKey ? { keyed: [...state.keyed.slice(1 - KEYS_REMEMBERED), event.data] } : state),
  decide({ ratingId, userId, scores, at, idempotencyKey }, state) {
    if (idempotencyKey) {
      const saved = ratingSavedWith(state, idempotencyKey);
      if (saved && FACTOR_NAMES.every((f) => saved[f] === scores[f])) return [];
      if (saved) throw new DomainError('rating.idempotency_key_reused', 'This Idempotency-Key already saved a different rating; send a new key for a new rating');
    }
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
        data: {
          ratingId,
          userId,
          ...factors,
          overallScore: overallScore(factors),
          submittedAt: at.toISOString(),
          ...(idempotencyKey ? { idempotencyKey } : {}),
        },
      },
    ];
  },
};
