import {
  addDays,
  dayOf,
  DEFAULT_TIME_ZONE,
  DomainError,
  FACTOR_NAMES,
  type FactorName,
  type FactorScores,
  type FieldError,
  type ImportResultView,
  FIRST_CALENDAR_DAY,
  fitsLength,
  isCalendarDay,
  isFactorScore,
  NOTE_MAX,
  normalizeNote,
  overallScore,
  RATEABLE_DAYS_BACK,
} from '@joy/domain';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { setImmediate as turn } from 'node:timers/promises';
import { decideAndAppend, foldStream } from '../event-store/decider';
import { EVENT_STORE, type EventStore } from '../event-store/event-store.port';
import { KEY_STORE, type KeyStore } from '../identity/key-store';
import { nameProblem } from '../names/name-rule';
import { READ_YOUR_WRITES, type ReadYourWrites } from '../projections/read-your-writes';
import { encodeRatingEvent } from '../ratings/rating-events';
import { TIME_ZONE_LOOKUP, type TimeZoneLookup } from '../settings/time-zone';
import { type RatingToImport, ratingsImportDecider } from '../ratings/ratings-import.decider';

/*
 * POST /api/account/import: the ratings of an export (GET /api/account/export?format=json, docs/account-export.md)
 * of this install or another one, added to the signed-in person's ratings at their original times. The whole file
 * is checked before anything is stored: one problem anywhere is a 400 naming its path (`ratings[3].health`) and
 * nothing is added. Ratings already here are skipped (ratings/ratings-import.decider.ts, docs/decisions.md).
 *
 * Only the ratings are imported. The file's other sections (profile, groups, care actions) describe things of the
 * install it came from (its groups, its people), so they are read past, as are top-level fields this version does
 * not know. Inside a rating every field is known and checked: an unknown one is refused rather than dropped.
 */

/** The export format this install writes and reads. */
export const IMPORT_FORMAT_VERSION = 1;
/** Ratings in one file at most: more than fifty a day for a year. */
export const MAX_IMPORT_RATINGS = 20_000;
/** Ratings appended per event-store write (EventStoreDB bounds the size of one append). */
export const IMPORT_CHUNK = 500;
/** A rating may be this much "in the future" (another install's clock may run a little ahead of this one's). */
export const CLOCK_SKEW_MS = 5 * 60_000;
/** Problems listed in one answer at most (the first one is the message), as many as an error answer lists (api-exception.filter.ts). */
const MAX_PROBLEMS = 10;

const RATING_FIELDS = new Set(['id', 'createdAt', 'overallScore', 'day', 'note', ...FACTOR_NAMES]);
/**
 * An instant as the export writes it (`toISOString`), or with seconds, fractions or an offset; its date must exist
 * too (`instantOf`): Date.parse moves 2026-02-30 and 24:00 to the next day instead of refusing them.
 */
const INSTANT = /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

/** The milliseconds of an instant written as INSTANT says, NaN for anything else. */
function instantOf(value: unknown): number {
  const m = typeof value === 'string' ? INSTANT.exec(value) : null;
  // (Its own check of the date, not isCalendarDay: a date before 1970 is refused with a message of its own below.)
  const date = m ? Date.parse(`${m[1]}T00:00:00Z`) : NaN;
  return Number.isFinite(date) && new Date(date).toISOString().startsWith(m![1]) ? Date.parse(value as string) : NaN;
}

export const IMPORT_MESSAGES = {
  incomplete: (imported: number) =>
    `The import stopped part way: ${imported} ${imported === 1 ? 'rating was' : 'ratings were'} imported before it stopped. Import the same file again to add the rest; nothing is added twice.`,
  notAnExport: 'The file is not a Joy export: choose the JSON file that "Download JSON" in Account saves.',
  formatVersion: `formatVersion must be ${IMPORT_FORMAT_VERSION} (a JSON export of Joy)`,
  ratings: 'ratings must be a list',
  tooMany: `ratings may hold at most ${MAX_IMPORT_RATINGS} ratings in one import`,
  rating: (path: string) => `${path} must be an object`,
  id: (path: string) => `${path} must be a string of 1 to 64 characters`,
  sameId: (path: string, first: string) => `${path} is the id of ${first} too, with other values: give each rating an id of its own`,
  createdAt: (path: string) => `${path} must be a date and time such as 2026-11-20T08:30:00.000Z`,
  future: (path: string) => `${path} must not be in the future`,
  afterToday: (path: string, timeZone: string) => `${path} must not be after today in your time zone (${timeZone}, in Settings)`,
  beforeJoy: (path: string) => `${path} must not be before 1970`,
  factor: (path: string) => `${path} must be a whole number from 1 to 5`,
  overallScore: (path: string) => `${path} must be the mean of the five factors to one decimal`,
  unknown: (path: string) => `${path} is not an accepted field`,
  day: (path: string) => `${path} must be a date written YYYY-MM-DD, on or up to ${RATEABLE_DAYS_BACK} days before the day of createdAt`,
  note: (path: string) => `${path} must be text of at most ${NOTE_MAX} characters, or null`,
  more: (count: number) => `The file has ${count} more problems than are listed here.`,
} as const;

function refuse(errors: FieldError[]): never {
  throw new DomainError('request.invalid', errors[0].message, errors.slice(0, MAX_PROBLEMS));
}

/**
 * The file's ratings, each checked; throws a 400 naming every problem's path (up to MAX_PROBLEMS). `timeZone` is the
 * person's: no rating may rate a day after their today (as none made here may). Pure, but it lets the event loop turn
 * after every IMPORT_CHUNK ratings: a file of 20,000 held everyone's requests for a tenth of a second.
 */
export async function ratingsOfExport(body: unknown, now: Date, timeZone: string = DEFAULT_TIME_ZONE): Promise<Omit<RatingToImport, 'ratingId'>[]> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) refuse([{ field: 'body', message: IMPORT_MESSAGES.notAnExport }]);
  const file = body as Record<string, unknown>;
  if (file.formatVersion === undefined && file.ratings === undefined) refuse([{ field: 'ratings', message: IMPORT_MESSAGES.notAnExport }]);
  if (file.formatVersion !== IMPORT_FORMAT_VERSION) refuse([{ field: 'formatVersion', message: IMPORT_MESSAGES.formatVersion }]);
  if (!Array.isArray(file.ratings)) refuse([{ field: 'ratings', message: IMPORT_MESSAGES.ratings }]);
  if (file.ratings.length > MAX_IMPORT_RATINGS) refuse([{ field: 'ratings', message: IMPORT_MESSAGES.tooMany }]);

  const problems: FieldError[] = [];
  // Every problem is counted, though only the first MAX_PROBLEMS are listed: a rating with one is never taken.
  let found = 0;
  const problem = (field: string, message: string) => {
    found++;
    if (problems.length < MAX_PROBLEMS) problems.push({ field, message });
  };
  const today = dayOf(now, timeZone)!;
  const ratings: Omit<RatingToImport, 'ratingId'>[] = [];
  /** Each id of the file, with where it was first and what it said. */
  const byId = new Map<string, { path: string; json: string }>();
  const check = (value: unknown, i: number) => {
    const path = `ratings[${i}]`;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return problem(path, IMPORT_MESSAGES.rating(path));
    const r = value as Record<string, unknown>;
    const before = found;
    for (const key of Object.keys(r)) if (!RATING_FIELDS.has(key)) problem(`${path}.${key}`, IMPORT_MESSAGES.unknown(`${path}.${key}`));
    if (typeof r.id !== 'string' || r.id.length < 1 || r.id.length > 64) problem(`${path}.id`, IMPORT_MESSAGES.id(`${path}.id`));
    const at = instantOf(r.createdAt);
    if (Number.isNaN(at)) problem(`${path}.createdAt`, IMPORT_MESSAGES.createdAt(`${path}.createdAt`));
    else if (at > now.getTime() + CLOCK_SKEW_MS) problem(`${path}.createdAt`, IMPORT_MESSAGES.future(`${path}.createdAt`));
    // Before 1970 a zone's day is not a day Joy can count (FIRST_CALENDAR_DAY): its week could not be worked out.
    else if (at < Date.parse(`${FIRST_CALENDAR_DAY}T00:00:00Z`)) problem(`${path}.createdAt`, IMPORT_MESSAGES.beforeJoy(`${path}.createdAt`));
    for (const f of FACTOR_NAMES) if (!isFactorScore(r[f])) problem(`${path}.${f}`, IMPORT_MESSAGES.factor(`${path}.${f}`));
    // Left out or null: the day of createdAt in the person's zone.
    const day = r.day === null ? undefined : r.day;
    // A day: the day of createdAt in some zone (UTC−12 to UTC+14), or a missed day rated up to a year later.
    if (day !== undefined && !(isCalendarDay(day) && !Number.isNaN(at) && day <= addDays(new Date(at).toISOString().slice(0, 10), 1) && day >= addDays(new Date(at).toISOString().slice(0, 10), -RATEABLE_DAYS_BACK - 1))) {
      problem(`${path}.day`, IMPORT_MESSAGES.day(`${path}.day`));
    } else if (day !== undefined && day > today) {
      // Today in the zone it was made in, ahead of this person's (no rating made here could rate it yet): the message
      // names the zone, which the person may not have set as they live (Settings).
      problem(`${path}.day`, IMPORT_MESSAGES.afterToday(`${path}.day`, timeZone));
    } else if (day === undefined && !Number.isNaN(at) && at <= now.getTime() + CLOCK_SKEW_MS && dayOf(at, timeZone)! > today) {
      // Within the clock skew, but past midnight here: its day would be tomorrow.
      problem(`${path}.createdAt`, IMPORT_MESSAGES.future(`${path}.createdAt`));
    }
    const note = typeof r.note === 'string' ? normalizeNote(r.note) : null;
    // Hidden characters are named as POST /api/joy-ratings names them: the note's length is not what is wrong.
    const hidden = note === null ? null : nameProblem(note, `${path}.note`, { multiline: true });
    if (r.note !== undefined && r.note !== null && (typeof r.note !== 'string' || (note !== null && !fitsLength(note, NOTE_MAX)))) {
      problem(`${path}.note`, IMPORT_MESSAGES.note(`${path}.note`));
    } else if (hidden) problem(`${path}.note`, hidden);
    if (found > before) return;
    const scores = Object.fromEntries(FACTOR_NAMES.map((f: FactorName) => [f, r[f]])) as FactorScores;
    // Optional (it is derived), but when present it must agree: a file edited by hand or damaged says so here.
    if (r.overallScore !== undefined && r.overallScore !== overallScore(scores)) {
      return problem(`${path}.overallScore`, IMPORT_MESSAGES.overallScore(`${path}.overallScore`));
    }
    const rating = { sourceId: r.id as string, createdAt: new Date(at).toISOString(), scores, ...(day !== undefined ? { day: day as string } : {}), ...(note ? { note } : {}) };
    // One id twice: the same rating (a file joined from two exports) is taken once; two different ones would lose
    // one of them without a word (a copied line edited by hand), so the file is refused naming both.
    const json = JSON.stringify(rating);
    const seen = byId.get(rating.sourceId);
    if (seen && seen.json !== json) return problem(`${path}.id`, IMPORT_MESSAGES.sameId(`${path}.id`, seen.path));
    if (!seen) byId.set(rating.sourceId, { path, json });
    ratings.push(rating);
  };
  for (let i = 0; i < file.ratings.length; i++) {
    check(file.ratings[i], i);
    if ((i + 1) % IMPORT_CHUNK === 0) await turn();
  }
  // Past what an answer lists, the last line says how many more there are: fixing the ones listed is not enough.
  if (found > MAX_PROBLEMS) refuse([...problems.slice(0, MAX_PROBLEMS - 1), { field: 'ratings', message: IMPORT_MESSAGES.more(found - MAX_PROBLEMS + 1) }]);
  if (found > 0) refuse(problems);
  return ratings;
}

/** The id an imported rating gets in an account: the same for the same file id, different in every account. */
export function importedRatingId(userId: string, sourceId: string): string {
  const h = createHash('sha256').update(`joy-import:${userId}:${sourceId}`).digest('hex');
  // Shaped as a version-8 (custom) UUID, like the ids the app makes.
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16], 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

@Injectable()
export class AccountImport {
  private readonly logger = new Logger('AccountImport');

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_YOUR_WRITES) private readonly readYourWrites: ReadYourWrites,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
    @Inject(TIME_ZONE_LOOKUP) private readonly timeZoneOf: TimeZoneLookup,
  ) {}

  /**
   * Checks the whole file, then appends the ratings not here yet, IMPORT_CHUNK per write (each write decided on the
   * stream as it is then, so a repeat in a later chunk or a concurrent import is still skipped). Answers once the
   * person's lists show them. A failure between two writes leaves the earlier chunks stored: the answer (503
   * `account.import_incomplete`) says how many, and importing the file again adds the rest (and nothing twice).
   */
  async import(userId: string, body: unknown, now = new Date()): Promise<ImportResultView> {
    // Notes are stored encrypted with the person's key, as a note written here is.
    const [timeZone, key] = await Promise.all([this.timeZoneOf(userId), this.keys.keyFor(userId)]);
    const checked = await ratingsOfExport(body, now, timeZone);
    const correlationId = randomUUID();
    // The whole file decided first on the stream as it is (the state the first write then starts from): a day it
    // would fill past RATINGS_PER_DAY_MAX is refused before anything is stored, not at the write of 500 that reaches
    // it (each write decides again, for a race). Decided IMPORT_CHUNK at a time, each on the state the one before
    // would leave (the same decision as the whole file at once), with a turn of the event loop between them.
    let { state } = await foldStream(this.store, `ratings-${userId}`, ratingsImportDecider);
    const ratings: RatingToImport[] = [];
    for (let i = 0; i < checked.length; i += IMPORT_CHUNK) {
      const chunk = checked.slice(i, i + IMPORT_CHUNK).map((r) => ({ ...r, ratingId: importedRatingId(userId, r.sourceId) }));
      ratings.push(...chunk);
      state = ratingsImportDecider.decide({ userId, ratings: chunk, timeZone }, state).reduce(ratingsImportDecider.evolve, state);
      await turn();
    }
    let imported = 0;
    let lastPosition: number | null = null;
    for (let i = 0; i < ratings.length; i += IMPORT_CHUNK) {
      try {
        const { events, append } = await decideAndAppend(
          this.store,
          `ratings-${userId}`,
          ratingsImportDecider,
          { userId, ratings: ratings.slice(i, i + IMPORT_CHUNK), timeZone },
          { actorUserId: userId, correlationId, now },
          // The rating's own id as the event id (as a rating saved through the API has): a retried write is idempotent.
          { eventIds: (evs) => evs.map((e) => e.data.ratingId), encode: (e) => encodeRatingEvent(e, key) },
        );
        imported += events.length;
        if (append) lastPosition = append.position;
      } catch (error) {
        // Before the first stored rating the error says what it is (a 503 "nothing was saved" is then true); after
        // it, the person must hear that part of the file is stored and how to add the rest.
        if (imported === 0) throw error;
        this.logger.warn(`An import stopped after ${imported} of ${ratings.length} ratings: ${error instanceof Error ? error.message : String(error)}`);
        throw new DomainError('account.import_incomplete', IMPORT_MESSAGES.incomplete(imported));
      }
    }
    if (lastPosition !== null) await this.readYourWrites.waitFor(lastPosition, { eventTypes: ['RatingSubmitted'] });
    return { imported, skipped: ratings.length - imported };
  }
}
