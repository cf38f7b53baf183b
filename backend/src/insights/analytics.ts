import {
  addDays,
  type AdvancedInsights,
  dayNumber,
  dayOf,
  FACTOR_NAMES,
  ratingDay,
  type FactorScores,
  type ForecastDay,
  isoWeekOfDay,
  MAX_SCORE,
  MIN_SCORE,
  WEEKDAYS,
  type WeekdayMean,
  weekdayOfDay,
  type WeeklyFactorMeans,
} from '@joy/domain';

/**
 * Joy Premium's advanced analytics (PRODUCT.md "Joy Premium"): pure functions over a user's ratings, by the day
 * each rating counts on (`ratingDay`: its `day` in the person's zone) and "today" in the person's zone. No I/O, so
 * each is tested given/when/then with hand-checkable numbers (analytics.spec.ts).
 *
 * - weeklyFactorMeans: per ISO week (Monday to Sunday, UTC), the mean of each factor and of the overall score;
 * - weekdayPattern: the mean overall score per weekday, Monday first, with how many ratings it rests on;
 * - forecastWeek: the coming 7 days' overall score from daily means, by ordinary least squares on the last
 *   8 weeks' daily means, with a 95% prediction band (±1.96 × the OLS prediction standard error, which
 *   widens with the horizon), everything clamped to the 1..5 scale. Null with fewer than 7 distinct days.
 *
 * Numbers are rounded to two decimals on the way out (never in the middle of a calculation).
 */

export type RatingInput = FactorScores & { overallScore: number; createdAt: string; day?: string };

/** The forecast needs at least this many distinct days with ratings. */
export const FORECAST_MIN_DAYS = 7;
/** Daily means of this many days before the last rated day (inclusive) feed the regression. */
export const FORECAST_WINDOW_DAYS = 56;
export const FORECAST_HORIZON_DAYS = 7;
const Z95 = 1.96;

const round2 = (n: number) => Math.round(n * 100) / 100;
const clamp = (n: number) => Math.min(MAX_SCORE, Math.max(MIN_SCORE, n));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
/** The day a rating counts on; ratings from before days were kept, the UTC day of their time. */
const dayOfRating = (r: { day?: string; createdAt: string }) => ratingDay(r, 'UTC')!;

/** Per ISO week, oldest first: the mean of each factor and of the overall score over the whole history. */
export function weeklyFactorMeans(ratings: ReadonlyArray<RatingInput>): WeeklyFactorMeans[] {
  const weeks = new Map<string, { weekStart: string; ratings: RatingInput[] }>();
  for (const r of ratings) {
    const { week, weekStart } = isoWeekOfDay(dayOfRating(r));
    const bucket = weeks.get(week) ?? { weekStart, ratings: [] };
    bucket.ratings.push(r);
    weeks.set(week, bucket);
  }
  return [...weeks.entries()]
    .sort(([, a], [, b]) => a.weekStart.localeCompare(b.weekStart))
    .map(([week, { weekStart, ratings: rs }]) => {
      const factors = Object.fromEntries(FACTOR_NAMES.map((f) => [f, round2(mean(rs.map((r) => r[f])))])) as FactorScores;
      return { week, weekStart, count: rs.length, ...factors, overall: round2(mean(rs.map((r) => r.overallScore))) };
    });
}

/** Mon..Sun: the mean overall score of the ratings of days on that weekday, and their count. */
export function weekdayPattern(ratings: ReadonlyArray<RatingInput>): WeekdayMean[] {
  const scores: number[][] = WEEKDAYS.map(() => []);
  for (const r of ratings) scores[weekdayOfDay(dayOfRating(r))].push(r.overallScore);
  return WEEKDAYS.map((weekday, i) => ({ weekday, count: scores[i].length, mean: scores[i].length ? round2(mean(scores[i])) : null }));
}

/** The mean overall score of each day with ratings, oldest first (`day` = days since the epoch). */
export function dailyMeans(ratings: ReadonlyArray<Pick<RatingInput, 'overallScore' | 'createdAt' | 'day'>>): { day: number; mean: number }[] {
  const days = new Map<number, number[]>();
  for (const r of ratings) {
    const d = dayNumber(dayOfRating(r));
    days.set(d, [...(days.get(d) ?? []), r.overallScore]);
  }
  return [...days.entries()].sort(([a], [b]) => a - b).map(([day, xs]) => ({ day, mean: mean(xs) }));
}

/**
 * The overall score of the 7 days after today in `timeZone`. The regression runs on the daily means of the
 * 8 weeks up to the last rated day (the latest 7 daily means when that window holds fewer). Null with fewer
 * than 7 distinct days of data.
 */
export function forecastWeek(
  ratings: ReadonlyArray<Pick<RatingInput, 'overallScore' | 'createdAt' | 'day'>>,
  now: Date = new Date(),
  timeZone = 'UTC',
): ForecastDay[] | null {
  const all = dailyMeans(ratings);
  if (all.length < FORECAST_MIN_DAYS) return null;
  const last = all[all.length - 1].day;
  let points = all.filter((p) => p.day > last - FORECAST_WINDOW_DAYS);
  if (points.length < FORECAST_MIN_DAYS) points = all.slice(-FORECAST_MIN_DAYS);

  const n = points.length;
  const xBar = mean(points.map((p) => p.day));
  const yBar = mean(points.map((p) => p.mean));
  const sxx = points.reduce((s, p) => s + (p.day - xBar) ** 2, 0);
  const sxy = points.reduce((s, p) => s + (p.day - xBar) * (p.mean - yBar), 0);
  const slope = sxx === 0 ? 0 : sxy / sxx;
  const intercept = yBar - slope * xBar;
  const ssr = points.reduce((s, p) => s + (p.mean - (intercept + slope * p.day)) ** 2, 0);
  const residualSe = Math.sqrt(ssr / (n - 2));

  const today = dayNumber(dayOf(now, timeZone)!);
  return Array.from({ length: FORECAST_HORIZON_DAYS }, (_, i) => {
    const x = today + 1 + i;
    const fit = intercept + slope * x;
    // The OLS prediction interval: wider the further x lies from the data.
    const half = Z95 * residualSe * Math.sqrt(1 + 1 / n + (x - xBar) ** 2 / sxx);
    return { date: addDays('1970-01-01', x), expected: round2(clamp(fit)), low: round2(clamp(fit - half)), high: round2(clamp(fit + half)) };
  });
}

export function advancedInsights(ratings: ReadonlyArray<RatingInput>, now: Date = new Date(), timeZone = 'UTC'): AdvancedInsights {
  const since = ratings.reduce<string | null>((min, r) => (min === null || Date.parse(r.createdAt) < Date.parse(min) ? r.createdAt : min), null);
  return { weeklyFactors: weeklyFactorMeans(ratings), weekdayPattern: weekdayPattern(ratings), forecast: forecastWeek(ratings, now, timeZone), since };
}
