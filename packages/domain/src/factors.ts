/** The five PERMA factors a person rates each day, in the order the product shows them. */
export const FACTOR_NAMES = ['relationships', 'health', 'purpose', 'growth', 'joy'] as const;
export type FactorName = (typeof FACTOR_NAMES)[number];
export type FactorScores = Record<FactorName, number>;

/** Each factor with the label and hint the rating form shows. */
export const FACTORS: ReadonlyArray<{ name: FactorName; label: string; hint: string }> = [
  { name: 'relationships', label: 'Relationships', hint: 'Connection with family, friends and the people around you' },
  { name: 'health', label: 'Health', hint: 'Energy, sleep, movement and how your body feels' },
  { name: 'purpose', label: 'Purpose', hint: 'Feeling that what you do matters' },
  { name: 'growth', label: 'Growth', hint: 'Learning, progress and accomplishment' },
  { name: 'joy', label: 'Joy', hint: 'Positive emotions: delight, gratitude, fun' },
];

export const MIN_SCORE = 1;
export const MAX_SCORE = 5;

/** A factor score is a whole number from 1 to 5. */
export function isFactorScore(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= MIN_SCORE && value <= MAX_SCORE;
}
