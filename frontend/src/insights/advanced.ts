/**
 * Joy Premium's advanced analytics on the Insights page (PRODUCT.md "Joy Premium"): the API's shapes
 * (@joy/domain: GET /api/insights/advanced, computed by the server from the whole history), the free plan's 30-day window
 * and the formatting of the numbers. Pure and tested (advanced.test.ts).
 */
import { DAY_MS, FACTORS, type ForecastDay, type RatingView, type WeekdayMean, type WeeklyFactorMeans } from '@joy/domain';

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

/** The ratings of the last `days` days before `now` (inclusive of the boundary instant), order kept. */
export function ratingsWithinDays<T extends Pick<RatingView, 'createdAt'>>(ratings: ReadonlyArray<T>, days: number, now: Date = new Date()): T[] {
  const from = now.getTime() - days * DAY_MS;
  return ratings.filter((r) => Date.parse(r.createdAt) >= from);
}

const one = (n: number) => n.toFixed(1);

/** "16 Nov": the Monday (UTC) of an ISO week. */
export function weekLabel(weekStart: string): string {
  return new Date(`${weekStart}T00:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
}

/** "Mon 23 Nov" of a YYYY-MM-DD (UTC). */
export function dayLabel(date: string): string {
  return new Date(`${date}T00:00:00Z`).toLocaleDateString('en-GB', { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' });
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
