/** ECharts options of the Advanced Analytics charts (types only from the chart module: it imports ECharts). */
import { addDays, FACTORS, type ForecastDay, type WeekdayMean, type WeeklyFactorMeans } from '@joy/domain';
import type { ChartOption } from '../charts/echarts';
import { dayLabel, oneDecimal, weekLabel } from './advanced';
import { CATEGORY_COLORS, CATEGORY_SYMBOLS } from './insights';

const CHART_TEXT_STYLE = { fontFamily: "'Inter', system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif", color: '#4a3b31' };
const outOfFive = (value: unknown) => (typeof value === 'number' ? `${oneDecimal(value)}/5` : String(value ?? '–'));
const AXIS_LABEL = { color: '#5c4a3e' };
const SCORE_AXIS = { type: 'value' as const, min: 1, max: 5, interval: 1, axisLabel: AXIS_LABEL, splitLine: { lineStyle: { color: '#f1e4d9' } } };
const FORECAST_COLOR = '#b45309';
const PHONE_WEEK_LABELS = 5;

/**
 * The weeks from the first to the last, each Monday once: a week without ratings is there with no values, so that
 * the lines break across it instead of joining two weeks that are not next to each other.
 */
export function everyWeek(weeks: ReadonlyArray<WeeklyFactorMeans>): Array<WeeklyFactorMeans | { weekStart: string }> {
  const all: Array<WeeklyFactorMeans | { weekStart: string }> = [];
  for (const week of weeks) {
    for (let monday = all.length > 0 ? addDays(all[all.length - 1].weekStart, 7) : week.weekStart; monday < week.weekStart; monday = addDays(monday, 7)) {
      all.push({ weekStart: monday });
    }
    all.push(week);
  }
  return all;
}

/** Per-factor weekly trend: one line per PERMA factor over the ISO weeks, y 1 to 5. */
export function weeklyTrendOption(rated: ReadonlyArray<WeeklyFactorMeans>, { compact = false } = {}): ChartOption {
  const weeks = everyWeek(rated);
  // On a phone, at most about five week labels (14 ran into one another: "Aug 24Aug 31Sep 7…"), smaller marks.
  const labelEvery = compact ? Math.ceil(weeks.length / PHONE_WEEK_LABELS) : 1;
  return {
    textStyle: CHART_TEXT_STYLE,
    grid: { left: 8, right: 16, top: 24, bottom: 16, containLabel: true },
    tooltip: { trigger: 'axis', valueFormatter: outOfFive },
    xAxis: {
      type: 'category',
      data: weeks.map((w) => weekLabel(w.weekStart)),
      axisLabel: { ...AXIS_LABEL, rotate: compact ? 35 : 0, interval: compact ? labelEvery - 1 : 'auto', hideOverlap: true },
    },
    yAxis: SCORE_AXIS,
    series: FACTORS.map((f) => ({
      type: 'line' as const,
      name: f.label,
      data: weeks.map((w) => (f.name in w ? (w as WeeklyFactorMeans)[f.name] : null)),
      smooth: false,
      symbol: CATEGORY_SYMBOLS[f.name],
      // Drawn smaller one after the other: where two factors meet, the later one sits inside the earlier one.
      symbolSize: compact ? 9 - FACTORS.indexOf(f) : 13 - 1.5 * FACTORS.indexOf(f),
      itemStyle: { color: CATEGORY_COLORS[f.name] },
      lineStyle: { color: CATEGORY_COLORS[f.name], width: 2 },
    })),
  };
}

/** Weekday pattern: the mean overall score per weekday, Monday first (no bar without ratings). */
export function weekdayBarOption(pattern: ReadonlyArray<WeekdayMean>, { compact = false } = {}): ChartOption {
  return {
    textStyle: CHART_TEXT_STYLE,
    grid: { left: 8, right: 12, top: 28, bottom: 16, containLabel: true },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, valueFormatter: outOfFive },
    xAxis: { type: 'category', data: pattern.map((d) => d.weekday), axisLabel: AXIS_LABEL },
    yAxis: SCORE_AXIS,
    series: [
      {
        type: 'bar',
        name: 'Average overall score',
        barMaxWidth: 40,
        data: pattern.map((d) => d.mean),
        itemStyle: { color: '#d97706', borderRadius: [6, 6, 0, 0] },
        label: { show: !compact, position: 'top', formatter: (p: { value?: unknown }) => (typeof p.value === 'number' ? oneDecimal(p.value) : ''), color: '#2f241d' },
      },
    ],
  };
}

/**
 * The coming week: the expected overall score as a line over a shaded band from low to high (a transparent
 * "low" area with the band's width stacked on it).
 */
export function forecastOption(forecast: ReadonlyArray<ForecastDay>, { compact = false } = {}): ChartOption {
  return {
    textStyle: CHART_TEXT_STYLE,
    grid: { left: 8, right: 16, top: 24, bottom: 16, containLabel: true },
    tooltip: {
      trigger: 'axis',
      formatter: (params: unknown) => {
        const i = (Array.isArray(params) ? (params[0] as { dataIndex: number }) : (params as { dataIndex: number })).dataIndex;
        const d = forecast[i];
        return d ? `${dayLabel(d.date)}<br/>Expected ${oneDecimal(d.expected)}/5<br/>Range ${oneDecimal(d.low)} – ${oneDecimal(d.high)}` : '';
      },
    },
    xAxis: { type: 'category', boundaryGap: false, data: forecast.map((d) => dayLabel(d.date)), axisLabel: { ...AXIS_LABEL, rotate: compact ? 35 : 0 } },
    yAxis: SCORE_AXIS,
    series: [
      { type: 'line', name: 'Low', stack: 'band', data: forecast.map((d) => d.low), lineStyle: { opacity: 0 }, symbol: 'none', areaStyle: { opacity: 0 } },
      {
        type: 'line',
        name: 'Range',
        stack: 'band',
        data: forecast.map((d) => Math.round((d.high - d.low) * 100) / 100),
        lineStyle: { opacity: 0 },
        symbol: 'none',
        areaStyle: { color: FORECAST_COLOR, opacity: 0.18 },
      },
      { type: 'line', name: 'Expected', data: forecast.map((d) => d.expected), itemStyle: { color: FORECAST_COLOR }, lineStyle: { color: FORECAST_COLOR, width: 2, type: 'dashed' } },
    ],
  };
}
