import { FACTOR_NAMES, type FactorName, type FactorScores } from './factors';
import { roundRatio, tenthsOf } from './score';
import type { RatingSummaryView } from './api';

/**
 * The ratings of one day in aggregate: how many, and the sums of their overall scores and of each factor. What the
 * rating-days read model keeps per person and day, and what the summary (GET /api/joy-ratings/summary) and the
 * premium analytics are computed from. The overall scores are summed in tenths, as whole numbers: each has one
 * decimal, so the sum is exact whatever the order the ratings came in.
 */
export interface DaySums extends FactorScores {
  /** `YYYY-MM-DD`, the ratings' own day (the person's zone). */
  day: string;
  count: number;
  /** The sum of the overall scores × 10. */
  overallTenths: number;
}

/** The sums of some ratings of one day (none: zero sums). */
export function daySumsOf(day: string, ratings: Iterable<FactorScores & { overallScore: number }>): DaySums {
  const sums: DaySums = { day, count: 0, overallTenths: 0, relationships: 0, health: 0, purpose: 0, growth: 0, joy: 0 };
  for (const r of ratings) {
    sums.count += 1;
    sums.overallTenths += tenthsOf(r.overallScore);
    for (const f of FACTOR_NAMES) sums[f] += r[f];
  }
  return sums;
}

/** Ratings grouped by their day, as day sums, oldest day first. */
export function daySumsByDay(ratings: Iterable<FactorScores & { overallScore: number; day: string }>): DaySums[] {
  const byDay = new Map<string, Array<FactorScores & { overallScore: number }>>();
  for (const r of ratings) {
    const list = byDay.get(r.day);
    if (list) list.push(r);
    else byDay.set(r.day, [r]);
  }
  return [...byDay.keys()].sort().map((day) => daySumsOf(day, byDay.get(day)!));
}

/** The mean overall score (unrounded: for further calculation, never shown as it is) of some day sums; NaN for none. */
export const meanOverallOf = (s: Pick<DaySums, 'count' | 'overallTenths'>): number => s.overallTenths / (10 * s.count);

/** The mean overall score of some day sums to `decimals` decimals, half away from zero (`roundRatio`); NaN for none. */
export const roundedMeanOverallOf = (s: Pick<DaySums, 'count' | 'overallTenths'>, decimals: number): number =>
  roundRatio(s.overallTenths, 10 * s.count, decimals);

/**
 * The ratings of many days in aggregate: their count and sums, and how many days had any. What the rating-totals
 * read model keeps per person (a whole history's summary in one read).
 */
export interface RatingTotals extends Omit<DaySums, 'day'> {
  daysTracked: number;
}

/** No ratings: zero totals. */
export const noRatingTotals = (): RatingTotals => ({ daysTracked: 0, count: 0, overallTenths: 0, relationships: 0, health: 0, purpose: 0, growth: 0, joy: 0 });

/** `totals` with one day's sums taken out (`sign` -1) or put in (+1); a day without ratings changes nothing. */
export function withDaySums(totals: RatingTotals, day: Omit<DaySums, 'day'>, sign: 1 | -1): RatingTotals {
  if (day.count === 0) return totals;
  const next = { ...totals, daysTracked: totals.daysTracked + sign, count: totals.count + sign * day.count };
  next.overallTenths += sign * day.overallTenths;
  for (const f of FACTOR_NAMES) next[f] += sign * day[f];
  return next;
}

/** The summary of the days between `from` and `to` (inclusive, either open when null) among `days`. */
export function ratingSummaryOf(days: Iterable<DaySums>, range: { from: string | null; to: string | null }): RatingSummaryView {
  let totals = noRatingTotals();
  for (const d of days) {
    if ((range.from !== null && d.day < range.from) || (range.to !== null && d.day > range.to)) continue;
    totals = withDaySums(totals, d, 1);
  }
  return summaryOfTotals(totals, range);
}

/** The summary (GET /api/joy-ratings/summary) of some ratings' totals: the means to one decimal, null without ratings. */
export function summaryOfTotals(totals: RatingTotals, range: { from: string | null; to: string | null }): RatingSummaryView {
  // On the whole-number sums: an exact half such as 12 ratings of mean 4.15 rounds up (roundRatio).
  const mean = (sum: number) => (totals.count === 0 ? null : roundRatio(sum, totals.count, 1));
  const factors = Object.fromEntries(FACTOR_NAMES.map((f) => [f, mean(totals[f])])) as Record<FactorName, number | null>;
  return {
    from: range.from,
    to: range.to,
    count: totals.count,
    daysTracked: totals.daysTracked,
    averages: { overall: totals.count === 0 ? null : roundedMeanOverallOf(totals, 1), ...factors },
  };
}
