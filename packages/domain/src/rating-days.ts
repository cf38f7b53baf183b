/*
 * The day a rating rates (PRODUCT.md "Ratings over time"): a `YYYY-MM-DD` day in the person's zone. A missed day
 * may be rated later, up to RATEABLE_DAYS_BACK days back, never ahead; a year's calendar and the streaks are
 * counted on these days. Pure: the server and the browser share it.
 */
import { type DaySums, roundedMeanOverallOf } from './rating-summary';
import { addDays, dayNumber } from './time';

/** How far back a missed day can still be rated (today minus this many days is the earliest). */
export const RATEABLE_DAYS_BACK = 365;
/**
 * The most ratings one day can hold (standing ones: a deleted rating frees its place). Far more than anyone rates
 * in a day ("several a day", PRODUCT.md); it bounds what a script can pile onto one day, whose summary document
 * keeps each rating's values and is written again at every rating of that day (docs/decisions.md).
 */
export const RATINGS_PER_DAY_MAX = 100;
/** A rating's note: at most this many characters after trimming. */
export const NOTE_MAX = 1000;

const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The first day Joy counts: no rating is older (an import refuses earlier times), and before it the day maths
 * that weeks and zones need does not hold (a year under 1000 is written without its zeros by the zone's calendar).
 */
export const FIRST_CALENDAR_DAY = '1970-01-01';

/** Whether `value` is a real calendar day written `YYYY-MM-DD` (2026-02-30 is not), from 1970 on. */
export function isCalendarDay(value: unknown): value is string {
  return isRealDate(value) && value >= FIRST_CALENDAR_DAY;
}

/** A date that exists, written YYYY-MM-DD (2026-02-30 does not), whatever its year. */
function isRealDate(value: unknown): value is string {
  if (typeof value !== 'string' || !DAY_PATTERN.test(value)) return false;
  const t = Date.parse(`${value}T00:00:00Z`);
  return Number.isFinite(t) && new Date(t).toISOString().slice(0, 10) === value;
}

/** The earliest day that can still be rated when it is `today` in the person's zone. */
export function earliestRateableDay(today: string): string {
  return addDays(today, -RATEABLE_DAYS_BACK);
}

/** Why `day` cannot be rated when it is `today` in the person's zone, or null when it can. */
export function rateableDayProblem(day: unknown, today: string): string | null {
  // A real date before the calendar's first day (1900-01-01) is too far back, not badly written.
  if (isRealDate(day) && day < FIRST_CALENDAR_DAY) return `day must be at most ${RATEABLE_DAYS_BACK} days back`;
  if (!isCalendarDay(day)) return 'day must be a date written YYYY-MM-DD';
  if (day > today) return 'day must not be in the future';
  if (day < earliestRateableDay(today)) return `day must be at most ${RATEABLE_DAYS_BACK} days back`;
  return null;
}

/** The stored form of a note: NFC, trimmed; null for none (absent, null or blank). */
export function normalizeNote(value: string | null | undefined): string | null {
  if (typeof value !== 'string') return null;
  const note = value.normalize('NFC').trim();
  // A note of nothing visible (a zero-width space, a joiner) is no note: it would show as an empty quote.
  return note.replace(/[\p{Default_Ignorable_Code_Point}\s]/gu, '') === '' ? null : note;
}

export interface DayScore {
  day: string;
  overallScore: number;
  count: number;
}

/**
 * The calendar's days from their sums (what the read models keep per day), oldest first: each day's mean overall
 * score (one decimal, from the exact sum in tenths) and its count.
 */
export function dayScoresOf(days: Iterable<Pick<DaySums, 'day' | 'count' | 'overallTenths'>>): DayScore[] {
  return [...days]
    .sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0))
    .map((d) => ({ day: d.day, overallScore: roundedMeanOverallOf(d, 1), count: d.count }));
}

/**
 * Streaks of consecutive rated days: the longest ever, and the current one, which ends today, or yesterday when
 * today is not rated yet (0 when neither is). A rated day after `today` is one rated in a zone ahead of the
 * person's present one (they moved west since): it counts, as today.
 */
export function streaksOf(ratedDays: Iterable<string>, today: string): { currentStreak: number; longestStreak: number } {
  const days = [...new Set(ratedDays)].sort();
  if (days.length > 0 && days[days.length - 1] > today) today = days[days.length - 1];
  let longestStreak = 0;
  let run = 0;
  let previous: number | null = null;
  for (const day of days) {
    const n = dayNumber(day);
    run = previous !== null && n === previous + 1 ? run + 1 : 1;
    longestStreak = Math.max(longestStreak, run);
    previous = n;
  }
  const rated = new Set(days);
  let end = rated.has(today) ? today : addDays(today, -1);
  let currentStreak = 0;
  while (rated.has(end)) {
    currentStreak++;
    end = addDays(end, -1);
  }
  return { currentStreak, longestStreak };
}
