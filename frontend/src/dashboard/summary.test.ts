import { ratingsFrom, withOverall } from '../testing/ratings';
import {
  earlierDayAnywhereOf,
  TREND_DOWN_COLOR,
  TREND_UP_COLOR,
  averageScore,
  axisLabel,
  chartNeedsYear,
  currentFactorTiles,
  dashboardSummary,
  daysTracked,
  formatTrend,
  latestOldestFirst,
  latestScore,
  pointLabel,
  scoreTrend,
  trendColor,
  trendPoints,
} from './summary';
import { dayOf as calendarDay } from '@joy/domain';

const at = (...isos: string[]) => isos.map((createdAt) => ({ createdAt }));

describe('Overall Joy', () => {
  it('is the latest (first) overall score, or null without ratings', () => {
    expect(latestScore(withOverall([4.2, 3.0]))).toBe(4.2);
    expect(latestScore([])).toBeNull();
  });
});

describe('Trend', () => {
  it('is latest minus previous, one decimal', () => {
    expect(scoreTrend(withOverall([4.2, 3.8, 1]))).toBe(0.4);
    expect(scoreTrend(withOverall([3.3, 3.6]))).toBe(-0.3);
  });

  it('has no float noise (3.6 − 3.3 is 0.3, not 0.30000000000000004)', () => {
    expect(scoreTrend(withOverall([3.6, 3.3]))).toBe(0.3);
    expect(scoreTrend(withOverall([4.1, 3.8]))).toBe(0.3);
  });

  it('is null with fewer than 2 ratings (the card shows N/A)', () => {
    expect(scoreTrend([])).toBeNull();
    expect(scoreTrend(withOverall([4]))).toBeNull();
    expect(formatTrend(null)).toBe('N/A');
  });

  it('shows a plus sign at zero and above, a minus below', () => {
    expect(formatTrend(0.4)).toBe('+0.4');
    expect(formatTrend(0)).toBe('+0.0');
    expect(formatTrend(scoreTrend(withOverall([3.5, 3.5])))).toBe('+0.0');
    expect(formatTrend(-0.5)).toBe('-0.5');
    expect(formatTrend(-1.25)).toBe('-1.3');
  });

  it('is green when non-negative and red when negative', () => {
    expect(trendColor(0)).toBe(TREND_UP_COLOR);
    expect(trendColor(0.1)).toBe(TREND_UP_COLOR);
    expect(trendColor(-0.1)).toBe(TREND_DOWN_COLOR);
    expect(trendColor(null)).toBeUndefined();
  });
});

describe('Average', () => {
  it('is the mean overall score to one decimal, or null', () => {
    expect(averageScore(withOverall([4, 3, 3]))).toBe(3.3);
    expect(averageScore(withOverall([4.5, 4.6]))).toBe(4.6); // 4.55 rounds half up
    expect(averageScore([])).toBeNull();
  });
});

describe('Days Tracked (distinct calendar days in the browser time zone)', () => {
  it('counts several ratings on one day once', () => {
    expect(daysTracked(at('2025-08-19T08:00:00Z', '2025-08-19T09:00:00Z', '2025-08-19T20:00:00Z'), 'UTC')).toBe(1);
  });

  it('splits or merges days by the time zone', () => {
    // 22:30 UTC on the 18th and 01:30 UTC on the 19th.
    const ratings = at('2025-08-19T01:30:00Z', '2025-08-18T22:30:00Z');
    expect(daysTracked(ratings, 'UTC')).toBe(2);
    // New York (UTC−4 in August): 18:30 and 21:30 on the 18th — one day.
    expect(daysTracked(ratings, 'America/New_York')).toBe(1);
    // Tokyo (UTC+9): 10:30 and 07:30 on the 19th — one day.
    expect(daysTracked(ratings, 'Asia/Tokyo')).toBe(1);
    // Three ratings that are one UTC day but two Tokyo days.
    const evening = at('2025-08-19T16:00:00Z', '2025-08-19T14:00:00Z', '2025-08-19T01:00:00Z');
    expect(daysTracked(evening, 'UTC')).toBe(1);
    expect(daysTracked(evening, 'Asia/Tokyo')).toBe(2);
  });

  it('counts a week of daily ratings as 7 and ignores unparseable timestamps', () => {
    const week = ratingsFrom([3, 3, 3, 3, 3, 3, 3], '2025-08-19T12:00:00Z', 86_400_000);
    expect(daysTracked(week, 'Europe/Berlin')).toBe(7);
    expect(daysTracked([...at('nonsense'), ...week], 'UTC')).toBe(7);
    expect(daysTracked([])).toBe(0);
  });

  it('uses the browser zone by default', () => {
    const iso = '2025-08-19T12:00:00Z';
    const d = new Date(iso);
    const local = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    expect(calendarDay(iso, undefined)).toBe(local);
    expect(calendarDay('2025-08-19T23:59:59Z', 'Pacific/Kiritimati')).toBe('2025-08-20');
  });
});

describe('dashboardSummary', () => {
  it('gives the four cards', () => {
    const ratings = ratingsFrom([{ joy: 5, health: 5 }, 3, 2], '2025-08-19T12:00:00Z', 86_400_000);
    expect(dashboardSummary(ratings, 'UTC')).toEqual({ overall: 3.8, trend: 0.8, daysTracked: 3, average: 2.9, count: 3 });
  });

  it('gives N/A-able values without ratings', () => {
    expect(dashboardSummary([], 'UTC')).toEqual({ overall: null, trend: null, daysTracked: 0, average: null, count: 0 });
  });
});

describe('trend chart data', () => {
  it('takes the latest 14 ratings, oldest to newest', () => {
    const twenty = withOverall(Array.from({ length: 20 }, (_, i) => 1 + (i % 5)));
    const points = trendPoints(twenty);
    expect(points).toHaveLength(14);
    expect(points[13].id).toBe('o0');
    expect(points[0].id).toBe('o13');
    expect(latestOldestFirst([3, 2, 1], 14)).toEqual([1, 2, 3]);
  });

  it('carries the five factors of each point', () => {
    const [p] = trendPoints(ratingsFrom([{ relationships: 5, health: 1 }]));
    expect(p.scores).toEqual({ relationships: 5, health: 1, purpose: 3, growth: 3, joy: 3 });
    expect(p.overallScore).toBe(3);
  });

  it('labels a point with its day and time in the given zone', () => {
    expect(axisLabel('2025-08-19T13:05:00Z', 'UTC', 'en-US')).toBe('Aug 19\n1:05 PM');
    expect(axisLabel('2025-08-19T23:05:00Z', 'Asia/Tokyo', 'en-US')).toBe('Aug 20\n8:05 AM');
    expect(axisLabel('2025-08-19T13:05:00Z', 'UTC', 'en-US', true)).toBe('Aug 19, 2025\n1:05 PM');
  });

  it('says the year on the axis when the points span two years or are not of this one ("Jun 1" read as this June)', () => {
    const now = new Date('2026-11-27T12:00:00Z');
    const at = (createdAt: string, day?: string) => ({ createdAt, day });
    expect(chartNeedsYear([at('2026-06-01T08:00:00Z'), at('2026-11-27T08:00:00Z')], 'UTC', now)).toBe(false);
    expect(chartNeedsYear([at('2025-06-01T08:00:00Z'), at('2026-11-27T08:00:00Z')], 'UTC', now)).toBe(true);
    expect(chartNeedsYear([at('2025-06-01T08:00:00Z'), at('2025-07-01T08:00:00Z')], 'UTC', now)).toBe(true);
    // A missed day counts in the year of the day it rates.
    expect(chartNeedsYear([at('2026-01-02T08:00:00Z', '2025-12-31'), at('2026-01-02T09:00:00Z')], 'UTC', new Date('2026-01-02T12:00:00Z'))).toBe(true);
    expect(pointLabel(at('2026-01-02T08:00:00Z', '2025-12-31'), 'UTC', true)).toBe('Dec 31, 2025');
  });
});

describe('Current PERMA Scores', () => {
  it('are the latest factors as x/5 tiles, in form order', () => {
    const [latest] = ratingsFrom([{ relationships: 5, health: 4, purpose: 3, growth: 2, joy: 1 }]);
    expect(currentFactorTiles(latest).map((t) => `${t.label} ${t.text}`)).toEqual([
      'Relationships 5/5',
      'Health 4/5',
      'Purpose 3/5',
      'Growth 2/5',
      'Joy 1/5',
    ]);
    expect(currentFactorTiles(null)).toEqual([]);
  });
});

describe('earlierDayAnywhereOf: another member\'s rating, whose zone the viewer does not know', () => {
  it('does not call a rating made on time ahead of the viewer a missed day (Tokyo 00:26 on Nov 28, seen from New York)', () => {
    expect(earlierDayAnywhereOf({ createdAt: '2026-11-27T15:26:46Z', day: '2026-11-28' })).toBeNull();
    // Behind: Honolulu 22:00 on Nov 26 is Nov 27 in UTC.
    expect(earlierDayAnywhereOf({ createdAt: '2026-11-27T08:00:00Z', day: '2026-11-26' })).toBeNull();
  });

  it('names the day of a missed day rated later, when no zone on earth was still in it', () => {
    expect(earlierDayAnywhereOf({ createdAt: '2026-11-27T15:26:46Z', day: '2026-11-22' })).toBe('Nov 22, 2026');
    expect(earlierDayAnywhereOf({ createdAt: '2026-11-28T13:00:00Z', day: '2026-11-27' })).toBe('Nov 27, 2026');
    expect(earlierDayAnywhereOf({ createdAt: '2026-11-27T15:26:46Z' })).toBeNull(); // from before days were kept
  });
});
