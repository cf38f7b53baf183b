/** ECharts options of the two dashboard line charts (types only from the chart module: no runtime import). */
import { FACTORS } from '@joy/domain';
import type { ChartOption } from '../charts/echarts';
import { CATEGORY_COLORS } from '../insights/insights';
import { PRIMARY } from '../theme';
import { axisLabel, type TrendPoint } from './summary';

const TEXT = { fontFamily: "'Inter', system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif", color: '#4a3b31' };
const outOfFive = (value: unknown) => (typeof value === 'number' ? `${value.toFixed(1)}/5` : String(value));

function axes(points: TrendPoint[], timeZone?: string) {
  return {
    xAxis: {
      type: 'category' as const,
      boundaryGap: false,
      data: points.map((p) => axisLabel(p.createdAt, timeZone)),
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

/** 'PERMA Factors Breakdown': the five factors over the same ratings (legend in HTML: ChartLegend). */
export function factorsOption(points: TrendPoint[], timeZone?: string): ChartOption {
  return {
    textStyle: TEXT,
    grid: { left: 8, right: 20, top: 16, bottom: 8 },
    tooltip: { trigger: 'axis', valueFormatter: (v: unknown) => (typeof v === 'number' ? `${v}/5` : String(v)) },
    ...axes(points, timeZone),
    series: FACTORS.map((f) => ({
      type: 'line' as const,
      name: f.label,
      data: points.map((p) => p.scores[f.name]),
      symbol: 'circle',
      symbolSize: 6,
      lineStyle: { width: 2, color: CATEGORY_COLORS[f.name] },
      itemStyle: { color: CATEGORY_COLORS[f.name] },
      emphasis: { focus: 'series' as const },
    })),
  };
}
