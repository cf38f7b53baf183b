import { FACTOR_NAMES, type FactorScores } from './factors';

/**
 * `numerator / denominator` rounded to `decimals` decimals, half away from zero, for whole-number numerators and
 * denominators (sums of factors, of overall scores in tenths, and their counts). Every mean shown goes through this.
 * Why on the whole numbers: `Math.round(numerator × 10^decimals / denominator)` divides two exact integers, so an exact
 * half (4.15 = 498 tenths over 120) is the exact binary k + 0.5 and rounds up; the same mean worked out as
 * 49.8 / 12 is 4.1499999999999995 and rounded down, whatever epsilon is added (docs/decisions.md).
 */
export function roundRatio(numerator: number, denominator: number, decimals: number): number {
  const scale = 10 ** decimals;
  const scaled = (numerator * scale) / denominator;
  return (Math.sign(scaled) * Math.round(Math.abs(scaled))) / scale;
}

/**
 * Rounds to one decimal, half away from zero for the positive scores used here (the epsilon keeps 3.45,
 * stored as 3.4499…, from rounding down). For a difference of one-decimal scores (a trend), never a half; a mean
 * goes through `roundRatio` on its whole-number sum instead (the epsilon cannot lift 4.1499999999999995).
 */
export function roundToOneDecimal(value: number): number {
  return Math.round((value + Number.EPSILON) * 10) / 10;
}

/** An overall score (one decimal) in tenths, as a whole number. */
export const tenthsOf = (overallScore: number): number => Math.round(overallScore * 10);

/** The overall score of a rating: the mean of the five factors, rounded to one decimal. */
export function overallScore(scores: FactorScores): number {
  return roundRatio(FACTOR_NAMES.reduce((sum, f) => sum + scores[f], 0), FACTOR_NAMES.length, 1);
}

/** The mean of some overall scores, one decimal (from their exact sum in tenths); null for none. */
export function meanScore(scores: readonly number[]): number | null {
  return scores.length === 0 ? null : roundRatio(scores.reduce((sum, s) => sum + tenthsOf(s), 0), 10 * scores.length, 1);
}
