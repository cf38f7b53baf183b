import { addDays, lastWeekFirstDay, type WeeklyFactorMeans } from '@joy/domain';
import { forecastRows, weekdayRows, weeklyRows, windowFirstDay } from './advanced';
import { forecastOption, weekdayBarOption, weeklyTrendOption } from './advancedChartOptions';

const week: WeeklyFactorMeans = { week: '2026-W47', weekStart: '2026-11-16', count: 3, relationships: 4, health: 3, purpose: 3, growth: 3.67, joy: 3.33, overall: 3.4 };

describe('text alternatives', () => {
  it('lists each week with the five factor averages in form order', () => {
    expect(weeklyRows([week])).toEqual([['Week of Nov 16', '4.0/5', '3.0/5', '3.0/5', '3.7/5', '3.3/5']]);
  });

  it('lists weekdays with their average and count, or "No ratings"', () => {
    expect(weekdayRows([{ weekday: 'Mon', count: 2, mean: 3.5 }, { weekday: 'Tue', count: 0, mean: null }])).toEqual([
      ['Mon', '3.5/5', '2'],
      ['Tue', 'No ratings', '0'],
    ]);
  });

  it('lists the forecast days with the expected score and the range', () => {
    expect(forecastRows([{ date: '2026-11-23', expected: 3.46, low: 2.71, high: 4.2 }])).toEqual([['Mon, Nov 23', '3.5/5', '2.7 – 4.2']]);
  });
});

describe('figures with one decimal', () => {
  it('rounds a two-decimal mean at an exact half up, as every other average: 4.35 → 4.4 (toFixed gave 4.3), 4.45 → 4.5', () => {
    expect(weekdayRows([{ weekday: 'Mon', count: 4, mean: 4.35 }, { weekday: 'Tue', count: 4, mean: 4.45 }]).map((r) => r[1])).toEqual(['4.4/5', '4.5/5']);
    expect(weeklyRows([{ ...week, relationships: 1.15, health: 2.35, purpose: 4.05 }])[0].slice(1, 4)).toEqual(['1.2/5', '2.4/5', '4.1/5']);
    expect(forecastRows([{ date: '2026-11-23', expected: 4.35, low: 1.15, high: 4.95 }])).toEqual([['Mon, Nov 23', '4.4/5', '1.2 – 5.0']]);
  });

  it('shows the same in the charts\' tooltips and labels', () => {
    const bars = weekdayBarOption([{ weekday: 'Mon', count: 4, mean: 4.35 }]) as { tooltip: { valueFormatter: (v: unknown) => string }; series: Array<{ label: { formatter: (p: { value: unknown }) => string } }> };
    expect(bars.tooltip.valueFormatter(4.35)).toBe('4.4/5');
    expect(bars.series[0].label.formatter({ value: 4.35 })).toBe('4.4');
    const coming = forecastOption([{ date: '2026-11-23', expected: 4.35, low: 3.65, high: 5 }]) as { tooltip: { formatter: (p: unknown) => string } };
    expect(coming.tooltip.formatter([{ dataIndex: 0 }])).toBe('Mon, Nov 23<br/>Expected 4.4/5<br/>Range 3.7 – 5.0');
  });
});

describe("the free plan's window", () => {
  it('is today and the 29 days before for 30 days, as the last 7 days are today and the 6 before', () => {
    const now = new Date('2026-11-27T21:20:00Z');
    expect(windowFirstDay(30, 'UTC', now)).toBe('2026-10-29');
    expect(windowFirstDay(7, 'UTC', now)).toBe(lastWeekFirstDay(now, 'UTC'));
    // Already the 28th in Tokyo.
    expect(windowFirstDay(30, 'Asia/Tokyo', now)).toBe('2026-10-30');
  });
});

describe('advanced chart options', () => {
  it('draws one line per factor over the weeks, on the 1..5 axis', () => {
    const option = weeklyTrendOption([week]) as { series: Array<{ name: string; data: number[] }>; yAxis: { min: number; max: number } };
    expect(option.series.map((s) => s.name)).toEqual(['Relationships', 'Health', 'Purpose', 'Growth', 'Joy']);
    expect(option.series[3].data).toEqual([3.67]);
    expect([option.yAxis.min, option.yAxis.max]).toEqual([1, 5]);
    // Told apart by shape as well as colour, and two factors at one value both stay in sight (smaller on top).
    const markers = (option.series as unknown as Array<{ symbol: string; symbolSize: number }>).map((s) => [s.symbol, s.symbolSize]);
    expect(new Set(markers.map(([symbol]) => symbol)).size).toBe(5);
    expect(markers.map(([, size]) => size)).toEqual([...markers.map(([, size]) => size)].sort((a, b) => Number(b) - Number(a)));
  });

  it('labels at most five weeks on a phone (every third of 14), each one on a wider screen', () => {
    const weeks = Array.from({ length: 14 }, (_, i) => ({ ...week, weekStart: addDays(week.weekStart, 7 * i) }));
    const axis = (compact: boolean) => (weeklyTrendOption(weeks, { compact }) as { xAxis: { data: string[]; axisLabel: { interval: number | string } } }).xAxis;
    expect(axis(true).data).toHaveLength(14);
    expect(axis(true).axisLabel.interval).toBe(2); // labels 1, 4, 7, 10, 13: five
    expect(axis(false).axisLabel.interval).toBe('auto');
  });

  it('keeps a week without ratings on the axis, with no values, so that the lines break across it', () => {
    const later = { ...week, week: '2026-W48', weekStart: addDays(week.weekStart, 14), growth: 2 };
    const option = weeklyTrendOption([week, later]) as { series: Array<{ data: Array<number | null> }>; xAxis: { data: string[] } };
    expect(option.xAxis.data).toHaveLength(3);
    expect(option.series[3].data).toEqual([3.67, null, 2]);
    expect(option.series.every((s) => s.data[1] === null)).toBe(true);
  });

  it('draws a bar per weekday, none where there are no ratings', () => {
    const option = weekdayBarOption([{ weekday: 'Mon', count: 2, mean: 3.5 }, { weekday: 'Tue', count: 0, mean: null }]) as { series: Array<{ data: unknown[] }> };
    expect(option.series[0].data).toEqual([3.5, null]);
  });

  it('draws the forecast band as low plus the stacked width, under the expected line', () => {
    const option = forecastOption([{ date: '2026-11-23', expected: 3.5, low: 2.7, high: 4.2 }]) as { series: Array<{ name: string; data: number[]; stack?: string }> };
    expect(option.series.map((s) => [s.name, s.data, s.stack])).toEqual([
      ['Low', [2.7], 'band'],
      ['Range', [1.5], 'band'],
      ['Expected', [3.5], undefined],
    ]);
  });
});
