import {
  addDays,
  type AdvancedInsights,
  type DaySums,
  daySumsByDay,
  daySumsOf,
  meanOverallOf,
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
 * Joy Premium's advanced analytics (PRODUCT.md "Joy Premium"): pure functions over a user's ratings (as their days'
 * sums, DaySums: what the rating-days read model keeps; `…OfDays`), by the day
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

/** The day sums of some ratings, each on the day it counts on (`dayOfRating`), oldest day first. */
export const daySumsOfRatings = (ratings: ReadonlyArray<RatingInput>): DaySums[] => daySumsByDay(ratings.map((r) => ({ ...r, day: dayOfRating(r) })));

/**
 * Per ISO week, oldest first: the mean of each factor and of the overall score over the whole history. From the
 * days' sums: a week's mean is its sums over its count, the same mean as over its ratings one by one.
 */
export function weeklyFactorMeansOfDays(days: ReadonlyArray<DaySums>): WeeklyFactorMeans[] {
  const weeks = new Map<string, { weekStart: string; sums: DaySums }>();
  for (const d of days) {
    const { week, weekStart } = isoWeekOfDay(d.day);
    const bucket = weeks.get(week) ?? { weekStart, sums: daySumsOf(weekStart, []) };
    weeks.set(week, { weekStart, sums: added(bucket.sums, d) });
  }
  return [...weeks.entries()]
    .sort(([, a], [, b]) => a.weekStart.localeCompare(b.weekStart))
    .map(([week, { weekStart, sums }]) => {
      const factors = Object.fromEntries(FACTOR_NAMES.map((f) => [f, round2(sums[f] / sums.count)])) as FactorScores;
      return { week, weekStart, count: sums.count, ...factors, overall: round2(meanOverallOf(sums)) };
    });
}

export const weeklyFactorMeans = (ratings: ReadonlyArray<RatingInput>) => weeklyFactorMeansOfDays(daySumsOfRatings(ratings));

/** Mon..Sun: the mean overall score of the ratings of days on that weekday, and their count. */
export function weekdayPatternOfDays(days: ReadonlyArray<DaySums>): WeekdayMean[] {
  const sums = WEEKDAYS.map(() => daySumsOf('', []));
  for (const d of days) {
    const i = weekdayOfDay(d.day);
    sums[i] = added(sums[i], d);
  }
  return WEEKDAYS.map((weekday, i) => ({ weekday, count: sums[i].count, mean: sums[i].count ? round2(meanOverallOf(sums[i])) : null }));
}

export const weekdayPattern = (ratings: ReadonlyArray<RatingInput>) => weekdayPatternOfDays(daySumsOfRatings(ratings));

/** The mean overall score of each day with ratings, oldest first (`day` = days since the epoch). */
export function dailyMeans(days: ReadonlyArray<DaySums>): { day: number; mean: number }[] {
  return days
    .filter((d) => d.count > 0)
    .map((d) => ({ day: dayNumber(d.day), mean: meanOverallOf(d) }))
    .sort((a, b) => a.day - b.day);
}

/**
 * The overall score of the 7 days after today in `timeZone`. The regression runs on the daily means of the
 * 8 weeks up to the last rated day (the latest 7 daily means when that window holds fewer). Null with fewer
 * than 7 distinct days of data.
 */
export function forecastWeekOfDays(days: ReadonlyArray<DaySums>, now: Date = new Date(), timeZone = 'UTC'): ForecastDay[] | null {
  const all = dailyMeans(days);
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

export const forecastWeek = (ratings: ReadonlyArray<RatingInput>, now: Date = new Date(), timeZone = 'UTC') =>
  forecastWeekOfDays(daySumsOfRatings(ratings), now, timeZone);

/** The analytics of a history given as its days' sums, `since` its oldest rating's time (null without ratings). */
export function advancedInsightsOfDays(days: ReadonlyArray<DaySums>, since: string | null, now: Date = new Date(), timeZone = 'UTC'): AdvancedInsights {
  return {
    weeklyFactors: weeklyFactorMeansOfDays(days),
    weekdayPattern: weekdayPatternOfDays(days),
    forecast: forecastWeekOfDays(days, now, timeZone),
    since,
    firstDay: firstDayOf(days),
  };
}

/** The earliest day with ratings among `days` (in any order), or null. */
function firstDayOf(days: ReadonlyArray<DaySums>): string | null {
  let first: string | null = null;
  for (const d of days) if (d.count > 0 && (first === null || d.day < first)) first = d.day;
  return first;
}

/** The oldest of some times (ISO), as written; null for none. */
export const oldestTime = (times: Iterable<string>): string | null => {
  let min: string | null = null;
  for (const t of times) if (min === null || Date.parse(t) < Date.parse(min)) min = t;
  return min;
};

export function advancedInsights(ratings: ReadonlyArray<RatingInput>, now: Date = new Date(), timeZone = 'UTC'): AdvancedInsights {
  return advancedInsightsOfDays(daySumsOfRatings(ratings), oldestTime(ratings.map((r) => r.createdAt)), now, timeZone);
}

/** Two sums added (a week's, a weekday's). */
function added(a: DaySums, b: DaySums): DaySums {
  const sum = { ...a, count: a.count + b.count, overallTenths: a.overallTenths + b.overallTenths };
  for (const f of FACTOR_NAMES) sum[f] = a[f] + b[f];
  return sum;
}
