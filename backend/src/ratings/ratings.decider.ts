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

/**
 * The stream's rating events, newest first, as a persistent list: folding an event is O(1) (a person with 10,000
 * ratings folds their stream in milliseconds), and a decision walks it once (`standingRating`, `newestStanding`).
 */
export interface RatingHistory {
  readonly event: RatingEvent;
  readonly older: RatingHistory | null;
}

export interface RatingsState {
  keyed: ReadonlyArray<RatingSubmitted['data']>;
  /** Every rating event of the stream, newest first. */
  history: RatingHistory | null;
}

/** The rating an Idempotency-Key already saved, if the stream remembers it. */
export function ratingSavedWith(state: RatingsState, key: string): RatingSubmitted['data'] | undefined {
  return state.keyed.find((d) => d.idempotencyKey === key);
}

export const RATING_NOT_FOUND = 'Rating not found';

const factsOf = (d: RatingFacts): RatingFacts => {
  const { ratingId, userId, relationships, health, purpose, growth, joy, overallScore, submittedAt } = d;
  return { ratingId, userId, relationships, health, purpose, growth, joy, overallScore, submittedAt };
};

/**
 * A rating as it stands now, with its values as last corrected; undefined when the stream has no such rating or
 * it was withdrawn. The newest event about it decides.
 */
export function standingRating(state: RatingsState, ratingId: string): RatingFacts | undefined {
  for (let node = state.history; node; node = node.older) {
    const { event } = node;
    if (event.data.ratingId !== ratingId) continue;
    return event.type === 'RatingWithdrawn' ? undefined : factsOf(event.data);
  }
  return undefined;
}

/** The newest rating that stands, leaving out `except`, with its current values. */
function newestStanding(state: RatingsState, except: string): RatingFacts | undefined {
  // Newest by the time it was made, not by stream order: an imported rating is appended long after it was made.
  const decided = new Set<string>([except]);
  const corrected = new Map<string, RatingFacts>();
  let newest: RatingFacts | undefined;
  for (let node = state.history; node; node = node.older) {
    const { event } = node;
    const id = event.data.ratingId;
    if (decided.has(id)) continue;
    if (event.type === 'RatingWithdrawn') decided.add(id);
    else if (event.type === 'RatingCorrected') corrected.set(id, corrected.get(id) ?? factsOf(event.data));
    else {
      const facts = corrected.get(id) ?? factsOf(event.data);
      if (!newest || Date.parse(facts.submittedAt) > Date.parse(newest.submittedAt)) newest = facts;
    }
  }
  return newest;
}

/** Every rating that stands, oldest first, with its values as last corrected (the account export). */
export function standingRatings(events: Iterable<{ type: string; data: object }>): RatingFacts[] {
  const ratings = new Map<string, RatingFacts>();
  for (const { type, data } of events) {
    const d = data as RatingFacts;
    if (type === 'RatingSubmitted') ratings.set(d.ratingId, factsOf(d));
    else if (type === 'RatingCorrected' && ratings.has(d.ratingId)) ratings.set(d.ratingId, factsOf(d));
    else if (type === 'RatingWithdrawn') ratings.delete(d.ratingId);
  }
  return [...ratings.values()];
}

/** The same 404 for a rating that never existed, another person's and a withdrawn one. */
function standing(state: RatingsState, ratingId: string): RatingFacts {
  const rating = standingRating(state, ratingId);
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
  const latest = newestStanding(state, ratingId);
  const { userId: _owner, ...latestFacts } = latest ?? ({} as RatingFacts);
  return [
    {
      type: 'RatingWithdrawn',
      data: { ratingId, userId, submittedAt: rating.submittedAt, withdrawnAt: at.toISOString(), latest: latest ? latestFacts : null },
    },
  ];
}

export const ratingsDecider: Decider<RatingsState, RatingsCommand, RatingEvent> = {
  initialState: { keyed: [], history: null },
  evolve(state, event) {
    if (event.type !== 'RatingSubmitted' && event.type !== 'RatingCorrected' && event.type !== 'RatingWithdrawn') return state;
    const keyed = event.type === 'RatingSubmitted' && event.data.idempotencyKey ? [...state.keyed.slice(1 - KEYS_REMEMBERED), event.data] : state.keyed;
    // Only type and data are kept (not the stored event's metadata): the cached state of a stream stays small.
    return { keyed, history: { event: { type: event.type, data: event.data } as RatingEvent, older: state.history } };
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
