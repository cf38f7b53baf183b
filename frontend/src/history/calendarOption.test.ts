import { calendarOption } from './calendarOption';

type Formatter = (params: unknown) => string;

describe("the year calendar's chart option", () => {
  const days = [
    { day: '2026-03-04', overallScore: 3.5, count: 2 },
    { day: '2026-03-05', overallScore: 4, count: 1 },
  ];

  it("writes a cell's day as every screen writes a day, with its score and count", () => {
    const formatter = (calendarOption(2026, days, { compact: false }).tooltip as { formatter: Formatter }).formatter;
    expect(formatter({ value: ['2026-03-04', 3.5, 2] })).toBe('Mar 4, 2026: 3.5 (2 ratings)');
    expect(formatter({ value: ['2026-03-05', 4, 1] })).toBe('Mar 5, 2026: 4.0 (1 rating)');
  });

  it('gives each rated day a cell valued [day, score, count] (what a click hands to History), in the year asked for', () => {
    const option = calendarOption(2026, days, { compact: true });
    expect((option.series as Array<{ data: unknown }>)[0].data).toEqual([
      ['2026-03-04', 3.5, 2],
      ['2026-03-05', 4, 1],
    ]);
    expect(option.calendar).toMatchObject({ range: '2026', orient: 'vertical' });
    expect(calendarOption(2026, days, { compact: false }).calendar).toMatchObject({ orient: 'horizontal' });
  });
});
