import { advancedInsights, FORECAST_MIN_DAYS, FORECAST_RECENT_DAYS, FORECAST_WINDOW_DAYS, forecastWeek, weekdayPattern, weeklyFactorMeans, type RatingInput } from './analytics';
import { studentT975, T975_DF } from './student-t';

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
/** A rating of these five factor scores on `day` (its overall score the mean, as the app computes it). */
const rated = (day: string, [relationships, health, purpose, growth, joy]: number[]): RatingInput => ({
  relationships,
  health,
  purpose,
  growth,
  joy,
  overallScore: Math.round(((relationships + health + purpose + growth + joy) / 5) * 10) / 10,
  createdAt: `${day}T12:00:00Z`,
  day,
});

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

  it('rounds an exact half up: 8 ratings of mean 4.225 → 4.23 (was 4.22), a factor at 169/40 = 4.225 → 4.23', () => {
    // Seven at 4.2 (5,4,4,4,4) and one at 4.4 (5,5,4,4,4) in the week of Nov 16: 33.8 / 8 = 4.225.
    const eight = [...Array.from({ length: 7 }, () => rated('2026-11-17', [5, 4, 4, 4, 4])), rated('2026-11-18', [5, 5, 4, 4, 4])];
    expect(weeklyFactorMeans(eight)).toEqual([{ week: '2026-W47', weekStart: '2026-11-16', count: 8, relationships: 5, health: 4.13, purpose: 4, growth: 4, joy: 4, overall: 4.23 }]);
    // Forty: relationships 9 × 5 + 31 × 4 = 169, over 40 = 4.225; overall 1618 tenths / 40 = 4.045.
    const forty = [...Array.from({ length: 9 }, () => rated('2026-11-17', [5, 4, 4, 4, 4])), ...Array.from({ length: 31 }, () => rated('2026-11-19', [4, 4, 4, 4, 4]))];
    expect(weeklyFactorMeans(forty)[0]).toMatchObject({ count: 40, relationships: 4.23, overall: 4.05 });
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

  it('rounds an exact half up: 8 Tuesday ratings of mean 4.225 → 4.23', () => {
    const tuesdays = [...Array.from({ length: 7 }, () => rated('2026-11-17', [5, 4, 4, 4, 4])), rated('2026-11-24', [5, 5, 4, 4, 4])];
    expect(weekdayPattern(tuesdays)[1]).toEqual({ weekday: 'Tue', count: 8, mean: 4.23 });
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

  it('gives no forecast when the ratings ended weeks ago: the review\'s slide 40 to 31 days back read "1.0, range 1.0 – 1.0"', () => {
    const slide = [4, 3.8, 4, 3.6, 3.4, 3.6, 3.2, 3, 3.2, 2.8];
    const today = new Date('2026-11-27T21:20:00Z');
    expect(forecastWeek(daily('2026-10-18', slide), today)).toBeNull();
    // Ratings that end in 2020: no 5.0 "for certain" six years on.
    expect(forecastWeek(daily('2020-02-20', [3, 3.4, 3.8, 4.2, 4.6, 5, 5, 5, 5, 5]), today)).toBeNull();
    // The same slide ending yesterday: a forecast, with its range.
    expect(forecastWeek(daily('2026-11-17', slide), today)![0]).toEqual({ date: '2026-11-28', expected: 2.63, low: 2.18, high: 3.08 });
  });

  it(`forecasts only while the last rated day is one of the last ${FORECAST_RECENT_DAYS} (today and the 2 before)`, () => {
    const ten = [3, 3.2, 2.8, 3, 3.2, 2.8, 3, 3.2, 2.8, 3];
    expect(forecastWeek(daily('2026-10-31', ten), now)).not.toBeNull(); // last Nov 9: yesterday
    expect(forecastWeek(daily('2026-10-30', ten), now)).not.toBeNull(); // Nov 8
    expect(forecastWeek(daily('2026-10-29', ten), now)).toBeNull(); // Nov 7: three days without a rating
  });

  it(`needs 7 rated days in the ${FORECAST_WINDOW_DAYS} days ending today, however many there were before`, () => {
    const older = daily('2026-08-01', [4, 4, 4, 4, 4, 4, 4, 4, 4, 4]);
    // Six days up to today: it used to fall back to the latest 7 days, reaching back to August.
    expect(forecastWeek([...older, ...daily('2026-11-05', [3, 3, 3, 3, 3, 3])], now)).toBeNull();
    expect(forecastWeek([...older, ...daily('2026-11-04', [3, 3, 3, 3, 3, 3, 3])], now)!.map((d) => d.expected)).toEqual([3, 3, 3, 3, 3, 3, 3]);
    // The window is the 56 days ending today: Sep 16 is in it, Sep 15 is not.
    const sixRecent = daily('2026-11-05', [3, 3, 3, 3, 3, 3]);
    expect(forecastWeek([...daily('2026-09-16', [3]), ...sixRecent], now)).not.toBeNull();
    expect(forecastWeek([...daily('2026-09-15', [3]), ...sixRecent], now)).toBeNull();
  });

  it("gives the 95% band with Student's t for n − 2 degrees of freedom: 2.5706 × se × √(1 + 1/n + (x − x̄)² / Sxx) for 7 days", () => {
    // Nov 4..10, flat at 3 (Sxy = 0) with residuals 0, ±0.2: se = √(0.16 / 5). Tomorrow lies 4 days past x̄ (Sxx = 28):
    // 2.5706 × 0.17889 × √(12/7) = 0.602, the band 2.40 – 3.60 (1.96 gave 2.54 – 3.46); a week ahead 2.00 – 4.00.
    const forecast = forecastWeek(daily('2026-11-04', [3, 3.2, 2.8, 3, 2.8, 3.2, 3]), now)!;
    expect(forecast[0]).toEqual({ date: '2026-11-11', expected: 3, low: 2.4, high: 3.6 });
    expect(forecast[6]).toEqual({ date: '2026-11-17', expected: 3, low: 2, high: 4 });
  });

  it('keeps the band when the trend leaves the scale: the expectation at the scale\'s end, the band measured from it', () => {
    // A steep fall to today: the line is below 1 from tomorrow on; the band used to be "1.0 – 1.0" from the 2nd day.
    const falling = forecastWeek(daily('2026-11-04', [4.2, 3.6, 3.4, 2.6, 2.4, 1.6, 1.4]), now)!;
    expect(falling.map((d) => [d.expected, d.low])).toEqual(Array.from({ length: 7 }, () => [1, 1]));
    expect(falling.map((d) => d.high)).toEqual([1.53, 1.58, 1.63, 1.69, 1.75, 1.81, 1.88]);
    // The same at the top.
    const rising = forecastWeek(daily('2026-11-04', [1.8, 2.4, 2.6, 3.4, 3.6, 4.4, 4.6]), now)!;
    expect(rising.map((d) => [d.expected, d.high])).toEqual(Array.from({ length: 7 }, () => [5, 5]));
    expect(rising.map((d) => d.low)).toEqual([4.47, 4.42, 4.37, 4.31, 4.25, 4.19, 4.12]);
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
    const ratings = daily('2026-11-13', [3, 3, 3, 3, 3, 3, 3]); // to the 19th: recent enough on the 20th and the 21st
    const now = new Date('2026-11-20T20:00:00.000Z'); // already the 21st in Tokyo
    expect(forecastWeek(ratings, now, 'UTC')![0].date).toBe('2026-11-21');
    expect(forecastWeek(ratings, now, 'Asia/Tokyo')![0].date).toBe('2026-11-22');
  });
});

describe("Student's t quantile of the forecast band", () => {
  /**
   * P(|T| ≤ t) for ν degrees of freedom, from the density itself: with x = √ν·tan θ it is the integral of cos^(ν−1) θ
   * from 0 to atan(t/√ν) over the same from 0 to π/2 (Simpson's rule: the integrand is smooth).
   */
  const central = (t: number, df: number) => {
    const integral = (to: number, steps = 20_000) => {
      const h = to / steps;
      let sum = 0;
      for (let i = 0; i <= steps; i++) sum += (i === 0 || i === steps ? 1 : i % 2 ? 4 : 2) * Math.cos(i * h) ** (df - 1);
      return (sum * h) / 3;
    };
    return integral(Math.atan(t / Math.sqrt(df))) / integral(Math.PI / 2);
  };

  it('covers every n the forecast can have (7 days to the 8 weeks and two days rated ahead)', () => {
    expect(T975_DF.first).toBeLessThanOrEqual(FORECAST_MIN_DAYS - 2);
    expect(T975_DF.last).toBeGreaterThanOrEqual(FORECAST_WINDOW_DAYS + 2 - 2);
    expect(studentT975(5)).toBe(2.5706);
    expect(studentT975(200)).toBe(studentT975(T975_DF.last)); // past the table: its last, slightly wider figure
  });

  it('has each figure the 95% two-sided quantile to four decimals, by the t distribution', () => {
    for (let df = T975_DF.first; df <= T975_DF.last; df++) {
      const t = studentT975(df);
      expect([df, central(t - 0.00005, df) < 0.95 && central(t + 0.00005, df) > 0.95]).toEqual([df, true]);
    }
  });
});
