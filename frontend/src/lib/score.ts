import { type FactorScores, MAX_SCORE } from '@joy/domain';

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

