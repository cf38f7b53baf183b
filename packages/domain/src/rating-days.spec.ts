import { dayScoresOf, isCalendarDay, normalizeNote, rateableDayProblem, streaksOf } from './rating-days';

describe('the day a rating rates', () => {
  it('accepts today and up to 365 days back, refusing the future, older days and non-days', () => {
    expect(rateableDayProblem('2026-11-24', '2026-11-24')).toBeNull();
    expect(rateableDayProblem('2025-11-24', '2026-11-24')).toBeNull(); // 365 days back
    expect(rateableDayProblem('2025-11-23', '2026-11-24')).toMatch(/365 days back/);
    expect(rateableDayProblem('2026-11-25', '2026-11-24')).toMatch(/future/);
    expect(rateableDayProblem('2026-02-30', '2026-11-24')).toMatch(/YYYY-MM-DD/);
    expect(rateableDayProblem(20261124, '2026-11-24')).toMatch(/YYYY-MM-DD/);
    // Written right but before 1970: too far back, not badly written (a review, 11-28).
    expect(rateableDayProblem('1900-01-01', '2026-11-24')).toBe('day must be at most 365 days back');
    expect(rateableDayProblem('1904-02-29', '2026-11-24')).toBe('day must be at most 365 days back');
    expect(rateableDayProblem('1900-02-29', '2026-11-24')).toMatch(/YYYY-MM-DD/);
    expect(isCalendarDay('2024-02-29')).toBe(true);
    expect(isCalendarDay('2026-1-05')).toBe(false);
  });

  it('counts days from 1970 to 9999 only: the range where weeks and zones are worked out right', () => {
    expect(isCalendarDay('1970-01-01')).toBe(true);
    expect(isCalendarDay('9999-12-31')).toBe(true);
    expect(isCalendarDay('1969-12-31')).toBe(false);
    expect(isCalendarDay('0000-01-01')).toBe(false);
    expect(isCalendarDay('0001-06-01')).toBe(false);
  });

  it('trims notes and reads a blank one as none', () => {
    expect(normalizeNote('  a walk by the sea \n')).toBe('a walk by the sea');
    expect(normalizeNote('   ')).toBeNull();
    // Nothing visible is no note (a review, 11-28: a zero-width space was kept as a note, shown as an empty quote).
    expect(normalizeNote('\u200B')).toBeNull();
    expect(normalizeNote(' \u2060 \u200D ')).toBeNull();
    expect(normalizeNote('ok\u200B')).toBe('ok\u200B');
    expect(normalizeNote(undefined)).toBeNull();
  });
});

describe('a calendar of rated days', () => {
  it("gives each day the mean of its ratings and how many, oldest first, from the day's sums", () => {
    const days = dayScoresOf([
      // 4.0 + 3.5 → 75 tenths over 2: 3.75 → 3.8
      { day: '2026-11-02', count: 2, overallTenths: 75 },
      { day: '2026-11-01', count: 1, overallTenths: 30 },
      // 3.1 + 3.2 → 63 tenths over 2: 3.15, half rounded up
      { day: '2026-11-03', count: 2, overallTenths: 63 },
    ]);
    expect(days).toEqual([
      { day: '2026-11-01', overallScore: 3, count: 1 },
      { day: '2026-11-02', overallScore: 3.8, count: 2 },
      { day: '2026-11-03', overallScore: 3.2, count: 2 },
    ]);
  });

  it('rounds a day whose mean is an exact half up: 12 ratings of mean 4.15 make a 4.2 day, not 4.1', () => {
    // 11 × 4.2 + 3.6 = 498 tenths over 12.
    expect(dayScoresOf([{ day: '2026-11-27', count: 12, overallTenths: 498 }])).toEqual([{ day: '2026-11-27', overallScore: 4.2, count: 12 }]);
  });

  it('counts the current streak up to today, or up to yesterday while today is not rated', () => {
    const rated = ['2026-11-20', '2026-11-21', '2026-11-22', '2026-11-23', '2026-10-01', '2026-10-02'];
    expect(streaksOf(rated, '2026-11-23')).toEqual({ currentStreak: 4, longestStreak: 4 });
    expect(streaksOf(rated, '2026-11-24')).toEqual({ currentStreak: 4, longestStreak: 4 });
    expect(streaksOf(rated, '2026-11-25')).toEqual({ currentStreak: 0, longestStreak: 4 });
    expect(streaksOf([], '2026-11-25')).toEqual({ currentStreak: 0, longestStreak: 0 });
  });

  it('counts a day rated in a zone ahead of the present one (moved west since) as today', () => {
    // Rated on the 26th and 27th in UTC; now in Los Angeles, where it is still the 26th.
    expect(streaksOf(['2026-11-26', '2026-11-27'], '2026-11-26')).toEqual({ currentStreak: 2, longestStreak: 2 });
    expect(streaksOf(['2026-11-27'], '2026-11-26')).toEqual({ currentStreak: 1, longestStreak: 1 });
  });

  it('counts runs across month and year ends', () => {
    expect(streaksOf(['2025-12-30', '2025-12-31', '2026-01-01', '2026-01-01'], '2026-01-01')).toEqual({ currentStreak: 3, longestStreak: 3 });
  });
});
