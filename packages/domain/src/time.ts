/*
 * The one definition of a day and of a week (PRODUCT.md): a rating's day is its calendar day in a time zone;
 * a week runs Monday to Sunday in that zone (ISO 8601 weeks); "the last 7 days" are today and the six calendar
 * days before it. The server, which knows no one's zone, passes 'UTC'; the browser passes its own zone (or
 * undefined: the runtime's zone). Days are `YYYY-MM-DD` strings, so comparing them is comparing text.
 */

export const DAY_MS = 86_400_000;
/** How many calendar days "this week" and "the last 7 days" span. */
export const WEEK_DAYS = 7;

export type Instant = string | number | Date;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string | undefined): Intl.DateTimeFormat {
  const key = timeZone ?? '';
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formatters.set(key, f);
  }
  return f;
}

/** The last day `dayOf` computed from a text instant: the projectors of a rating ask for its day in turn. */
let last: { instant: string; timeZone: string | undefined; day: string | null } = { instant: '', timeZone: undefined, day: null };

/** The calendar day (`YYYY-MM-DD`) of an instant in a time zone; null for an invalid instant. */
export function dayOf(instant: Instant, timeZone: string | undefined): string | null {
  if (typeof instant !== 'string') return dayOfTime(instant instanceof Date ? instant.getTime() : new Date(instant).getTime(), timeZone);
  if (instant === last.instant && timeZone === last.timeZone) return last.day;
  const day = dayOfTime(new Date(instant).getTime(), timeZone);
  last = { instant, timeZone, day };
  return day;
}

/** From 1973 on, every zone's offset is a whole number of minutes (tz database), so a day holds for a whole minute. */
const WHOLE_MINUTE_OFFSETS_FROM = Date.UTC(1973, 0, 1);
const MINUTE_MS = 60_000;
/** zone → minute since the epoch → its day there: formatToParts costs a few µs, a rebuild asks for many days. */
const daysByMinute = new Map<string, Map<number, string>>();
const MAX_CACHED_MINUTES = 50_000;

function dayOfTime(time: number, timeZone: string | undefined): string | null {
  if (!Number.isFinite(time)) return null;
  if (timeZone === 'UTC') return new Date(time).toISOString().slice(0, 10);
  const key = timeZone ?? '';
  const minute = Math.floor(time / MINUTE_MS);
  const cacheable = time >= WHOLE_MINUTE_OFFSETS_FROM && timeZone !== undefined;
  let cache = cacheable ? daysByMinute.get(key) : undefined;
  const cached = cache?.get(minute);
  if (cached !== undefined) return cached;
  const parts = formatterFor(timeZone).formatToParts(new Date(time));
  const get = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  const day = `${get('year')}-${get('month')}-${get('day')}`;
  if (cacheable) {
    if (!cache || cache.size >= MAX_CACHED_MINUTES) daysByMinute.set(key, (cache = new Map()));
    cache.set(minute, day);
  }
  return day;
}

/** Days since 1970-01-01 of a `YYYY-MM-DD` day (calendar arithmetic, no zone involved). */
export function dayNumber(day: string): number {
  return Math.floor(Date.parse(`${day}T00:00:00Z`) / DAY_MS);
}

/** The `YYYY-MM-DD` day `n` days after `day` (before, for a negative n). */
export function addDays(day: string, n: number): string {
  return new Date((dayNumber(day) + n) * DAY_MS).toISOString().slice(0, 10);
}

/** 0 = Monday … 6 = Sunday, of a `YYYY-MM-DD` day. */
export function weekdayOfDay(day: string): number {
  return (new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7;
}

/** The ISO week of a `YYYY-MM-DD` day: `{ week: '2026-W03', weekStart: the Monday }`. */
export function isoWeekOfDay(day: string): { week: string; weekStart: string } {
  const monday = dayNumber(day) - weekdayOfDay(day);
  // The ISO year is the year of the week's Thursday.
  const year = new Date((monday + 3) * DAY_MS).getUTCFullYear();
  const week = Math.floor((monday + 3 - Date.UTC(year, 0, 1) / DAY_MS) / 7) + 1;
  return { week: `${year}-W${String(week).padStart(2, '0')}`, weekStart: new Date(monday * DAY_MS).toISOString().slice(0, 10) };
}

/** The ISO week (Monday to Sunday) an instant falls in, in a time zone. */
export function isoWeekOf(instant: Instant, timeZone: string | undefined): { week: string; weekStart: string } {
  const day = dayOf(instant, timeZone);
  if (day === null) throw new RangeError(`Not an instant: ${String(instant)}`);
  return isoWeekOfDay(day);
}

/** The first day of "the last 7 days" at `now`: six calendar days before today, in the zone. */
export function lastWeekFirstDay(now: Date, timeZone: string | undefined): string {
  return addDays(dayOf(now, timeZone)!, -(WEEK_DAYS - 1));
}

/**
 * The day a rating counts on (issue 19): its `day`, fixed in the person's zone when it was made (or chosen, for an
 * earlier day); a rating from before days were kept counts on the day of its time in `timeZone`. Days Tracked,
 * This Week's Average, the weekly means, the weekday pattern, the forecast, streaks and the calendar all count
 * days through this one function.
 */
export function ratingDay(rating: { day?: string | null; createdAt: string }, timeZone: string | undefined): string | null {
  return rating.day ?? dayOf(rating.createdAt, timeZone);
}

/** A rating as "latest" orders it: the day it rates and when it was made. */
export interface RatedAt {
  day?: string | null;
  createdAt: string;
}

/**
 * Latest first (a sort comparator): the later day rated, then, within a day, the later made. What "latest" means
 * everywhere (Home's current joy, the Dashboard's and Insights' latest, trend and chart, a group's latest score, care
 * suggestions): a missed day rated today is that day's rating, not how the person is now. A rating from before
 * days were kept counts on its UTC day, as the server counted it then.
 */
export function latestFirst(a: RatedAt, b: RatedAt): number {
  const dayA = ratingDay(a, 'UTC') ?? '';
  const dayB = ratingDay(b, 'UTC') ?? '';
  if (dayA !== dayB) return dayA < dayB ? 1 : -1;
  return Date.parse(b.createdAt) - Date.parse(a.createdAt);
}

/** Whether a day (`YYYY-MM-DD`) is one of the last 7 days at `now` (today and the six before), in the zone. */
export function isDayInLastWeek(day: string, now: Date, timeZone: string | undefined): boolean {
  const today = dayOf(now, timeZone)!;
  return day <= today && day >= lastWeekFirstDay(now, timeZone);
}

/** Whether an instant's day is one of the last 7 days at `now` (today and the six before), in the zone. */
export function isInLastWeek(instant: Instant, now: Date, timeZone: string | undefined): boolean {
  const day = dayOf(instant, timeZone);
  return day !== null && day >= lastWeekFirstDay(now, timeZone);
}
