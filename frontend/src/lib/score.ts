import type { FactorName, FactorScores, JoyRating } from '../types';

/** The five rating factors, in display order. */
export const FACTORS: ReadonlyArray<{ name: FactorName; label: string; hint: string }> = [
  { name: 'relationships', label: 'Relationships', hint: 'Connection with family, friends and the people around you' },
  { name: 'health', label: 'Health', hint: 'Energy, sleep, movement and how your body feels' },
  { name: 'purpose', label: 'Purpose', hint: 'Feeling that what you do matters' },
  { name: 'growth', label: 'Growth', hint: 'Learning, progress and accomplishment' },
  { name: 'joy', label: 'Joy', hint: 'Positive emotions: delight, gratitude, fun' },
];

export const MIN_SCORE = 1;
export const MAX_SCORE = 5;
export const DEFAULT_FACTOR_SCORE = 3;

/** The words of the rating scale: 1 Very Low … 5 Very High. */
export const BAND_WORDS: Readonly<Record<number, string>> = {
  1: 'Very Low',
  2: 'Low',
  3: 'Moderate',
  4: 'High',
  5: 'Very High',
};

export function defaultFactorScores(): FactorScores {
  return { relationships: 3, health: 3, purpose: 3, growth: 3, joy: 3 };
}

/** Rounds to one decimal (half away from zero for the positive scores used here). */
export function roundToOneDecimal(value: number): number {
  return Math.round((value + Number.EPSILON) * 10) / 10;
}

/** The overall score: the mean of the five factors, rounded to one decimal. */
export function overallScore(scores: FactorScores): number {
  const values = FACTORS.map((f) => scores[f.name]);
  return roundToOneDecimal(values.reduce((sum, v) => sum + v, 0) / values.length);
}

/** A score shown with one decimal ("4.0"), or "N/A" when there is none. */
export function formatScore(score: number | null | undefined): string {
  return typeof score === 'number' && Number.isFinite(score) ? score.toFixed(1) : 'N/A';
}

/** Percentage of the score display: score divided by 5. */
export function scorePercent(score: number): number {
  return Math.max(0, Math.min(100, (score / MAX_SCORE) * 100));
}

export interface ScoreBand {
  message: string;
  /** Text-safe colour (at least 4.5:1 on white), also used for the gauge. */
  color: string;
}

const BANDS: ReadonlyArray<{ min: number } & ScoreBand> = [
  { min: 4.5, message: 'Outstanding Joy!', color: '#047857' },
  { min: 4, message: 'Great Joy!', color: '#15803d' },
  { min: 3.5, message: 'Good Joy!', color: '#4d7c0f' },
  { min: 3, message: 'Moderate Joy', color: '#a16207' },
  { min: 2.5, message: 'Fair Joy', color: '#c2410c' },
];
const ROOM_TO_GROW: ScoreBand = { message: 'Room to Grow', color: '#b91c1c' };

/** Message and colour of an overall score (SPEC §9). */
export function scoreBand(score: number): ScoreBand {
  const band = BANDS.find((b) => score >= b.min);
  return band ? { message: band.message, color: band.color } : ROOM_TO_GROW;
}

/** Local midnight `days` days before `now`'s day. */
function startOfLocalDay(now: Date, daysBack: number): Date {
  return new Date(now.getFullYear(), now.getMonth(), now.getDate() - daysBack);
}

/**
 * "This Week's Average" (PRODUCT.md): the mean overall score of the ratings of the last 7 days,
 * one decimal, or null when there are none. The last 7 days are today and the six calendar days
 * before it, in the browser's time zone.
 */
export function thisWeeksAverage(
  ratings: ReadonlyArray<Pick<JoyRating, 'createdAt' | 'overallScore'>>,
  now: Date = new Date(),
): number | null {
  const from = startOfLocalDay(now, 6).getTime();
  const recent = ratings.filter((r) => {
    const t = Date.parse(r.createdAt);
    return Number.isFinite(t) && t >= from;
  });
  if (recent.length === 0) return null;
  return roundToOneDecimal(recent.reduce((sum, r) => sum + r.overallScore, 0) / recent.length);
}
