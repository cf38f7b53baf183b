/** ECharts options of the two dashboard line charts (types only from the chart module: no runtime import). */
import { FACTORS } from '@joy/domain';
import type { ChartOption } from '../charts/echarts';
import { CATEGORY_COLORS } from '../insights/insights';
import { PRIMARY } from '../theme';
import { chartNeedsYear, pointLabel, type TrendPoint } from './summary';

const TEXT = { fontFamily: "'Inter', system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif", color: '#4a3b31' };
const outOfFive = (value: unknown) => (typeof value === 'number' ? `${value.toFixed(1)}/5` : String(value));

function axes(points: TrendPoint[], timeZone?: string) {
  const withYear = chartNeedsYear(points, timeZone);
  return {
    xAxis: {
      type: 'category' as const,
      boundaryGap: false,
      data: points.map((p) => pointLabel(p, timeZone, withYear)),
      axisLabel: { hideOverlap: true, color: '#5c4a3e', fontSize: 11, lineHeight: 14 },
      axisLine: { lineStyle: { color: '#d8c6b8' } },
    },
    yAxis: {
      type: 'value' as const,
      min: 1,
      max: 5,
      interval: 1,
      axisLabel: { color: '#5c4a3e' },
      splitLine: { lineStyle: { color: '#f1e4d9' } },
    },
  };
}

/** 'Joy Trend (Last 14 Days)': overall score of the latest 14 ratings, y axis 1 to 5. */
export function joyTrendOption(points: TrendPoint[], timeZone?: string): ChartOption {
  return {
    textStyle: TEXT,
    grid: { left: 8, right: 20, top: 16, bottom: 8 },
    tooltip: { trigger: 'axis', valueFormatter: outOfFive },
    ...axes(points, timeZone),
    series: [
      {
        type: 'line',
        name: 'Overall joy',
        data: points.map((p) => p.overallScore),
        smooth: 0.3,
        symbol: 'circle',
        symbolSize: 8,
        lineStyle: { width: 3, color: PRIMARY },
        itemStyle: { color: PRIMARY },
        areaStyle: { color: 'rgba(200, 80, 28, 0.12)' },
      },
    ],
  };
}

/** Height of one factor's row in the PERMA breakdown (the chart is five of them, and the shared date axis). */
export const FACTOR_ROW_HEIGHT = 64;
const FACTOR_AXIS_HEIGHT = 36;
export const FACTORS_CHART_HEIGHT = FACTORS.length * FACTOR_ROW_HEIGHT + FACTOR_AXIS_HEIGHT;

/**
 * 'PERMA Factors Breakdown' as small multiples: one row per factor in its colour, on the same dates and the
 * same 1–5 scale, so each line reads on its own instead of five crossing ones. Dates only under the last row.
 */
export function factorsOption(points: TrendPoint[], timeZone?: string): ChartOption {
  const { xAxis, yAxis } = axes(points, timeZone);
  return {
    textStyle: TEXT,
    tooltip: { trigger: 'axis', valueFormatter: (v: unknown) => (typeof v === 'number' ? `${v}/5` : String(v)) },
    // Fixed margins (no containLabel): every row gets the same plot height; the dates go below the last one.
    grid: FACTORS.map((_, i) => ({ left: 28, right: 20, top: i * FACTOR_ROW_HEIGHT + 20, height: FACTOR_ROW_HEIGHT - 28 })),
    xAxis: FACTORS.map((_, i) => ({
      ...xAxis,
      gridIndex: i,
      axisLabel: { ...xAxis.axisLabel, show: i === FACTORS.length - 1 },
      axisTick: { show: i === FACTORS.length - 1 },
    })),
    yAxis: FACTORS.map((f, i) => ({
      ...yAxis,
      gridIndex: i,
      interval: 2,
      name: f.label,
      nameLocation: 'end' as const,
      nameGap: 6,
      nameTextStyle: { align: 'left' as const, color: CATEGORY_COLORS[f.name], fontWeight: 600 as const, fontSize: 12 },
    })),
    series: FACTORS.map((f, i) => ({
      type: 'line' as const,
      name: f.label,
      xAxisIndex: i,
      yAxisIndex: i,
      data: points.map((p) => p.scores[f.name]),
      symbol: 'circle',
      symbolSize: 5,
      lineStyle: { width: 2, color: CATEGORY_COLORS[f.name] },
      itemStyle: { color: CATEGORY_COLORS[f.name] },
      areaStyle: { color: CATEGORY_COLORS[f.name], opacity: 0.08 },
    })),
  };
}
