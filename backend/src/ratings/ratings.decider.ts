import {
  dayOf,
  DEFAULT_TIME_ZONE,
  DomainError,
  FACTOR_NAMES,
  type FactorScores,
  isFactorScore,
  latestFirst,
  NOTE_MAX,
  fitsLength,
  normalizeNote,
  overallScore,
  rateableDayProblem,
  type RatedAt,
  RATINGS_PER_DAY_MAX,
  type RatingView,
} from '@joy/domain';
import { Decider, DomainEvent } from '../event-store/decider';
import { nameProblem } from '../names/name-rule';

/**
 * A rating's facts as its events carry them (upcast, rating-events.ts): the five factors, their mean, who and when,
 * the day it rates (in the person's zone) and the owner's note (plaintext here; encrypted in the stored event).
 */
export type RatingFacts = FactorScores & {
  ratingId: string;
  userId: string;
  overallScore: number;
  submittedAt: string;
  day: string;
  note?: string | null;
};

export type RatingSubmitted = DomainEvent<'RatingSubmitted', RatingFacts & { idempotencyKey?: string }>;
/** The owner changed the five factors of one of their ratings; it keeps its id and its time (`submittedAt`). */
export type RatingCorrected = DomainEvent<'RatingCorrected', RatingFacts & { correctedAt: string }>;
/**
 * The owner withdrew one of their ratings: it no longer counts anywhere. `latest` is their newest rating that
 * remains (what "latest" reads show from now on), null when none remains.
 */
export type RatingWithdrawn = DomainEvent<
  'RatingWithdrawn',
  {
    ratingId: string;
    userId: string;
    submittedAt: string;
    /** The withdrawn rating's day (the week it counted in); absent on events from before days were kept. */
    day?: string;
    withdrawnAt: string;
    latest: Omit<RatingFacts, 'userId' | 'note'> | null;
  }
>;
/**
 * Account deletion closes the person's ratings stream before `UserDeleted`: a rating sent at that moment is then
 * either appended before it (and goes with the account) or refused, never appended after the deletion.
 */
export type RatingsClosed = DomainEvent<'RatingsClosed', { userId: string; closedAt: string }>;
/** What happens to ratings (what the stream's history holds). */
export type RatingChange = RatingSubmitted | RatingCorrected | RatingWithdrawn;
export type RatingEvent = RatingChange | RatingsClosed;
/** Said to a request that finds its stream closed: its account was deleted meanwhile (its session is over too). */
export const ACCOUNT_DELETED = 'This account has been deleted.';

/** A rating as its owner sees it, from its event. */
export function ratingViewOf(d: Omit<RatingFacts, 'userId'>): RatingView {
  const { ratingId: id, submittedAt: createdAt, overallScore, relationships, health, purpose, growth, joy, day } = d;
  return { id, createdAt, overallScore, relationships, health, purpose, growth, joy, day, note: d.note ?? null };
}

export interface SubmitRating {
  kind?: 'submit';
  ratingId: string;
  userId: string;
  scores: FactorScores;
  at: Date;
  /** The person's time zone (their setting; UTC when unset or left out): what "today" is. */
  timeZone?: string;
  /** The day rated (`YYYY-MM-DD`), today when left out: up to RATEABLE_DAYS_BACK days back, never ahead. */
  day?: string;
  note?: string | null;
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
  /** The new note (null or blank: none); left out (undefined), the note stays as it is. */
  note?: string | null;
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
  readonly event: RatingChange;
  readonly older: RatingHistory | null;
}

export interface RatingsState {
  keyed: ReadonlyArray<RatingSubmitted['data']>;
  /** Every rating event of the stream, newest first. */
  history: RatingHistory | null;
  /** The account was deleted (`RatingsClosed`): nothing more is written here. */
  closed?: true;
}

/** The rating an Idempotency-Key already saved, if the stream remembers it. */
export function ratingSavedWith(state: RatingsState, key: string): RatingSubmitted['data'] | undefined {
  return state.keyed.find((d) => d.idempotencyKey === key);
}

export const RATING_NOT_FOUND = 'Rating not found';

const factsOf = (d: RatingFacts): RatingFacts => {
  const { ratingId, userId, relationships, health, purpose, growth, joy, overallScore, submittedAt, day } = d;
  return { ratingId, userId, relationships, health, purpose, growth, joy, overallScore, submittedAt, day, note: d.note ?? null };
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
const ratedAt = (facts: RatingFacts): RatedAt => ({ day: facts.day, createdAt: facts.submittedAt });

function newestStanding(state: RatingsState, except: string): RatingFacts | undefined {
  // Latest by its day, then by the time it was made (latestFirst), not by stream order: an imported rating is
  // appended long after it was made, and a missed day rated today is that day's rating.
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
      if (!newest || latestFirst(ratedAt(facts), ratedAt(newest)) < 0) newest = facts;
    }
  }
  return newest;
}

/** Every rating that stands, oldest first, with its values as last corrected (the account export); `events` upcast (rating-events.ts). */
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

/** Why a day takes no more ratings (409 `rating.day_full`): a rating made here or imported. */
export const dayFullMessage = (day: string) =>
  `${day} already has ${RATINGS_PER_DAY_MAX} ratings, the most one day can hold. Delete one of them to add another.`;

/** How many of the stream's ratings that stand (not withdrawn) rate `day`. */
function standingRatingsOn(state: RatingsState, day: string): number {
  return state.history ? (dayCountsAt(state.history).get(day) ?? 0) : 0;
}

/**
 * Standing ratings per day at a point of the history, kept for the newest point asked about and moved forward by
 * the events since (a save asks at the head its own last save left, one event on): a walk of the whole history at
 * every save was a tenth of the writes' time for a person with 4,000 ratings. Identity-keyed, like the folded state
 * it describes; a point asked about again after it was moved on is walked again.
 */
const dayCounts = new WeakMap<RatingHistory, Map<string, number>>();

function dayCountsAt(history: RatingHistory): Map<string, number> {
  const known = dayCounts.get(history);
  if (known) return known;
  const before = history.older && dayCounts.get(history.older);
  const { event } = history;
  let counts: Map<string, number>;
  // A withdrawal from before days were kept does not say its rating's day: walked.
  if (before && (event.type !== 'RatingWithdrawn' || event.data.day !== undefined)) {
    dayCounts.delete(history.older!);
    counts = before;
    const change = event.type === 'RatingSubmitted' ? 1 : event.type === 'RatingWithdrawn' ? -1 : 0;
    if (change !== 0) counts.set(event.data.day!, (counts.get(event.data.day!) ?? 0) + change);
  } else {
    counts = new Map();
    const withdrawn = new Set<string>();
    for (let node: RatingHistory | null = history; node; node = node.older) {
      const e = node.event;
      // A withdrawal is newer than the rating it withdraws: met first on the way from the newest.
      if (e.type === 'RatingWithdrawn') withdrawn.add(e.data.ratingId);
      else if (e.type === 'RatingSubmitted' && !withdrawn.has(e.data.ratingId)) counts.set(e.data.day, (counts.get(e.data.day) ?? 0) + 1);
    }
  }
  dayCounts.set(history, counts);
  return counts;
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

const invalid = (field: string, message: string): never => {
  throw new DomainError('request.invalid', message, [{ field, message }]);
};

/** The day a new rating rates: `day` if it can be rated (400 naming `day` otherwise), else today, in the zone. */
function rateableDay(day: string | undefined, at: Date, timeZone = DEFAULT_TIME_ZONE): string {
  const today = dayOf(at, timeZone)!;
  if (day === undefined) return today;
  const problem = rateableDayProblem(day, today);
  return problem ? invalid('day', problem) : day;
}

/** A note as stored: trimmed, null for none; 400 naming `note` beyond NOTE_MAX characters or with hidden characters. */
export function validNote(note: unknown): string | null {
  if (note !== undefined && note !== null && typeof note !== 'string') invalid('note', 'note must be text');
  const text = normalizeNote(note as string | null | undefined);
  if (text === null) return null;
  if (!fitsLength(text, NOTE_MAX)) invalid('note', `note must be at most ${NOTE_MAX} characters`);
  const problem = nameProblem(text, 'note', { multiline: true });
  return problem ? invalid('note', problem) : text;
}

function decideSubmit({ ratingId, userId, scores, at, timeZone, idempotencyKey, ...command }: SubmitRating, state: RatingsState): RatingEvent[] {
  const factors = validScores(scores);
  const day = rateableDay(command.day, at, timeZone);
  const note = validNote(command.note);
  if (idempotencyKey) {
    const saved = ratingSavedWith(state, idempotencyKey);
    const same = saved && FACTOR_NAMES.every((f) => saved[f] === factors[f]) && (command.day === undefined || saved.day === day) && (saved.note ?? null) === note;
    // The same save again answers the rating it made, unless that rating was deleted since: saving it anew
    // would bring back what the person deleted, answering it would name a rating that is gone.
    if (same && !standingRating(state, saved.ratingId)) throw new DomainError('rating.idempotency_key_withdrawn', 'The rating this Idempotency-Key saved has been deleted since; send a new key to save a new rating');
    if (same) return [];
    if (saved) throw new DomainError('rating.idempotency_key_reused', 'This Idempotency-Key already saved a different rating; send a new key for a new rating');
  }
  if (standingRatingsOn(state, day) >= RATINGS_PER_DAY_MAX) throw new DomainError('rating.day_full', dayFullMessage(day));
  return [
    {
      type: 'RatingSubmitted',
      data: {
        ratingId,
        userId,
        ...factors,
        overallScore: overallScore(factors),
        submittedAt: at.toISOString(),
        day,
        ...(note !== null ? { note } : {}),
        ...(idempotencyKey ? { idempotencyKey } : {}),
      },
    },
  ];
}

function decideCorrect({ ratingId, userId, scores, at, ...command }: CorrectRating, state: RatingsState): RatingEvent[] {
  const rating = standing(state, ratingId);
  const factors = validScores(scores);
  const note = command.note === undefined ? (rating.note ?? null) : validNote(command.note);
  // The same values again (a retried save): nothing changes.
  if (FACTOR_NAMES.every((f) => rating[f] === factors[f]) && (rating.note ?? null) === note) return [];
  return [
    {
      type: 'RatingCorrected',
      data: {
        ratingId,
        userId,
        ...factors,
        overallScore: overallScore(factors),
        submittedAt: rating.submittedAt,
        day: rating.day,
        note,
        correctedAt: at.toISOString(),
      },
    },
  ];
}

function decideWithdraw({ ratingId, userId, at }: WithdrawRating, state: RatingsState): RatingEvent[] {
  const rating = standing(state, ratingId);
  const latest = newestStanding(state, ratingId);
  // The note stays out: this event is stored in plaintext (and its `latest` is read by group views).
  const { userId: _owner, note: _note, ...latestFacts } = latest ?? ({} as RatingFacts);
  return [
    {
      type: 'RatingWithdrawn',
      data: { ratingId, userId, submittedAt: rating.submittedAt, day: rating.day, withdrawnAt: at.toISOString(), latest: latest ? latestFacts : null },
    },
  ];
}

export const ratingsDecider: Decider<RatingsState, RatingsCommand, RatingEvent> = {
  initialState: { keyed: [], history: null },
  evolve(state, event) {
    if (event.type === 'RatingsClosed') return { ...state, closed: true };
    if (event.type !== 'RatingSubmitted' && event.type !== 'RatingCorrected' && event.type !== 'RatingWithdrawn') return state;
    const keyed = event.type === 'RatingSubmitted' && event.data.idempotencyKey ? [...state.keyed.slice(1 - KEYS_REMEMBERED), event.data] : state.keyed;
    // Only type and data are kept (not the stored event's metadata): the cached state of a stream stays small.
    return { ...state, keyed, history: { event: { type: event.type, data: event.data } as RatingChange, older: state.history } };
  },
  decide(command, state) {
    if (state.closed) throw new DomainError('auth.unauthorized', ACCOUNT_DELETED);
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
