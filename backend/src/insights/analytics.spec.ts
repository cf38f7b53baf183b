import { advancedInsights, forecastWeek, weekdayPattern, weeklyFactorMeans, type RatingInput } from './analytics';

const DAY = 86_400_000;
/** A rating with all five factors equal to `score` (so overall = score) at an instant. */
const at = (createdAt: string, score: number, factors: Partial<RatingInput> = {}): RatingInput => ({
  relationships: score,
  health: score,
  purpose: score,
  growth: score,
  joy: score,
  overallScore: score,
  createdAt,
  ...factors,
});
/** One rating a day at noon UTC from `first`, with the given overall scores. */
const daily = (first: string, scores: number[]) => scores.map((s, i) => at(new Date(Date.parse(`${first}T12:00:00Z`) + i * DAY).toISOString(), s));

describe('weeklyFactorMeans', () => {
  it('given ratings in two ISO weeks (unordered), when grouped, then each week has its factor and overall means, oldest first', () => {
    const ratings = [
      at('2026-11-18T09:00:00Z', 0, { relationships: 5, health: 4, purpose: 3, growth: 2, joy: 1, overallScore: 3 }),
      at('2026-11-10T09:00:00Z', 2),
      at('2026-11-22T21:00:00Z', 0, { relationships: 4, health: 4, purpose: 4, growth: 4, joy: 4, overallScore: 4 }),
      at('2026-11-16T00:30:00Z', 0, { relationships: 3, health: 1, purpose: 2, growth: 5, joy: 5, overallScore: 3.2 }),
    ];
    expect(weeklyFactorMeans(ratings)).toEqual([
      { week: '2026-W46', weekStart: '2026-11-09', count: 1, relationships: 2, health: 2, purpose: 2, growth: 2, joy: 2, overall: 2 },
      // (5+4+3)/3 = 4, (4+4+1)/3 = 3, (3+4+2)/3 = 3, (2+4+5)/3 = 3.67, (1+4+5)/3 = 3.33, (3+4+3.2)/3 = 3.4
      { week: '2026-W47', weekStart: '2026-11-16', count: 3, relationships: 4, health: 3, purpose: 3, growth: 3.67, joy: 3.33, overall: 3.4 },
    ]);
  });

  it('is empty without ratings', () => {
    expect(weeklyFactorMeans([])).toEqual([]);
  });
});

describe('weekdayPattern', () => {
  it('given ratings on Mon (twice), Wed and Sun (UTC), then the means and counts are exact and other days are null', () => {
    const ratings = [at('2026-11-16T08:00:00Z', 3), at('2026-11-09T23:59:00Z', 4), at('2026-11-18T12:00:00Z', 2), at('2026-11-22T12:00:00Z', 5)];
    expect(weekdayPattern(ratings)).toEqual([
      { weekday: 'Mon', count: 2, mean: 3.5 },
      { weekday: 'Tue', count: 0, mean: null },
      { weekday: 'Wed', count: 1, mean: 2 },
      { weekday: 'Thu', count: 0, mean: null },
      { weekday: 'Fri', count: 0, mean: null },
      { weekday: 'Sat', count: 0, mean: null },
      { weekday: 'Sun', count: 1, mean: 5 },
    ]);
  });
});

describe('forecastWeek', () => {
  const now = new Date('2026-11-10T18:00:00Z');

  it('given fewer than 7 distinct days, then there is no forecast', () => {
    expect(forecastWeek(daily('2026-11-05', [3, 3, 3, 3, 3, 3]), now)).toBeNull();
    const manyOnOneDay = Array.from({ length: 10 }, (_, i) => at(`2026-11-10T0${i}:00:00Z`, 3));
    expect(forecastWeek(manyOnOneDay, now)).toBeNull();
    expect(forecastWeek([], now)).toBeNull();
  });

  it('given a flat series, then the forecast is flat with a zero-width band, for the 7 days after today', () => {
    const forecast = forecastWeek(daily('2026-11-01', [3, 3, 3, 3, 3, 3, 3, 3, 3, 3]), now);
    expect(forecast).toEqual(
      ['2026-11-11', '2026-11-12', '2026-11-13', '2026-11-14', '2026-11-15', '2026-11-16', '2026-11-17'].map((date) => ({ date, expected: 3, low: 3, high: 3 })),
    );
  });

  it('given a series rising 0.1 a day in a straight line, then the forecast continues the line', () => {
    // 2.0 on Nov 1 … 2.9 on Nov 10 (today): Nov 11 → 3.0, Nov 17 → 3.6; no residuals, so no band.
    const forecast = forecastWeek(daily('2026-11-01', [2, 2.1, 2.2, 2.3, 2.4, 2.5, 2.6, 2.7, 2.8, 2.9]), now)!;
    expect(forecast.map((d) => d.expected)).toEqual([3, 3.1, 3.2, 3.3, 3.4, 3.5, 3.6]);
    expect(forecast.every((d) => d.low === d.expected && d.high === d.expected)).toBe(true);
  });

  it('averages several ratings of one day into one daily mean', () => {
    const ratings = [...daily('2026-11-01', [3, 3, 3, 3, 3, 3, 3, 3, 3]), at('2026-11-10T01:00:00Z', 2), at('2026-11-10T20:00:00Z', 4)];
    expect(forecastWeek(ratings, now)!.map((d) => d.expected)).toEqual([3, 3, 3, 3, 3, 3, 3]);
  });

  it('given noise around a flat line, then the band is centred, contains the expectation and widens with the horizon', () => {
    // 3.2 and 2.8 alternating over 8 days: a nearly flat fit near 3 with residuals of about 0.2.
    const forecast = forecastWeek(daily('2026-11-03', [3.2, 2.8, 3.2, 2.8, 3.2, 2.8, 3.2, 2.8]), now)!;
    expect(forecast).toHaveLength(7);
    const widths = forecast.map((d) => d.high - d.low);
    for (let i = 0; i < forecast.length; i++) {
      expect(forecast[i].low).toBeLessThan(forecast[i].expected);
      expect(forecast[i].high).toBeGreaterThan(forecast[i].expected);
      if (i > 0) expect(widths[i]).toBeGreaterThan(widths[i - 1]);
    }
    expect(Math.abs(forecast[0].expected - 3)).toBeLessThan(0.3);
  });

  it('clamps the expectation and the band to the 1..5 scale', () => {
    const forecast = forecastWeek(daily('2026-11-01', [3.2, 3.6, 4, 4.4, 4.8, 4.6, 5, 4.8, 5, 5]), now)!;
    for (const d of forecast) {
      expect(d.low).toBeGreaterThanOrEqual(1);
      expect(d.high).toBeLessThanOrEqual(5);
      expect(d.expected).toBeLessThanOrEqual(5);
    }
    expect(forecast[6].expected).toBe(5);
    expect(forecast[6].high).toBe(5);
  });

  it('regresses on the last 8 weeks only: an old low period does not drag a flat recent series', () => {
    const old = daily('2026-08-01', [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]); // more than 56 days before Nov 10
    const recent = daily('2026-11-01', [4, 4, 4, 4, 4, 4, 4, 4, 4, 4]);
    expect(forecastWeek([...old, ...recent], now)!.map((d) => d.expected)).toEqual([4, 4, 4, 4, 4, 4, 4]);
  });
});

describe('advancedInsights', () => {
  it('given no ratings, then everything is empty', () => {
    const result = advancedInsights([], new Date('2026-11-10T00:00:00Z'));
    expect(result.weeklyFactors).toEqual([]);
    expect(result.forecast).toBeNull();
    expect(result.since).toBeNull();
    expect(result.weekdayPattern.map((d) => d.count)).toEqual([0, 0, 0, 0, 0, 0, 0]);
  });

  it('gives since as the oldest rating, whatever the order', () => {
    const result = advancedInsights([at('2026-11-05T00:00:00Z', 3), at('2026-10-01T00:00:00Z', 3), at('2026-11-01T00:00:00Z', 3)]);
    expect(result.since).toBe('2026-10-01T00:00:00Z');
    expect(result.firstDay).toBe('2026-10-01');
  });

  it('gives firstDay as the earliest day rated, before since when a missed day was rated later', () => {
    const result = advancedInsights([at('2026-11-05T09:00:00Z', 3), { ...at('2026-11-06T09:00:00Z', 4), day: '2026-10-28' }]);
    expect(result.since).toBe('2026-11-05T09:00:00Z');
    expect(result.firstDay).toBe('2026-10-28');
    expect(advancedInsights([]).firstDay).toBeNull();
  });
});

describe('days in the person\'s zone (issue 19)', () => {
  it("counts a rating on its day: 23:30 UTC on a Monday is Tuesday's rating in Tokyo", () => {
    const monday = '2026-11-23T23:30:00.000Z';
    expect(weekdayPattern([at(monday, 4, { day: '2026-11-24' })]).find((d) => d.count > 0)!.weekday).toBe('Tue');
    expect(weekdayPattern([at(monday, 4)]).find((d) => d.count > 0)!.weekday).toBe('Mon'); // a rating from before days: UTC
    // An earlier day filled in later counts on that day, in that week.
    expect(weeklyFactorMeans([at('2026-11-30T10:00:00.000Z', 3, { day: '2026-11-22' })])[0].weekStart).toBe('2026-11-16');
  });

  it("forecasts from today in the person's zone", () => {
    const ratings = daily('2026-11-10', [3, 3, 3, 3, 3, 3, 3]);
    const now = new Date('2026-11-20T20:00:00.000Z'); // already the 21st in Tokyo
    expect(forecastWeek(ratings, now, 'UTC')![0].date).toBe('2026-11-21');
    expect(forecastWeek(ratings, now, 'Asia/Tokyo')![0].date).toBe('2026-11-22');
  });
});
