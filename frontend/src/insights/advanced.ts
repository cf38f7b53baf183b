/**
 * Joy Premium's advanced analytics on the Insights page (PRODUCT.md "Joy Premium"): the API's shapes
 * (@joy/domain: GET /api/insights/advanced, computed by the server from the whole history), the free plan's 30-day window
 * and the formatting of the numbers. Pure and tested (advanced.test.ts).
 */
import { addDays, dayOf, FACTORS, type ForecastDay, ratingDay, type RatingView, type WeekdayMean, type WeeklyFactorMeans } from '@joy/domain';
import { formatShortDay, formatWeekday } from '../lib/dates';

export const ADVANCED_INSIGHTS_KEY = ['/api/insights/advanced'] as const;

/** The free plan's insights cover this many days back from now. */
export const FREE_WINDOW_DAYS = 30;
export const FREE_WINDOW_NOTE = 'Showing your last 30 days';

/** What the "Joy Premium adds" card lists. */
export const PREMIUM_ADDS: readonly string[] = [
  'Your full history instead of the last 30 days',
  'Per-factor trends week by week',
  'Your weekday pattern',
  'A forecast of the coming week with its uncertainty',
];


/**
 * The first day of the free plan's window in the person's zone: the day `days` days before today. The window is
 * counted in the ratings' own days (as the server's summary counts), so a missed day rated today belongs to its day.
 */
export function windowFirstDay(days: number, timeZone: string | undefined, now: Date = new Date()): string {
  return addDays(dayOf(now, timeZone)!, -days);
}

/** The ratings whose day is `from` or later, order kept. */
export function ratingsFromDay<T extends Pick<RatingView, 'createdAt'> & { day?: string }>(ratings: ReadonlyArray<T>, from: string, timeZone?: string): T[] {
  return ratings.filter((r) => (ratingDay(r, timeZone) ?? '') >= from);
}

const one = (n: number) => n.toFixed(1);

/** "Nov 16": the Monday of an ISO week (a calendar date: no zone shifts it). */
export function weekLabel(weekStart: string, locale?: string): string {
  return formatShortDay(`${weekStart}T00:00:00Z`, { timeZone: 'UTC', locale });
}

/** "Mon, Nov 23" of a YYYY-MM-DD (a calendar date). */
export function dayLabel(date: string, locale?: string): string {
  return formatWeekday(`${date}T00:00:00Z`, { timeZone: 'UTC', locale });
}

/** Rows of the weekly trend's text alternative: week, then each factor's mean in form order. */
export function weeklyRows(weeks: ReadonlyArray<WeeklyFactorMeans>): string[][] {
  return weeks.map((w) => [`Week of ${weekLabel(w.weekStart)}`, ...FACTORS.map((f) => `${one(w[f.name])}/5`)]);
}

/** Rows of the weekday chart's text alternative: weekday, mean ("No ratings" when none) and count. */
export function weekdayRows(pattern: ReadonlyArray<WeekdayMean>): string[][] {
  return pattern.map((d) => [d.weekday, d.mean === null ? 'No ratings' : `${one(d.mean)}/5`, String(d.count)]);
}

/** Rows of the "Next 7 days" table: day, expected score and its range. */
export function forecastRows(forecast: ReadonlyArray<ForecastDay>): string[][] {
  return forecast.map((d) => [dayLabel(d.date), `${one(d.expected)}/5`, `${one(d.low)} – ${one(d.high)}`]);
}
