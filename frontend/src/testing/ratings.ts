import { type FactorScores, overallScore, type RatingView } from '@joy/domain';

/**
 * Builds a newest-first list of ratings for tests. Each entry is either five factor scores or a single
 * number used for all five (overall = that number). Ratings are one hour apart, the first the newest.
 */
export function ratingsFrom(
  entries: Array<Partial<FactorScores> | number>,
  newest = '2025-08-19T12:00:00Z',
  stepMs = 3_600_000,
): RatingView[] {
  const start = Date.parse(newest);
  return entries.map((entry, i) => {
    const scores: FactorScores =
      typeof entry === 'number'
        ? { relationships: entry, health: entry, purpose: entry, growth: entry, joy: entry }
        : { relationships: 3, health: 3, purpose: 3, growth: 3, joy: 3, ...entry };
    const createdAt = new Date(start - i * stepMs).toISOString();
    return { id: `r${i}`, createdAt, overallScore: overallScore(scores), ...scores, day: createdAt.slice(0, 10), note: null };
  });
}

/** A rating with a given overall score (factors not meaningful), for overall-score rules. */
export function withOverall(scores: number[], newest = '2025-08-19T12:00:00Z'): RatingView[] {
  const start = Date.parse(newest);
  return scores.map((s, i) => ({
    id: `o${i}`,
    createdAt: new Date(start - i * 3_600_000).toISOString(),
    day: new Date(start - i * 3_600_000).toISOString().slice(0, 10),
    note: null,
    overallScore: s,
    relationships: 3,
    health: 3,
    purpose: 3,
    growth: 3,
    joy: 3,
  }));
}
