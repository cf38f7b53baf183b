import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler, IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { dayOf, dayScoresOf, DomainError, type FactorScores, type RatingCalendarView, type RatingView, streaksOf } from '@joy/domain';
import { decideAndAppend } from '../event-store/decider';
import { EVENT_STORE, type EventStore } from '../event-store/event-store.port';
import { KEY_STORE, type KeyStore } from '../identity/key-store';
import { READ_YOUR_WRITES, type ReadYourWrites } from '../projections/read-your-writes';
import { chunkId, type RatingDoc, type RatingTimelineDoc } from '../projections/ratings.projector';
import { READ_MODELS, type ReadModelStore } from '../read-models/read-model-store.port';
import { TIME_ZONE_LOOKUP, type TimeZoneLookup } from '../settings/time-zone';
import { dayOfStoredRating, openNote, ratingStreamCodec } from './rating-events';
import { type RatingCorrected, type RatingSubmitted, ratingSavedWith, ratingsDecider, ratingViewOf, standingRating } from './ratings.decider';
import { ratedDaysOf } from './rating-summary.handlers';

/** A rating document as its owner sees it: the note (stored encrypted) opened with their key. */
export function ratingView(doc: RatingDoc, key: Buffer | null): RatingView {
  const { id, createdAt, overallScore, relationships, health, purpose, growth, joy } = doc;
  return { id, createdAt, overallScore, relationships, health, purpose, growth, joy, day: dayOfStoredRating({ day: doc.day, submittedAt: createdAt }), note: openNote(key, doc.userId, doc.note) };
}

/**
 * The caller's ratings of these ids as their owner sees them, in the order given: a rating that a week names but
 * the ratings projection has not reached yet (they are two projections) is left out, as is anyone else's.
 */
export async function ownRatingsByIds(readModels: ReadModelStore, keys: KeyStore, userId: string, ids: readonly string[]): Promise<RatingView[]> {
  const [docs, key] = await Promise.all([Promise.all(ids.map((id) => readModels.get<RatingDoc>('ratings', id))), keys.existingKey(userId)]);
  return docs.filter((doc): doc is NonNullable<(typeof docs)[number]> => doc !== null && doc.userId === userId).map((doc) => ratingView(doc, key));
}

/**
 * Ratings newest first by the time each was made, then by position (the order of the events), each time parsed once:
 * a page sorts the ratings of a chunk or two (up to 1,000), and parsing in the comparison was a tenth of a page's work.
 */
function newestRatingsFirst(docs: RatingDoc[]): RatingDoc[] {
  const times = new Map(docs.map((doc) => [doc, Date.parse(doc.createdAt)]));
  return docs.sort((a, b) => times.get(b)! - times.get(a)! || b.seq - a.seq);
}

export class SubmitRatingCommand {
  constructor(
    readonly userId: string,
    readonly scores: FactorScores,
    /** The Idempotency-Key header, when the client sent one. */
    readonly idempotencyKey?: string,
    /** The day rated (today when left out) and the note. */
    readonly extra: { day?: string; note?: string | null } = {},
  ) {}
}

@CommandHandler(SubmitRatingCommand)
export class SubmitRatingHandler implements ICommandHandler<SubmitRatingCommand, RatingView> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_YOUR_WRITES) private readonly readYourWrites: ReadYourWrites,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
    @Inject(TIME_ZONE_LOOKUP) private readonly timeZoneOf: TimeZoneLookup,
  ) {}

  async execute({ userId, scores, idempotencyKey, extra }: SubmitRatingCommand): Promise<RatingView> {
    const ratingId = randomUUID();
    const [timeZone, key] = await Promise.all([this.timeZoneOf(userId), this.keys.keyFor(userId)]);
    const { events, append, state } = await decideAndAppend(
      this.store,
      `ratings-${userId}`,
      ratingsDecider,
      { ratingId, userId, scores, at: new Date(), timeZone, day: extra.day, note: extra.note, idempotencyKey },
      { actorUserId: userId },
      { eventIds: () => [ratingId], ...ratingStreamCodec(key) },
    );
    // The key saved this rating before (a double click, a retried request): the same answer, nothing stored
    // (with its values as corrected since, if it was).
    if (!append) {
      const saved = ratingSavedWith(state, idempotencyKey!)!;
      return ratingViewOf(standingRating(state, saved.ratingId)!);
    }
    // Read-your-writes: answer once the lists the user reads next include this rating.
    await this.readYourWrites.waitFor(append!.position, { eventTypes: ['RatingSubmitted'] });
    return ratingViewOf(events[0].data as RatingSubmitted['data']);
  }
}

export class CorrectRatingCommand {
  constructor(
    readonly userId: string,
    readonly ratingId: string,
    readonly scores: FactorScores,
    /** Left out: the note stays as it is. */
    readonly note?: string | null,
  ) {}
}

/** PUT /api/joy-ratings/:id: the person's own rating with new values (404 for any other, or a withdrawn one). */
@CommandHandler(CorrectRatingCommand)
export class CorrectRatingHandler implements ICommandHandler<CorrectRatingCommand, RatingView> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_YOUR_WRITES) private readonly readYourWrites: ReadYourWrites,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
  ) {}

  async execute({ userId, ratingId, scores, note }: CorrectRatingCommand): Promise<RatingView> {
    const at = new Date();
    const { events, append, state } = await decideAndAppend(
      this.store,
      `ratings-${userId}`,
      ratingsDecider,
      { kind: 'correct', ratingId, userId, scores, at, note },
      { actorUserId: userId, now: at },
      ratingStreamCodec(await this.keys.keyFor(userId)),
    );
    // The same values it already has: nothing stored, the rating as it is.
    if (!append) return ratingViewOf(standingRating(state, ratingId)!);
    await this.readYourWrites.waitFor(append.position, { eventTypes: ['RatingCorrected'] });
    return ratingViewOf(events[0].data as RatingCorrected['data']);
  }
}

export class WithdrawRatingCommand {
  constructor(
    readonly userId: string,
    readonly ratingId: string,
  ) {}
}

/** DELETE /api/joy-ratings/:id: the person's own rating stops counting anywhere (404 for any other). */
@CommandHandler(WithdrawRatingCommand)
export class WithdrawRatingHandler implements ICommandHandler<WithdrawRatingCommand, void> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_YOUR_WRITES) private readonly readYourWrites: ReadYourWrites,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
  ) {}

  async execute({ userId, ratingId }: WithdrawRatingCommand): Promise<void> {
    const at = new Date();
    const { append } = await decideAndAppend(
      this.store,
      `ratings-${userId}`,
      ratingsDecider,
      { kind: 'withdraw', ratingId, userId, at },
      { actorUserId: userId, now: at },
      ratingStreamCodec(await this.keys.existingKey(userId)),
    );
    await this.readYourWrites.waitFor(append!.position, { eventTypes: ['RatingWithdrawn'] });
  }
}

/** Where a page of the list ends: the last rating's time (ms) and position; the next page starts after it. */
export interface RatingCursor {
  at: number;
  seq: number;
}

/** The cursor as the API shows it (`X-Next-Before`, `Link`): opaque, URL-safe. */
export function encodeCursor(cursor: RatingCursor): string {
  return Buffer.from(`${cursor.at}.${cursor.seq}`).toString('base64url');
}

/** The cursor a client sent, or undefined when it is none of ours. */
export function decodeCursor(text: string): RatingCursor | undefined {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(text)) return undefined;
  const match = /^(-?\d{1,16})\.(\d{1,16})$/.exec(Buffer.from(text, 'base64url').toString());
  if (!match) return undefined;
  return { at: Number(match[1]), seq: Number(match[2]) };
}

export const cursorOf = (doc: RatingDoc): RatingCursor => ({ at: Date.parse(doc.createdAt), seq: doc.seq });

/** Whether the rating comes after the cursor in the list (older, or as old and earlier in the stream). */
const after = (cursor: RatingCursor | undefined) => (doc: RatingDoc) => {
  if (!cursor) return true;
  const at = Date.parse(doc.createdAt);
  return at < cursor.at || (at === cursor.at && doc.seq < cursor.seq);
};

export interface RatingsPage {
  ratings: RatingView[];
  /** The cursor of the next page; absent on the last one. */
  next?: string;
}

export class GetRatingsPageQuery {
  constructor(
    readonly userId: string,
    readonly limit: number,
    readonly before?: RatingCursor,
  ) {}
}

/**
 * One page of the list, newest first (the order of the whole list): the ratings after the cursor, at most
 * `limit`. Read through rating-timeline: the chunks are visited newest span first, and the visit stops once the
 * page is full and no chunk left can hold a newer rating than the page's last. For ratings that arrived in time
 * order that is one or two chunks of at most 500, however long the list.
 */
@QueryHandler(GetRatingsPageQuery)
export class GetRatingsPageHandler implements IQueryHandler<GetRatingsPageQuery, RatingsPage> {
  constructor(
    @Inject(READ_MODELS) private readonly readModels: ReadModelStore,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
  ) {}

  async execute({ userId, limit, before }: GetRatingsPageQuery): Promise<RatingsPage> {
    const timeline = await this.readModels.get<RatingTimelineDoc>('rating-timeline', userId);
    // limit + 1: whether there is a next page.
    // Version 2 of the ratings projection is built from each stream's first event: whoever has a rating has a
    // timeline that starts at it (RatingTimelineDoc.firstVersion 1), and no timeline means no ratings.
    let found: RatingDoc[] = [];
    const chunks = (timeline?.chunks ?? []).filter((c) => !before || c.oldest <= before.at).sort((a, b) => b.newest - a.newest);
    for (const chunk of chunks) {
      if (found.length > limit && chunk.newest < Date.parse(found[limit].createdAt)) break;
      const docs = await this.readModels.find<RatingDoc>('ratings', { chunk: chunkId(userId, chunk.n) });
      found = newestRatingsFirst(found.concat(docs.filter(after(before)))).slice(0, limit + 1);
    }
    const ratings = found.slice(0, limit);
    // The notes are opened with the person's key, as in the whole list.
    const key = await this.keys.existingKey(userId);
    return { ratings: ratings.map((doc) => ratingView(doc, key)), ...(found.length > limit ? { next: encodeCursor(cursorOf(ratings[limit - 1])) } : {}) };
  }
}

export class GetRatingsOfDayQuery {
  constructor(
    readonly userId: string,
    /** `YYYY-MM-DD`: the day the ratings are for (each rating's own day, as the calendar counts it). */
    readonly day: string,
  ) {}
}

/**
 * GET /api/joy-ratings/days/:day: the caller's standing ratings of one day, newest first, with their notes: what
 * History shows when a day of its calendar is picked. The day's week document (rating-weeks) names them, at most
 * 100 (a day's cap), and each is read by id, so no list is searched; a rating of someone else is never among them,
 * since the week is the caller's own.
 */
@QueryHandler(GetRatingsOfDayQuery)
export class GetRatingsOfDayHandler implements IQueryHandler<GetRatingsOfDayQuery, RatingView[]> {
  constructor(
    @Inject(READ_MODELS) private readonly readModels: ReadModelStore,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
  ) {}

  async execute({ userId, day }: GetRatingsOfDayQuery): Promise<RatingView[]> {
    const [rated] = await ratedDaysOf(this.readModels, userId, day, day);
    if (!rated) return [];
    // Newest first by the time made; a tie, the later event first (the entries are in the order of the events).
    const newest = [...rated.ratings].reverse().sort((a, b) => Date.parse(b[1]) - Date.parse(a[1])).map(([ratingId]) => ratingId);
    return ownRatingsByIds(this.readModels, this.keys, userId, newest);
  }
}

export class GetLatestRatingQuery {
  constructor(readonly userId: string) {}
}

@QueryHandler(GetLatestRatingQuery)
export class GetLatestRatingHandler implements IQueryHandler<GetLatestRatingQuery, RatingView | null> {
  constructor(
    @Inject(READ_MODELS) private readonly readModels: ReadModelStore,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
  ) {}

  async execute({ userId }: GetLatestRatingQuery): Promise<RatingView | null> {
    const latest = await this.readModels.get<RatingDoc>('latest-ratings', userId);
    if (!latest) return null;
    // The rating's own document for its note: after the newest is withdrawn, latest-ratings is rebuilt from
    // RatingWithdrawn.latest, which leaves the note out (the event is plaintext).
    const doc = (await this.readModels.get<RatingDoc>('ratings', latest.id)) ?? latest;
    return ratingView(doc, await this.keys.existingKey(userId));
  }
}

export class GetRatingCalendarQuery {
  constructor(
    readonly userId: string,
    readonly year: number,
    readonly now: Date = new Date(),
  ) {}
}

/**
 * GET /api/joy-ratings/calendar?year=YYYY: the rated days of that year with their mean score and count, and the
 * streaks (over every year), from the person's rated days (rating-weeks): a correction or a withdrawal is in them as
 * soon as it is made.
 */
@QueryHandler(GetRatingCalendarQuery)
export class GetRatingCalendarHandler implements IQueryHandler<GetRatingCalendarQuery, RatingCalendarView> {
  constructor(
    @Inject(READ_MODELS) private readonly readModels: ReadModelStore,
    @Inject(TIME_ZONE_LOOKUP) private readonly timeZoneOf: TimeZoneLookup,
  ) {}

  async execute({ userId, year, now }: GetRatingCalendarQuery): Promise<RatingCalendarView> {
    if (!Number.isInteger(year) || year < 1970 || year > 9999) {
      throw new DomainError('request.invalid', 'year must be a year such as 2026', [{ field: 'year', message: 'year must be a year such as 2026' }]);
    }
    // Every rated day (the streaks span years), from the person's weeks: a few small documents a year, not every rating.
    const [rated, timeZone] = await Promise.all([ratedDaysOf(this.readModels, userId, null, null), this.timeZoneOf(userId)]);
    const prefix = `${String(year).padStart(4, '0')}-`;
    const days = dayScoresOf(rated.filter((d) => d.day.startsWith(prefix)));
    return { year, days, ...streaksOf(rated.map((d) => d.day), dayOf(now, timeZone)!) };
  }
}
