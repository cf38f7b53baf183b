import type { FactorScores } from './factors';
import { daySumsByDay, noRatingTotals, ratingSummaryOf, summaryOfTotals } from './rating-summary';
import { overallScore } from './score';

const rating = (day: string, [relationships, health, purpose, growth, joy]: number[]) => {
  const scores: FactorScores = { relationships, health, purpose, growth, joy };
  return { day, ...scores, overallScore: overallScore(scores) };
};

describe('the summary of ratings (GET /api/joy-ratings/summary)', () => {
  it('shows the average of 12 ratings of mean exactly 4.15 as 4.2, not 4.1 (half away from zero)', () => {
    // Eleven at 4.2 (5,4,4,4,4) and one at 3.6 (4,4,3,4,3), over three days: 49.8 / 12 = 4.15.
    const ratings = [
      ...Array.from({ length: 11 }, (_, i) => rating(`2026-11-0${1 + (i % 3)}`, [5, 4, 4, 4, 4])),
      rating('2026-11-03', [4, 4, 3, 4, 3]),
    ];
    expect(ratings.map((r) => r.overallScore).slice(10)).toEqual([4.2, 3.6]);
    const summary = ratingSummaryOf(daySumsByDay(ratings), { from: null, to: null });
    // Factors: 59/12 = 4.92, 48/12 = 4, 47/12 = 3.92, 4, 3.92.
    expect(summary).toEqual({ from: null, to: null, count: 12, daysTracked: 3, averages: { overall: 4.2, relationships: 4.9, health: 4, purpose: 3.9, growth: 4, joy: 3.9 } });
  });

  it('rounds the other exact halves the review found up: 28 ratings of mean 4.65 → 4.7, 36 of 4.95 → 5.0, 36 of 4.45 → 4.5', () => {
    const overall = (count: number, overallTenths: number) => summaryOfTotals({ ...noRatingTotals(), daysTracked: 1, count, overallTenths }, { from: null, to: null }).averages.overall;
    expect(overall(28, 1302)).toBe(4.7);
    expect(overall(36, 1782)).toBe(5);
    expect(overall(36, 1602)).toBe(4.5);
  });
});
