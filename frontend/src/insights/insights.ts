/**
 * Pure calculations behind Joy Insights (SPEC §2 and §9; factor names per PRODUCT.md). Ratings arrive
 * newest first. Averages are rounded to one decimal, and every rule compares the rounded numbers the page
 * shows (differences rounded again), so "exactly 0.3" or "exactly 3.5" never fires by float noise and a
 * message never contradicts a number on screen.
 *
 * Ties: the strongest and the weakest area are the highest / lowest one-decimal average; on a tie the
 * factor that comes first in the rating form's order (Relationships, Health, Purpose, Growth, Joy) wins.
 */
import { averageScore, daysTracked, scoreTrend } from '../dashboard/summary';
import { type FactorName, FACTORS, meanScore, type RatingView, roundToOneDecimal } from '@joy/domain';

/** SPEC §9: the 7-Day Average uses the latest 7 ratings. */
export const SEVEN_DAY_WINDOW = 7;
/** SPEC §9 thresholds. */
export const GREAT_PROGRESS_ABOVE = 0.3;
export const GROWTH_OPPORTUNITY_BELOW = 3.5;
export const RECENT_IMPROVEMENT_ABOVE = 0.3;
export const MILESTONE_EVERY = 7;

/** SPEC §9: a fixed list of five category colours (non-text contrast ≥ 3:1 on white). */
export const CATEGORY_COLORS: Readonly<Record<FactorName, string>> = {
  relationships: '#e11d48',
  health: '#15803d',
  purpose: '#7c3aed',
  growth: '#0369a1',
  joy: '#d97706',
};

export interface CategoryAverage {
  name: FactorName;
  label: string;
  /** One decimal. */
  average: number;
  color: string;
}

/** The average of each factor over the given ratings, in form order; empty without ratings. */
export function categoryAverages(ratings: ReadonlyArray<RatingView>): CategoryAverage[] {
  if (ratings.length === 0) return [];
  return FACTORS.map((f) => ({
    name: f.name,
    label: f.label,
    average: meanScore(ratings.map((r) => r[f.name])) as number,
    color: CATEGORY_COLORS[f.name],
  }));
}

/** Highest average; first in form order on a tie. */
export function strongestArea(averages: ReadonlyArray<CategoryAverage>): CategoryAverage | null {
  return averages.reduce<CategoryAverage | null>((best, c) => (best === null || c.average > best.average ? c : best), null);
}

/** Lowest average; first in form order on a tie. */
export function weakestArea(averages: ReadonlyArray<CategoryAverage>): CategoryAverage | null {
  return averages.reduce<CategoryAverage | null>((worst, c) => (worst === null || c.average < worst.average ? c : worst), null);
}

/** Mean overall score of the latest 7 ratings (all of them when fewer), one decimal, or null. */
export function sevenDayAverage(ratings: ReadonlyArray<Pick<RatingView, 'overallScore'>>): number | null {
  return averageScore(ratings.slice(0, SEVEN_DAY_WINDOW));
}

export interface InsightsSummary {
  count: number;
  /** Latest − previous overall score, or null with fewer than 2 ratings. */
  recentTrend: number | null;
  strongest: CategoryAverage | null;
  weakest: CategoryAverage | null;
  daysTracked: number;
  sevenDayAverage: number | null;
  overallAverage: number | null;
  /** 7-day average − overall average, one decimal, or null. */
  sevenDayDifference: number | null;
  categories: CategoryAverage[];
}

export function insightsSummary(ratings: ReadonlyArray<RatingView>, timeZone?: string): InsightsSummary {
  const categories = categoryAverages(ratings);
  const seven = sevenDayAverage(ratings);
  const overall = averageScore(ratings);
  return {
    count: ratings.length,
    recentTrend: scoreTrend(ratings),
    strongest: strongestArea(categories),
    weakest: weakestArea(categories),
    daysTracked: daysTracked(ratings, timeZone),
    sevenDayAverage: seven,
    overallAverage: overall,
    sevenDayDifference: seven === null || overall === null ? null : roundToOneDecimal(seven - overall) || 0,
    categories,
  };
}

/** Words for the Recent Trend card. */
export function trendWord(trend: number | null): string {
  if (trend === null) return 'Rate again to see your trend';
  if (trend > 0) return 'Improving';
  if (trend < 0) return 'Declining';
  return 'Steady';
}

export type InsightKind = 'great-progress' | 'growth-opportunity' | 'recent-improvement' | 'consistency-milestone' | 'strongest-area';

export interface Insight {
  kind: InsightKind;
  title: string;
  text: string;
}

const one = (n: number) => n.toFixed(1);

/**
 * The Personalized Insights messages (SPEC §9), in this order:
 * - 'Great Progress!' when latest − previous > 0.3;
 * - 'Growth Opportunity' when the weakest category average < 3.5;
 * - 'Recent Improvement' when 7-day average − overall average > 0.3;
 * - 'Consistency Milestone' when the rating count is ≥ 7 and a multiple of 7;
 * - the strongest-area message, always (when there is at least one rating).
 */
export function personalizedInsights(summary: InsightsSummary): Insight[] {
  const out: Insight[] = [];
  if (summary.count === 0) return out;
  const { recentTrend, weakest, strongest, sevenDayDifference, count } = summary;

  if (recentTrend !== null && recentTrend > GREAT_PROGRESS_ABOVE) {
    out.push({
      kind: 'great-progress',
      title: 'Great Progress!',
      text: `Your overall joy rose by ${one(recentTrend)} since your previous rating. Whatever you did, it's working — keep it up.`,
    });
  }
  if (weakest && weakest.average < GROWTH_OPPORTUNITY_BELOW) {
    out.push({
      kind: 'growth-opportunity',
      title: 'Growth Opportunity',
      text: `${weakest.label} is your lowest area at ${one(weakest.average)}/5. One small step there this week could lift your overall joy.`,
    });
  }
  if (sevenDayDifference !== null && sevenDayDifference > RECENT_IMPROVEMENT_ABOVE && summary.sevenDayAverage !== null && summary.overallAverage !== null) {
    out.push({
      kind: 'recent-improvement',
      title: 'Recent Improvement',
      text: `Your last ${Math.min(count, SEVEN_DAY_WINDOW)} ratings average ${one(summary.sevenDayAverage)}, ${one(sevenDayDifference)} above your overall average of ${one(summary.overallAverage)}.`,
    });
  }
  if (count >= MILESTONE_EVERY && count % MILESTONE_EVERY === 0) {
    out.push({
      kind: 'consistency-milestone',
      title: 'Consistency Milestone',
      text: `You've recorded ${count} ratings. Regular check-ins make your trends and insights more accurate.`,
    });
  }
  if (strongest) {
    out.push({
      kind: 'strongest-area',
      title: `Your Strength: ${strongest.label}`,
      text: `${strongest.label} is your strongest area at ${one(strongest.average)}/5. Lean on it on the harder days.`,
    });
  }
  return out;
}
