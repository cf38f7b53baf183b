import {
  addDays,
  type AdvancedInsights,
  type DaySums,
  daySumsByDay,
  daySumsOf,
  meanOverallOf,
  roundedMeanOverallOf,
  roundRatio,
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
import { studentT975 } from './student-t';

/**
 * Joy Premium's advanced analytics (PRODUCT.md "Joy Premium"): pure functions over a user's ratings (as their days'
 * sums, DaySums: what the rating-days read model keeps; `…OfDays`), by the day
 * each rating counts on (`ratingDay`: its `day` in the person's zone) and "today" in the person's zone. No I/O, so
 * each is tested given/when/then with hand-checkable numbers (analytics.spec.ts).
 *
 * - weeklyFactorMeans: per ISO week (Monday to Sunday, UTC), the mean of each factor and of the overall score;
 * - weekdayPattern: the mean overall score per weekday, Monday first, with how many ratings it rests on;
 * - forecastWeek: the coming 7 days' overall score, by ordinary least squares on the daily means of the 8 weeks
 *   ending today, with a 95% prediction band (± Student's t for n − 2 degrees of freedom × the OLS prediction
 *   standard error, which widens with the horizon). Null unless the window holds at least 7 rated days, one of
 *   them in the last 3 days (today and the 2 before): a trend is not carried across a gap it has no data for.
 *   The expectation is clamped to the 1..5 scale and the band is centred on it, an end beyond the scale set to
 *   the scale's end, so that the band never shrinks to a point because the trend left the scale.
 *
 * Numbers are rounded to two decimals on the way out (never in the middle of a calculation); means from their
 * whole-number sums (`roundRatio`), so that an exact half such as 4.225 rounds up.
 */

export type RatingInput = FactorScores & { overallScore: number; createdAt: string; day?: string };

/** The forecast needs at least this many distinct rated days in its window. */
export const FORECAST_MIN_DAYS = 7;
/** The daily means of the days of this many days ending today (inclusive) feed the regression. */
export const FORECAST_WINDOW_DAYS = 56;
/** The last rated day must be one of this many days ending today, or there is no forecast. */
export const FORECAST_RECENT_DAYS = 3;
export const FORECAST_HORIZON_DAYS = 7;

/** A computed figure (the regression's) to two decimals; a mean goes through `roundRatio` on its sums instead. */
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
      const factors = Object.fromEntries(FACTOR_NAMES.map((f) => [f, roundRatio(sums[f], sums.count, 2)])) as FactorScores;
      return { week, weekStart, count: sums.count, ...factors, overall: roundedMeanOverallOf(sums, 2) };
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
  return WEEKDAYS.map((weekday, i) => ({ weekday, count: sums[i].count, mean: sums[i].count ? roundedMeanOverallOf(sums[i], 2) : null }));
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
 * The overall score of the 7 days after today in `timeZone`, from the daily means of the FORECAST_WINDOW_DAYS days
 * ending today (a day rated ahead of today, in a zone west of the present one, counts too). Null with fewer than
 * FORECAST_MIN_DAYS of them, or when the last rated day is older than FORECAST_RECENT_DAYS: the line through data
 * that ended weeks ago says nothing about next week (a slide that ended a month back read "1.0, range 1.0 – 1.0").
 */
export function forecastWeekOfDays(days: ReadonlyArray<DaySums>, now: Date = new Date(), timeZone = 'UTC'): ForecastDay[] | null {
  const today = dayNumber(dayOf(now, timeZone)!);
  const points = dailyMeans(days).filter((p) => p.day > today - FORECAST_WINDOW_DAYS);
  if (points.length < FORECAST_MIN_DAYS || points[points.length - 1].day <= today - FORECAST_RECENT_DAYS) return null;

  const n = points.length;
  const xBar = mean(points.map((p) => p.day));
  const yBar = mean(points.map((p) => p.mean));
  const sxx = points.reduce((s, p) => s + (p.day - xBar) ** 2, 0);
  const sxy = points.reduce((s, p) => s + (p.day - xBar) * (p.mean - yBar), 0);
  const slope = sxx === 0 ? 0 : sxy / sxx;
  const intercept = yBar - slope * xBar;
  const ssr = points.reduce((s, p) => s + (p.mean - (intercept + slope * p.day)) ** 2, 0);
  const residualSe = Math.sqrt(ssr / (n - 2));
  // The 95% quantile for the residuals' n − 2 degrees of freedom: 2.57 for 7 days where 1.96 is the normal's.
  const t = studentT975(n - 2);

  return Array.from({ length: FORECAST_HORIZON_DAYS }, (_, i) => {
    const x = today + 1 + i;
    const expected = clamp(intercept + slope * x);
    // The OLS prediction interval: wider the further x lies from the data.
    const half = t * residualSe * Math.sqrt(1 + 1 / n + (x - xBar) ** 2 / sxx);
    // Centred on the clamped expectation, each end stopped at the scale: clamping the fit's own ends made a trend
    // beyond the scale read as a certainty (low = high = 1.0).
    return { date: addDays('1970-01-01', x), expected: round2(expected), low: round2(Math.max(MIN_SCORE, expected - half)), high: round2(Math.min(MAX_SCORE, expected + half)) };
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
