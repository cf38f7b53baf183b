/**
 * Pure calculations behind Joy Insights (SPEC §2 and §9; factor names per PRODUCT.md). Ratings arrive
 * newest first. Averages are rounded to one decimal, and every rule compares the rounded numbers the page
 * shows (differences rounded again), so "exactly 0.3" or "exactly 3.5" never fires by float noise and a
 * message never contradicts a number on screen.
 *
 * Ties: the strongest and the weakest areas are all those at the highest / lowest one-decimal average, named
 * together; when every area has the same average they are "level" and none is strongest or weakest, so one
 * factor is never named both.
 */
import { averageScore, type RatingTotals, scoreTrend, totalsOf } from '../dashboard/summary';
import { type FactorName, FACTORS, latestFirst, type RatingView, roundToOneDecimal } from '@joy/domain';

/** SPEC §9: the 7-Day Average uses the latest 7 ratings. */
export const SEVEN_DAY_WINDOW = 7;
/** SPEC §9 thresholds. */
export const GREAT_PROGRESS_ABOVE = 0.3;
export const GROWTH_OPPORTUNITY_BELOW = 3.5;
export const RECENT_IMPROVEMENT_ABOVE = 0.3;
export const MILESTONE_EVERY = 7;

/**
 * One colour per factor, used everywhere a factor is drawn (legends, tiles, charts): five hues between cyan and
 * pink, away from the red, amber and green of the score bands (lib/score), each with a non-text contrast of at
 * least 3:1 on white.
 */
export const CATEGORY_COLORS: Readonly<Record<FactorName, string>> = {
  relationships: '#db2777',
  health: '#0e7490',
  purpose: '#6d28d9',
  growth: '#1d4ed8',
  joy: '#a21caf',
};

/**
 * One marker shape per factor where several factors share one chart (the weekly trend): the five hues are close
 * for some eyes (purpose and joy are both purples), and two factors at the same value hid one another's dot.
 */
export const CATEGORY_SYMBOLS: Readonly<Record<FactorName, 'circle' | 'rect' | 'triangle' | 'diamond' | 'emptyCircle'>> = {
  relationships: 'circle',
  health: 'rect',
  purpose: 'triangle',
  growth: 'diamond',
  joy: 'emptyCircle',
};

export interface CategoryAverage {
  name: FactorName;
  label: string;
  /** One decimal. */
  average: number;
  color: string;
}


export interface AreaRanking {
  /** Every area at the highest average (in form order); empty when level or without ratings. */
  strongest: CategoryAverage[];
  /** Every area at the lowest average (in form order); empty when level or without ratings. */
  weakest: CategoryAverage[];
  /** The one average of all areas when they are level, else null. */
  level: number | null;
}

export function rankAreas(averages: ReadonlyArray<CategoryAverage>): AreaRanking {
  if (averages.length === 0) return { strongest: [], weakest: [], level: null };
  const values = averages.map((c) => c.average);
  const [high, low] = [Math.max(...values), Math.min(...values)];
  if (high === low) return { strongest: [], weakest: [], level: high };
  return { strongest: averages.filter((c) => c.average === high), weakest: averages.filter((c) => c.average === low), level: null };
}

/** "Health", "Health and Joy", "Health, Purpose, and Joy". */
export function areaNames(areas: ReadonlyArray<CategoryAverage>): string {
  return new Intl.ListFormat('en', { type: 'conjunction' }).format(areas.map((a) => a.label));
}

/** Mean overall score of the latest 7 ratings (all of them when fewer), one decimal, or null. */
export function sevenDayAverage(ratings: ReadonlyArray<Pick<RatingView, 'overallScore'>>): number | null {
  return averageScore(ratings.slice(0, SEVEN_DAY_WINDOW));
}

export interface InsightsSummary {
  count: number;
  /** Latest − previous overall score, or null with fewer than 2 ratings. */
  recentTrend: number | null;
  /** The areas at the top and the bottom, or the level all are at. */
  areas: AreaRanking;
  daysTracked: number;
  sevenDayAverage: number | null;
  overallAverage: number | null;
  /** 7-day average − overall average, one decimal, or null. */
  sevenDayDifference: number | null;
  categories: CategoryAverage[];
}

/** The average of each factor from the totals (the server's summary), in form order; empty without ratings. */
export function categoriesOf(totals: RatingTotals): CategoryAverage[] {
  if (totals.count === 0) return [];
  return FACTORS.map((f) => ({ name: f.name, label: f.label, average: totals.averages[f.name] as number, color: CATEGORY_COLORS[f.name] }));
}

/**
 * The Insights figures: the trend and the 7-day average from the latest ratings (the list's first page, ordered
 * by `latestFirst`: a missed day rated today counts on its day), everything else from the totals of the ratings
 * shown (the server's summary of the same days).
 */
export function insightsSummaryOf(newest: ReadonlyArray<RatingView>, totals: RatingTotals): InsightsSummary {
  const recent = [...newest].sort(latestFirst);
  const categories = categoriesOf(totals);
  const seven = sevenDayAverage(recent);
  const overall = totals.averages.overall;
  return {
    count: totals.count,
    recentTrend: scoreTrend(recent),
    areas: rankAreas(categories),
    daysTracked: totals.daysTracked,
    sevenDayAverage: seven,
    overallAverage: overall,
    sevenDayDifference: seven === null || overall === null ? null : roundToOneDecimal(seven - overall) || 0,
    categories,
  };
}

/** The Insights figures of a whole list of ratings. */
export function insightsSummary(ratings: ReadonlyArray<RatingView>, timeZone?: string): InsightsSummary {
  return insightsSummaryOf(ratings, totalsOf(ratings, timeZone));
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
 * What the 7-day average is set against: the average of every rating shown, which on the free plan is the last
 * `windowDays` days (a review: "your overall average" there was neither the Dashboard's all-time figure nor said to be
 * of 30 days).
 */
export function baselineName(windowDays: number | null): string {
  return windowDays === null ? 'your overall average' : `your ${windowDays}-day average`;
}

/**
 * The Personalized Insights messages (SPEC §9), in this order:
 * - 'Great Progress!' when latest − previous > 0.3;
 * - 'Growth Opportunity' when the weakest category average (or the level of all) < 3.5;
 * - 'Recent Improvement' when 7-day average − overall average > 0.3;
 * - 'Consistency Milestone' when the rating count is ≥ 7 and a multiple of 7;
 * - the strongest-area message (or that all areas are level), always (when there is at least one rating).
 */
export function personalizedInsights(summary: InsightsSummary, windowDays: number | null = null): Insight[] {
  const out: Insight[] = [];
  if (summary.count === 0) return out;
  const { recentTrend, areas, sevenDayDifference, count } = summary;
  const { strongest, weakest, level } = areas;

  if (recentTrend !== null && recentTrend > GREAT_PROGRESS_ABOVE) {
    out.push({
      kind: 'great-progress',
      title: 'Great Progress!',
      text: `Your overall joy rose by ${one(recentTrend)} since your previous rating. Whatever you did, it's working — keep it up.`,
    });
  }
  if (level !== null && level < GROWTH_OPPORTUNITY_BELOW) {
    out.push({
      kind: 'growth-opportunity',
      title: 'Growth Opportunity',
      // (The "All Areas Level" card beside it says they are level: this one says what to do about it.)
      text: `Every area has room to grow at ${one(level)}/5. One small step in any of them this week could lift your overall joy.`,
    });
  } else if (weakest.length > 0 && weakest[0].average < GROWTH_OPPORTUNITY_BELOW) {
    const are = weakest.length === 1 ? 'is your lowest area' : 'are your lowest areas';
    out.push({
      kind: 'growth-opportunity',
      title: 'Growth Opportunity',
      text: `${areaNames(weakest)} ${are} at ${one(weakest[0].average)}/5. One small step there this week could lift your overall joy.`,
    });
  }
  if (sevenDayDifference !== null && sevenDayDifference > RECENT_IMPROVEMENT_ABOVE && summary.sevenDayAverage !== null && summary.overallAverage !== null) {
    out.push({
      kind: 'recent-improvement',
      title: 'Recent Improvement',
      text: `Your last ${Math.min(count, SEVEN_DAY_WINDOW)} ratings average ${one(summary.sevenDayAverage)}, ${one(sevenDayDifference)} above ${baselineName(windowDays)} of ${one(summary.overallAverage)}.`,
    });
  }
  if (count >= MILESTONE_EVERY && count % MILESTONE_EVERY === 0) {
    out.push({
      kind: 'consistency-milestone',
      title: 'Consistency Milestone',
      text: `You've recorded ${count} ratings${windowDays === null ? '' : ` in the last ${windowDays} days`}. Regular check-ins make your trends and insights more accurate.`,
    });
  }
  if (level !== null) {
    out.push({
      kind: 'strongest-area',
      title: 'All Areas Level',
      text: `All five areas are level at ${one(level)}. None stands out as strongest or weakest: your wellbeing is in balance.`,
    });
  } else if (strongest.length === 1) {
    out.push({
      kind: 'strongest-area',
      title: `Your Strength: ${strongest[0].label}`,
      text: `${strongest[0].label} is your strongest area at ${one(strongest[0].average)}/5. Lean on it on the harder days.`,
    });
  } else if (strongest.length > 1) {
    out.push({
      kind: 'strongest-area',
      title: `Your Strengths: ${areaNames(strongest)}`,
      text: `${areaNames(strongest)} are your strongest areas at ${one(strongest[0].average)}/5. Lean on them on the harder days.`,
    });
  }
  return out;
}
