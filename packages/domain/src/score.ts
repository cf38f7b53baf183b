import { FACTOR_NAMES, type FactorScores } from './factors';

/**
 * Rounds to one decimal, half away from zero for the positive scores used here (the epsilon keeps 3.45,
 * stored as 3.4499…, from rounding down). Every score shown or stored with one decimal goes through this.
 */
export function roundToOneDecimal(value: number): number {
  return Math.round((value + Number.EPSILON) * 10) / 10;
}

/** The overall score of a rating: the mean of the five factors, rounded to one decimal. */
export function overallScore(scores: FactorScores): number {
  return roundToOneDecimal(FACTOR_NAMES.reduce((sum, f) => sum + scores[f], 0) / FACTOR_NAMES.length);
}

/** The mean of some overall scores, one decimal; null for none. */
export function meanScore(scores: readonly number[]): number | null {
  return scores.length === 0 ? null : roundToOneDecimal(scores.reduce((sum, s) => sum + s, 0) / scores.length);
}
