import { FACTORS, overallScore } from '@joy/domain';
import { dayOf, daySumsByDay, lastWeekFirstDay, ratingDay, ratingSummaryOf } from '@joy/domain';
import { BAND_WORDS, defaultFactorScores, formatScore, scoreBand, scorePercent } from './score';

/**
 * This Week's Average as Home shows it: GET /api/joy-ratings/summary for the last 7 days (from
 * lastWeekFirstDay to today, in the person's zone), whose answer the server computes with ratingSummaryOf.
 */
function thisWeeksAverage(ratings: Array<{ createdAt: string; day?: string; overallScore: number }>, now: Date, timeZone?: string): number | null {
  const rated = ratings.flatMap((r) => {
    const day = ratingDay(r, timeZone);
    return day ? [{ ...defaultFactorScores(), overallScore: r.overallScore, day }] : [];
  });
  return ratingSummaryOf(daySumsByDay(rated), { from: lastWeekFirstDay(now, timeZone), to: dayOf(now, timeZone) }).averages.overall;
}

describe('factors', () => {
  it('are the five PERMA factors with their labels, in order', () => {
    expect(FACTORS.map((f) => [f.name, f.label])).toEqual([
      ['relationships', 'Relationships'],
      ['health', 'Health'],
      ['purpose', 'Purpose'],
      ['growth', 'Growth'],
      ['joy', 'Joy'],
    ]);
  });

  it('all start at 3', () => {
    expect(defaultFactorScores()).toEqual({ relationships: 3, health: 3, purpose: 3, growth: 3, joy: 3 });
  });

  it('have the band words of the scale', () => {
    expect(BAND_WORDS).toEqual({ 1: 'Very Low', 2: 'Low', 3: 'Moderate', 4: 'High', 5: 'Very High' });
  });
});

describe('overallScore', () => {
  it('is the mean of the five factors', () => {
    expect(overallScore(defaultFactorScores())).toBe(3);
    expect(overallScore({ relationships: 5, health: 5, purpose: 5, growth: 5, joy: 5 })).toBe(5);
    expect(overallScore({ relationships: 1, health: 1, purpose: 1, growth: 1, joy: 1 })).toBe(1);
  });

  it('is rounded to one decimal', () => {
    expect(overallScore({ relationships: 5, health: 4, purpose: 3, growth: 3, joy: 2 })).toBe(3.4);
    expect(overallScore({ relationships: 4, health: 4, purpose: 4, growth: 4, joy: 5 })).toBe(4.2);
    expect(overallScore({ relationships: 1, health: 2, purpose: 2, growth: 2, joy: 2 })).toBe(1.8);
  });
});

describe('formatScore', () => {
  it('shows one decimal', () => {
    expect(formatScore(4)).toBe('4.0');
    expect(formatScore(3.4)).toBe('3.4');
  });

  it('shows N/A without a score', () => {
    expect(formatScore(null)).toBe('N/A');
    expect(formatScore(undefined)).toBe('N/A');
    expect(formatScore(Number.NaN)).toBe('N/A');
  });
});

describe('scorePercent', () => {
  it('is the score divided by 5', () => {
    expect(scorePercent(5)).toBe(100);
    expect(scorePercent(2.5)).toBe(50);
    expect(scorePercent(1)).toBe(20);
  });
});

describe('scoreBand', () => {
  it.each([
    [5, 'Outstanding Joy!'],
    [4.5, 'Outstanding Joy!'],
    [4.4, 'Great Joy!'],
    [4, 'Great Joy!'],
    [3.9, 'Good Joy!'],
    [3.5, 'Good Joy!'],
    [3.4, 'Moderate Joy'],
    [3, 'Moderate Joy'],
    [2.9, 'Fair Joy'],
    [2.5, 'Fair Joy'],
    [2.4, 'Room to Grow'],
    [1, 'Room to Grow'],
  ])('%s gives %s', (score, message) => {
    expect(scoreBand(score).message).toBe(message);
  });

  it('gives every band its own colour', () => {
    const colours = [5, 4, 3.5, 3, 2.5, 1].map((s) => scoreBand(s).color);
    expect(new Set(colours).size).toBe(6);
  });
});

describe("thisWeeksAverage (This Week's Average)", () => {
  const now = new Date(2025, 7, 20, 15, 0, 0); // Wed 20 Aug 2025, 15:00 local time
  const at = (y: number, m: number, d: number, h = 12) => new Date(y, m, d, h).toISOString();

  it('is N/A (null) without ratings', () => {
    expect(thisWeeksAverage([], now)).toBeNull();
  });

  it("counts each rating on its day, and today in the person's zone", () => {
    const tokyoNow = new Date('2025-08-20T16:00:00Z'); // Thu 21 Aug in Tokyo
    const ratings = [
      { createdAt: '2025-08-20T10:00:00Z', day: '2025-08-14', overallScore: 5 }, // an earlier day, filled in: 7 days before the 21st
      { createdAt: '2025-08-20T10:00:00Z', day: '2025-08-15', overallScore: 3 }, // six days before the 21st: inside
    ];
    expect(thisWeeksAverage(ratings, tokyoNow, 'Asia/Tokyo')).toBe(3);
    expect(thisWeeksAverage(ratings, tokyoNow, 'UTC')).toBe(4); // the 20th in UTC: both inside
  });

  it('is the mean overall score of the ratings of the last 7 days, one decimal', () => {
    const ratings = [
      { createdAt: at(2025, 7, 20, 9), overallScore: 4.2 },
      { createdAt: at(2025, 7, 18), overallScore: 3.4 },
      { createdAt: at(2025, 7, 14, 0), overallScore: 2.2 }, // today minus 6 days: inside
      { createdAt: at(2025, 7, 13, 23), overallScore: 1 }, // 7 days ago: outside
    ];
    expect(thisWeeksAverage(ratings, now)).toBe(3.3);
  });

  it('starts at local midnight six days before today', () => {
    const edge = new Date(2025, 7, 14, 0, 0, 0).toISOString();
    const justBefore = new Date(2025, 7, 13, 23, 59, 59).toISOString();
    expect(thisWeeksAverage([{ createdAt: edge, overallScore: 4 }], now)).toBe(4);
    expect(thisWeeksAverage([{ createdAt: justBefore, overallScore: 4 }], now)).toBeNull();
  });

  it('is N/A when all ratings are older', () => {
    expect(thisWeeksAverage([{ createdAt: at(2025, 6, 1), overallScore: 5 }], now)).toBeNull();
  });

  it('rounds the mean to one decimal', () => {
    const ratings = [4.2, 3.4, 3.4].map((overallScore) => ({ createdAt: at(2025, 7, 19), overallScore }));
    expect(thisWeeksAverage(ratings, now)).toBe(3.7);
  });

  it('ignores unreadable dates', () => {
    expect(thisWeeksAverage([{ createdAt: 'not a date', overallScore: 5 }], now)).toBeNull();
  });
});
