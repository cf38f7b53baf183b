import { calendarOption, openDaysOf } from './calendarOption';

type Formatter = (params: unknown) => string;

describe("the year calendar's chart option", () => {
  const days = [
    { day: '2026-03-04', overallScore: 3.5, count: 2 },
    { day: '2026-03-05', overallScore: 4, count: 1 },
  ];

  it("writes a cell's day as every screen writes a day, with its score and count", () => {
    const formatter = (calendarOption(2026, days, { compact: false, today: '2026-03-06' }).tooltip as { formatter: Formatter }).formatter;
    expect(formatter({ value: ['2026-03-04', 3.5, 2] })).toBe('Mar 4, 2026: 3.5 (2 ratings)');
    expect(formatter({ value: ['2026-03-05', 4, 1] })).toBe('Mar 5, 2026: 4.0 (1 rating)');
    expect(formatter({ value: ['2026-03-06', 0, 0] })).toBe('Mar 6, 2026: not rated');
  });

  it('gives each rated day a cell valued [day, score, count] (what a click hands to History), in the year asked for', () => {
    const option = calendarOption(2026, days, { compact: true, today: '2026-03-06' });
    expect((option.series as Array<{ data: unknown }>)[0].data).toEqual([
      ['2026-03-04', 3.5, 2],
      ['2026-03-05', 4, 1],
    ]);
    expect(option.calendar).toMatchObject({ range: '2026', orient: 'vertical' });
    expect(calendarOption(2026, days, { compact: false, today: '2026-03-06' }).calendar).toMatchObject({ orient: 'horizontal' });
  });

  it('makes the blank days that can still be rated cells too (a click opens them to be rated): 365 days back, never ahead', () => {
    const series = calendarOption(2026, days, { compact: false, today: '2026-03-06' }).series as Array<{ data: unknown[] }>;
    expect(series[1].data).toHaveLength(31 + 28 + 6 - 2);
    expect(series[1].data[0]).toEqual(['2026-01-01', 0, 0]);
    expect(series[1].data.at(-1)).toEqual(['2026-03-06', 0, 0]);
    // A year that began more than 365 days ago: from the earliest day that can be rated; a later year: none.
    expect(openDaysOf(2025, [], '2026-03-06')[0]).toBe('2025-03-06');
    expect(openDaysOf(2025, [], '2026-03-06').at(-1)).toBe('2025-12-31');
    expect(openDaysOf(2027, [], '2026-03-06')).toEqual([]);
    expect(openDaysOf(2024, [], '2026-03-06')).toEqual([]);
  });
});
