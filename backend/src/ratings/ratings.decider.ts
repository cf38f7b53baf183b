import { DomainError, FACTOR_NAMES, type FactorScores, isFactorScore, overallScore, type RatingView } from '@joy/domain';
import { Decider, DomainEvent } from '../event-store/decider';

/** A rating's facts as its events carry them: the five factors, their mean, who and when. */
export type RatingFacts = FactorScores & { ratingId: string; userId: string; overallScore: number; submittedAt: string };

export type RatingSubmitted = DomainEvent<'RatingSubmitted', RatingFacts & { idempotencyKey?: string }>;
/** The owner changed the five factors of one of their ratings; it keeps its id and its time (`submittedAt`). */
export type RatingCorrected = DomainEvent<'RatingCorrected', RatingFacts & { correctedAt: string }>;
/**
 * The owner withdrew one of their ratings: it no longer counts anywhere. `latest` is their newest rating that
 * remains (what "latest" reads show from now on), null when none remains.
 */
export type RatingWithdrawn = DomainEvent<
  'RatingWithdrawn',
  { ratingId: string; userId: string; submittedAt: string; withdrawnAt: string; latest: Omit<RatingFacts, 'userId'> | null }
>;
export type RatingEvent = RatingSubmitted | RatingCorrected | RatingWithdrawn;

/** A rating as its owner sees it, from its event. */
export function ratingViewOf(d: Omit<RatingFacts, 'userId'>): RatingView {
  const { ratingId: id, submittedAt: createdAt, overallScore, relationships, health, purpose, growth, joy } = d;
  return { id, createdAt, overallScore, relationships, health, purpose, growth, joy };
}

export interface SubmitRating {
  kind?: 'submit';
  ratingId: string;
  userId: string;
  scores: FactorScores;
  at: Date;
  /** The client's Idempotency-Key: one save, one rating, however often the request is sent. */
  idempotencyKey?: string;
}

/** PUT /api/joy-ratings/:id: new values for the five factors of one of the person's own ratings. */
export interface CorrectRating {
  kind: 'correct';
  ratingId: string;
  userId: string;
  scores: FactorScores;
  at: Date;
}

/** DELETE /api/joy-ratings/:id. */
export interface WithdrawRating {
  kind: 'withdraw';
  ratingId: string;
  userId: string;
  at: Date;
}

export type RatingsCommand = SubmitRating | CorrectRating | WithdrawRating;

/**
 * A save is retried within seconds (a double click, a lost answer), so the keys of a person's latest
 * ratings are enough to know one again: the state keeps the last KEYS_REMEMBERED of them.
 */
export const KEYS_REMEMBERED = 100;
export interface RatingsState {
  keyed: ReadonlyArray<RatingSubmitted['data']>;
  /** The person's ratings that stand (not withdrawn), with their current values, oldest first. */
  ratings: ReadonlyMap<string, RatingFacts>;
}

/** The rating an Idempotency-Key already saved, if the stream remembers it. */
export function ratingSavedWith(state: RatingsState, key: string): RatingSubmitted['data'] | undefined {
  return state.keyed.find((d) => d.idempotencyKey === key);
}

export const RATING_NOT_FOUND = 'Rating not found';

/** The same 404 for a rating that never existed, another person's and a withdrawn one. */
function standing(state: RatingsState, ratingId: string): RatingFacts {
  const rating = state.ratings.get(ratingId);
  if (!rating) throw new DomainError('rating.not_found', RATING_NOT_FOUND);
  return rating;
}

function validScores(scores: FactorScores): FactorScores {
  for (const factor of FACTOR_NAMES) {
    // The HTTP edge validates too; the rule lives here so no other entry point can break it.
    if (!isFactorScore(scores[factor])) {
      throw new DomainError('rating.factor_out_of_range', `${factor} must be a whole number from 1 to 5`);
    }
  }
  return Object.fromEntries(FACTOR_NAMES.map((f) => [f, scores[f]])) as FactorScores;
}

const factsOf = (d: RatingFacts): RatingFacts => {
  const { ratingId, userId, relationships, health, purpose, growth, joy, overallScore, submittedAt } = d;
  return { ratingId, userId, relationships, health, purpose, growth, joy, overallScore, submittedAt };
};

/** The newest standing rating (insertion order of the map is the stream's order). */
function newest(ratings: ReadonlyMap<string, RatingFacts>): RatingFacts | undefined {
  let last: RatingFacts | undefined;
  for (const r of ratings.values()) last = r;
  return last;
}

function decideSubmit({ ratingId, userId, scores, at, idempotencyKey }: SubmitRating, state: RatingsState): RatingEvent[] {
  if (idempotencyKey) {
    const saved = ratingSavedWith(state, idempotencyKey);
    if (saved && FACTOR_NAMES.every((f) => saved[f] === scores[f])) return [];
    if (saved) throw new DomainError('rating.idempotency_key_reused', 'This Idempotency-Key already saved a different rating; send a new key for a new rating');
  }
  const factors = validScores(scores);
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
}

function decideCorrect({ ratingId, userId, scores, at }: CorrectRating, state: RatingsState): RatingEvent[] {
  const rating = standing(state, ratingId);
  const factors = validScores(scores);
  // The same values again (a retried save): nothing changes.
  if (FACTOR_NAMES.every((f) => rating[f] === factors[f])) return [];
  return [
    {
      type: 'RatingCorrected',
      data: { ratingId, userId, ...factors, overallScore: overallScore(factors), submittedAt: rating.submittedAt, correctedAt: at.toISOString() },
    },
  ];
}

function decideWithdraw({ ratingId, userId, at }: WithdrawRating, state: RatingsState): RatingEvent[] {
  const rating = standing(state, ratingId);
  const remaining = new Map(state.ratings);
  remaining.delete(ratingId);
  const latest = newest(remaining);
  const { userId: _owner, ...latestFacts } = latest ?? ({} as RatingFacts);
  return [
    {
      type: 'RatingWithdrawn',
      data: { ratingId, userId, submittedAt: rating.submittedAt, withdrawnAt: at.toISOString(), latest: latest ? latestFacts : null },
    },
  ];
}

export const ratingsDecider: Decider<RatingsState, RatingsCommand, RatingEvent> = {
  initialState: { keyed: [], ratings: new Map() },
  evolve(state, event) {
    switch (event.type) {
      case 'RatingSubmitted': {
        const keyed = event.data.idempotencyKey ? [...state.keyed.slice(1 - KEYS_REMEMBERED), event.data] : state.keyed;
        return { keyed, ratings: new Map(state.ratings).set(event.data.ratingId, factsOf(event.data)) };
      }
      case 'RatingCorrected': {
        if (!state.ratings.has(event.data.ratingId)) return state;
        return { ...state, ratings: new Map(state.ratings).set(event.data.ratingId, factsOf(event.data)) };
      }
      case 'RatingWithdrawn': {
        const ratings = new Map(state.ratings);
        ratings.delete(event.data.ratingId);
        return { ...state, ratings };
      }
      default:
        return state;
    }
  },
  decide(command, state) {
    switch (command.kind) {
      case 'correct':
        return decideCorrect(command, state);
      case 'withdraw':
        return decideWithdraw(command, state);
      default:
        return decideSubmit(command, state);
    }
  },
};
