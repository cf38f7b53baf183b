import type { CalendarDayView } from '@joy/domain';
// Types only from the chart module: no runtime import (ECharts loads with the chart itself).
import type { ChartOption } from '../charts/echarts';
import { formatCalendarDay } from '../lib/dates';
import { formatScore } from '../lib/score';

/**
 * The ECharts option of a year's calendar heatmap: one cell per day, coloured by the day's mean overall score
 * (1 red … 5 green, the app's score bands), empty days blank. Compact (phones): the weeks run down, not across.
 * Each cell's value is `[day, score, count]`: what its tooltip writes and what a click hands to History.
 */
export function calendarOption(year: number, days: readonly CalendarDayView[], { compact }: { compact: boolean }): ChartOption {
  return {
    tooltip: {
      formatter: (params: unknown) => {
        const [day, score, count] = (params as { value: [string, number, number] }).value;
        return `${formatCalendarDay(day)}: ${formatScore(score)} (${count} rating${count === 1 ? '' : 's'})`;
      },
    },
    visualMap: {
      min: 1,
      max: 5,
      calculable: false,
      // Coloured by the score (the value's second dimension), not by the count that follows it.
      dimension: 1,
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
    ],
  };
}
