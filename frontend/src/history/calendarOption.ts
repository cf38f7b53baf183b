import { addDays, type CalendarDayView, earliestRateableDay } from '@joy/domain';
// Types only from the chart module: no runtime import (ECharts loads with the chart itself).
import type { ChartOption } from '../charts/echarts';
import { formatCalendarDay } from '../lib/dates';
import { formatScore } from '../lib/score';

/** The days of `year` that can still be rated (365 days back up to `today`) and have no rating: blank but clickable. */
export function openDaysOf(year: number, days: readonly CalendarDayView[], today: string): string[] {
  const rated = new Set(days.map((d) => d.day));
  const open: string[] = [];
  const first = [earliestRateableDay(today), `${year}-01-01`].sort()[1];
  const last = [today, `${year}-12-31`].sort()[0];
  for (let day = first; day <= last; day = addDays(day, 1)) if (!rated.has(day)) open.push(day);
  return open;
}

/**
 * The ECharts option of a year's calendar heatmap: one cell per day, coloured by the day's mean overall score
 * (1 red … 5 green, the app's score bands), empty days blank. Compact (phones): the weeks run down, not across.
 * Each cell's value is `[day, score, count]`: what its tooltip writes and what a click hands to History. The blank
 * days that can still be rated are cells too (`[day, 0, 0]`, a series the colours leave alone), so that a click
 * on one opens it to be rated.
 */
export function calendarOption(year: number, days: readonly CalendarDayView[], { compact, today }: { compact: boolean; today: string }): ChartOption {
  return {
    tooltip: {
      formatter: (params: unknown) => {
        const [day, score, count] = (params as { value: [string, number | null, number] }).value;
        if (count === 0) return `${formatCalendarDay(day)}: not rated`;
        return `${formatCalendarDay(day)}: ${formatScore(score!)} (${count} rating${count === 1 ? '' : 's'})`;
      },
    },
    visualMap: {
      min: 1,
      max: 5,
      calculable: false,
      // Coloured by the score (the value's second dimension), not by the count that follows it; rated days only.
      dimension: 1,
      seriesIndex: 0,
      orient: 'horizontal',
      left: 'center',
      bottom: 0,
      itemWidth: 12,
      itemHeight: compact ? 120 : 160,
      text: ['5', '1'],
      inRange: { color: ['#d9534f', '#f0ad4e', '#f7d774', '#8cc56b', '#3c9d4e'] },
    },
    calendar: {
      range: String(year),
      orient: compact ? 'vertical' : 'horizontal',
      top: compact ? 40 : 30,
      left: compact ? 40 : 40,
      right: compact ? 16 : 16,
      bottom: compact ? 60 : 50,
      cellSize: compact ? ['auto', 14] : ['auto', 16],
      yearLabel: { show: false },
      dayLabel: { firstDay: 1, nameMap: 'en', fontSize: 10 },
      monthLabel: { nameMap: 'en', fontSize: 11 },
      splitLine: { lineStyle: { color: '#d8cfc6' } },
      itemStyle: { borderColor: '#fff', borderWidth: 2, color: '#f4efe9' },
    },
    series: [
      {
        type: 'heatmap',
        coordinateSystem: 'calendar',
        data: days.map((d) => [d.day, d.overallScore, d.count]),
      },
      {
        type: 'heatmap',
        coordinateSystem: 'calendar',
        // A number, not null: ECharts neither draws nor hit-tests a heatmap cell without a value (a review, 11-27:
        // blank days could not be clicked). Its colour is the series' own; the visual map reads series 0 only.
        data: openDaysOf(year, days, today).map((day) => [day, 0, 0]),
        itemStyle: { color: '#f4efe9' },
        emphasis: { itemStyle: { color: '#ffe6d3' } },
      },
    ],
  };
}
