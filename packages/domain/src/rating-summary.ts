import { FACTOR_NAMES, type FactorName, type FactorScores } from './factors';
import { roundToOneDecimal } from './score';
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

/** An overall score (one decimal) in tenths, as a whole number. */
export const tenthsOf = (overallScore: number): number => Math.round(overallScore * 10);

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

/** The mean overall score (unrounded) of some day sums; NaN for none. */
export const meanOverallOf = (s: Pick<DaySums, 'count' | 'overallTenths'>): number => s.overallTenths / 10 / s.count;

/** The summary of the days between `from` and `to` (inclusive, either open when null) among `days`. */
export function ratingSummaryOf(days: Iterable<DaySums>, range: { from: string | null; to: string | null }): RatingSummaryView {
  const total = daySumsOf('', []);
  let daysTracked = 0;
  for (const d of days) {
    if ((range.from !== null && d.day < range.from) || (range.to !== null && d.day > range.to) || d.count === 0) continue;
    daysTracked += 1;
    total.count += d.count;
    total.overallTenths += d.overallTenths;
    for (const f of FACTOR_NAMES) total[f] += d[f];
  }
  const mean = (sum: number) => (total.count === 0 ? null : roundToOneDecimal(sum / total.count));
  const factors = Object.fromEntries(FACTOR_NAMES.map((f) => [f, mean(total[f])])) as Record<FactorName, number | null>;
  return { from: range.from, to: range.to, count: total.count, daysTracked, averages: { overall: mean(total.overallTenths / 10), ...factors } };
}
