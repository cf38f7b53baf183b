/**
 * Joy Premium's advanced analytics on the Insights page (PRODUCT.md "Joy Premium"): the API's shapes
 * (@joy/domain: GET /api/insights/advanced, computed by the server from the whole history), the free plan's 30-day window
 * and the formatting of the numbers. Pure and tested (advanced.test.ts).
 */
import { addDays, dayOf, FACTORS, type ForecastDay, ratingDay, type RatingView, roundRatio, type WeekdayMean, type WeeklyFactorMeans } from '@joy/domain';
import { formatShortDay, formatWeekday } from '../lib/dates';

export const ADVANCED_INSIGHTS_KEY = ['/api/insights/advanced'] as const;

/** The free plan's insights cover this many days: today and the 29 before. */
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
 * The first day of the free plan's window of `days` days in the person's zone: today and the `days` − 1 before, as
 * "the last 7 days" are (lastWeekFirstDay); going back `days` days made "the last 30 days" 31. The window is counted
 * in the ratings' own days (as the server's summary counts), so a missed day rated today belongs to its day.
 */
export function windowFirstDay(days: number, timeZone: string | undefined, now: Date = new Date()): string {
  return addDays(dayOf(now, timeZone)!, -(days - 1));
}

/**
 * What the "Next 7 Days" card says without a forecast (the API's `forecast: null`): the server forecasts from the
 * daily means of the 8 weeks up to today, and only with 7 rated days among them, one in the last 3 days
 * (backend insights/analytics.ts). "Once you have rated on at least 7 different days" read wrong to someone with
 * months of ratings that stopped a while ago.
 */
export const FORECAST_UNAVAILABLE_NOTE =
  'The forecast appears when you have rated on at least 7 different days in the last 8 weeks, one of them in the last 3 days.';

/** The ratings whose day is `from` or later, order kept. */
export function ratingsFromDay<T extends Pick<RatingView, 'createdAt'> & { day?: string }>(ratings: ReadonlyArray<T>, from: string, timeZone?: string): T[] {
  return ratings.filter((r) => (ratingDay(r, timeZone) ?? '') >= from);
}

/**
 * A two-decimal figure of the analytics (a mean, the forecast) with one decimal, half away from zero on its
 * hundredths: toFixed goes by the binary value, so 4.35 (4.3499…) showed as 4.3 next to 4.45 as 4.5.
 */
export const oneDecimal = (n: number): string => roundRatio(Math.round(n * 100), 100, 1).toFixed(1);

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
  return weeks.map((w) => [`Week of ${weekLabel(w.weekStart)}`, ...FACTORS.map((f) => `${oneDecimal(w[f.name])}/5`)]);
}

/** Rows of the weekday chart's text alternative: weekday, mean ("No ratings" when none) and count. */
export function weekdayRows(pattern: ReadonlyArray<WeekdayMean>): string[][] {
  return pattern.map((d) => [d.weekday, d.mean === null ? 'No ratings' : `${oneDecimal(d.mean)}/5`, String(d.count)]);
}

/** Rows of the "Next 7 days" table: day, expected score and its range. */
export function forecastRows(forecast: ReadonlyArray<ForecastDay>): string[][] {
  return forecast.map((d) => [dayLabel(d.date), `${oneDecimal(d.expected)}/5`, `${oneDecimal(d.low)} – ${oneDecimal(d.high)}`]);
}
