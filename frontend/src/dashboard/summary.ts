/**
 * Pure calculations behind the Joy Dashboard (SPEC §2, §9; PRODUCT.md). Ratings arrive newest first, as
 * the API lists them. Scores are shown with one decimal; every derived number is rounded to one decimal
 * before it is compared or shown, so what the person sees is what the rules used.
 */
import { dayOf, daySumsByDay, type FactorName, FACTORS, latestFirst, meanScore, ratingDay, ratingSummaryOf, type RatingSummaryView, type RatingView, roundToOneDecimal } from '@joy/domain';
import { formatCalendarDay, formatDate, formatDateTime, formatShortDay, formatTime } from '../lib/dates';

/** SPEC §9: the dashboard trend chart uses the latest 14 ratings. */
export const TREND_WINDOW = 14;

type Scored = Pick<RatingView, 'overallScore'>;
type Dated = Pick<RatingView, 'createdAt'> & { day?: string };

/** The latest of the ratings (`latestFirst`: by the day rated, then the time made), or undefined without any. */
export function latestOf<T extends RatingView>(ratings: ReadonlyArray<T>): T | undefined {
  return ratings.reduce<T | undefined>((latest, r) => (latest === undefined || latestFirst(r, latest) < 0 ? r : latest), undefined);
}

/** The latest overall score, or null without ratings. */
export function latestScore(ratings: ReadonlyArray<Scored>): number | null {
  return ratings.length > 0 ? ratings[0].overallScore : null;
}

/**
 * Latest minus previous overall score, one decimal; null with fewer than 2 ratings (the card then shows
 * N/A). Rounded so that float noise (3.6 − 3.3 = 0.30000000000000004) never crosses a threshold.
 */
export function scoreTrend(ratings: ReadonlyArray<Scored>): number | null {
  if (ratings.length < 2) return null;
  return roundToOneDecimal(ratings[0].overallScore - ratings[1].overallScore) || 0;
}

/** "+0.4", "+0.0", "-0.5", or "N/A". Zero and above get a plus sign (SPEC §2). */
export function formatTrend(trend: number | null): string {
  if (trend === null || !Number.isFinite(trend)) return 'N/A';
  return `${trend >= 0 ? '+' : '-'}${Math.abs(trend).toFixed(1)}`;
}

/** Green when non-negative, red when negative (text-safe colours of the score bands). */
export const TREND_UP_COLOR = '#15803d';
export const TREND_DOWN_COLOR = '#b91c1c';

export function trendColor(trend: number | null): string | undefined {
  if (trend === null) return undefined;
  return trend >= 0 ? TREND_UP_COLOR : TREND_DOWN_COLOR;
}

/** Mean overall score of all ratings, one decimal, or null. */
export function averageScore(ratings: ReadonlyArray<Scored>): number | null {
  return meanScore(ratings.map((r) => r.overallScore));
}

/**
 * Days Tracked (PRODUCT.md): the number of distinct days with at least one rating: each rating's day in the
 * person's zone (`ratingDay`); `timeZone` only for a rating without one.
 */
export function daysTracked(ratings: ReadonlyArray<Dated>, timeZone?: string): number {
  const days = new Set<string>();
  for (const r of ratings) {
    const day = ratingDay(r, timeZone);
    if (day) days.add(day);
  }
  return days.size;
}

export interface DashboardSummary {
  overall: number | null;
  trend: number | null;
  daysTracked: number;
  average: number | null;
  count: number;
}

/** What the figures take from every rating: the server's summary (GET /api/joy-ratings/summary). */
export type RatingTotals = Pick<RatingSummaryView, 'count' | 'daysTracked' | 'averages'>;

/** The totals of a list of ratings, by the rule the server's summary follows (each rating on its `ratingDay`). */
export function totalsOf(ratings: ReadonlyArray<RatingView>, timeZone?: string): RatingTotals {
  const days = daySumsByDay(ratings.flatMap((r) => {
    const day = ratingDay(r, timeZone);
    return day ? [{ ...r, day }] : [];
  }));
  return ratingSummaryOf(days, { from: null, to: null });
}

/**
 * The four summary cards of the dashboard: the latest score and the trend from the latest ratings (GET
 * /api/joy-ratings/recent, ordered by `latestFirst`: a missed day rated today counts on its day), days tracked, the average and
 * the count from the totals of every rating.
 */
export function dashboardSummaryOf(newest: ReadonlyArray<RatingView>, totals: RatingTotals): DashboardSummary {
  const recent = [...newest].sort(latestFirst);
  return { overall: latestScore(recent), trend: scoreTrend(recent), daysTracked: totals.daysTracked, average: totals.averages.overall, count: totals.count };
}

/** The four summary cards of a whole list of ratings. */
export function dashboardSummary(ratings: ReadonlyArray<RatingView>, timeZone?: string): DashboardSummary {
  return dashboardSummaryOf(ratings, totalsOf(ratings, timeZone));
}

/** The latest `n` ratings, oldest first (chart order). */
export function latestOldestFirst<T>(ratings: ReadonlyArray<T>, n: number = TREND_WINDOW): T[] {
  return ratings.slice(0, n).reverse();
}

/**
 * A short axis label for a rating's time: "Aug 19" on one line and "2:05 PM" on the next ("Aug 19, 2025" with
 * `withYear`).
 */
export function axisLabel(iso: string, timeZone?: string, locale?: string, withYear = false): string {
  const day = withYear ? formatDate(iso, { timeZone, locale }) : formatShortDay(iso, { timeZone, locale });
  return day ? `${day}\n${formatTime(iso, { timeZone, locale })}` : '';
}

/** A rating's time for tables and tooltips: "Aug 19, 2025, 2:05 PM". */
export function fullLabel(iso: string, timeZone?: string, locale?: string): string {
  return formatDateTime(iso, { timeZone, locale });
}

/**
 * The gauge's caption on Home and the Dashboard: when the latest rating was made, in the person's zone; a missed day
 * rated later leads with that day ("Last rated Nov 28, 1:39 PM" over a rating of Nov 23 read as today rated).
 */
export function lastRatedCaption(rating: { createdAt: string; day?: string | null }, timeZone?: string): string {
  const label = fullLabel(rating.createdAt, timeZone);
  if (!label) return '';
  const forDay = forDayOf(rating, timeZone);
  return forDay ? `For ${forDay} (saved ${label})` : `Last rated ${label}`;
}

/** A missed day rated later: the day it rates ("Nov 22, 2026", shown as written, whatever the zone); else null. */
export function forDayOf(rating: { createdAt: string; day?: string | null }, timeZone?: string): string | null {
  return rating.day && rating.day !== dayOf(rating.createdAt, timeZone) ? formatCalendarDay(rating.day) : null;
}

/**
 * Another member's missed day rated later, seen without their zone: only a day before the date it was anywhere on
 * earth when they rated (UTC−12) is surely not the day they were in. A rating made at 00:26 in Tokyo for that
 * day is on time, though New York still has the day before (every rating of a member 14 hours ahead looked late).
 */
export function earlierDayAnywhereOf(rating: { createdAt: string; day?: string | null }): string | null {
  return rating.day && rating.day < dayOf(rating.createdAt, 'Etc/GMT+12')! ? formatCalendarDay(rating.day) : null;
}

/** When a rating was made; a missed day rated later, the day it rates first: "Nov 22, 2026 (saved Nov 27, 2026, 2:33 AM)". */
export function ratingLabel(rating: { createdAt: string; day?: string | null }, timeZone?: string): string {
  const forDay = forDayOf(rating, timeZone);
  return forDay ? `${forDay} (saved ${fullLabel(rating.createdAt, timeZone)})` : fullLabel(rating.createdAt, timeZone);
}

/**
 * A chart point's axis label: a missed day rated later at its day ("Nov 22"), any other at the day and time made;
 * with the year when the chart needs it (`chartNeedsYear`).
 */
export function pointLabel(point: { createdAt: string; day?: string | null }, timeZone?: string, withYear = false): string {
  if (!forDayOf(point, timeZone)) return axisLabel(point.createdAt, timeZone, undefined, withYear);
  return withYear ? formatCalendarDay(point.day!) : formatShortDay(`${point.day}T12:00:00Z`, { timeZone: 'UTC' });
}

/**
 * Whether a chart's labels must say the year: its points are of more than one year, or not of this one. The
 * latest 14 ratings of someone who rates rarely can span months: "Jun 1" beside "Nov 27" read as this June.
 */
export function chartNeedsYear(points: ReadonlyArray<{ createdAt: string; day?: string | null }>, timeZone?: string, now = new Date()): boolean {
  const years = new Set(points.map((p) => (p.day ?? dayOf(p.createdAt, timeZone) ?? '').slice(0, 4)));
  return years.size > 1 || !years.has((dayOf(now, timeZone) ?? '').slice(0, 4));
}

export interface TrendPoint {
  id: string;
  createdAt: string;
  /** The day it rates (a missed day rated later shows on its day). */
  day?: string;
  overallScore: number;
  scores: Record<FactorName, number>;
}

/** The points of the two dashboard line charts: the latest 14 ratings (`latestFirst`), oldest to newest. */
export function trendPoints(ratings: ReadonlyArray<RatingView>, n: number = TREND_WINDOW): TrendPoint[] {
  return latestOldestFirst([...ratings].sort(latestFirst), n).map((r) => ({
    id: r.id,
    createdAt: r.createdAt,
    day: r.day,
    overallScore: r.overallScore,
    scores: Object.fromEntries(FACTORS.map((f) => [f.name, r[f.name]])) as Record<FactorName, number>,
  }));
}

/** "Current PERMA Scores": the latest rating's five factors as "x/5" tiles. */
export function currentFactorTiles(latest: RatingView | null | undefined): Array<{ name: FactorName; label: string; score: number; text: string }> {
  if (!latest) return [];
  return FACTORS.map((f) => ({ name: f.name, label: f.label, score: latest[f.name], text: `${latest[f.name]}/5` }));
}
