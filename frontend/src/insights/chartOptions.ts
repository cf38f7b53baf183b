/** ECharts options of the Insights donut and bar charts (types only from the chart module). */
import type { ChartOption } from '../charts/echarts';
import type { CategoryAverage } from './insights';

const TEXT = { fontFamily: "'Inter', system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif", color: '#4a3b31' };
const outOfFive = (value: unknown) => (typeof value === 'number' ? `${value.toFixed(1)}/5` : String(value));

/** 'Joy Categories Breakdown': a donut of the five category averages, each labelled "x/5" (legend in HTML). */
export function categoriesDonutOption(categories: CategoryAverage[], { compact = false } = {}): ChartOption {
  return {
    textStyle: TEXT,
    tooltip: { trigger: 'item', valueFormatter: outOfFive },
    series: [
      {
        type: 'pie',
        name: 'Average score',
        radius: compact ? ['36%', '58%'] : ['42%', '68%'],
        center: ['50%', '50%'],
        avoidLabelOverlap: true,
        itemStyle: { borderColor: '#fff', borderWidth: 3, borderRadius: 6 },
        label: { formatter: (p: { value?: unknown }) => outOfFive(p.value), color: '#2f241d', fontWeight: 600, overflow: 'none' },
        labelLine: { length: compact ? 6 : 12, length2: compact ? 6 : 12 },
        data: categories.map((c) => ({ name: c.label, value: c.average, itemStyle: { color: c.color } })),
      },
    ],
  };
}

/** 'Average Scores by Category': one bar per category, y axis 1 to 5, labelled "x/5". */
export function categoriesBarOption(categories: CategoryAverage[], { compact = false } = {}): ChartOption {
  return {
    textStyle: TEXT,
    grid: { left: 8, right: 12, top: 28, bottom: 16 },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, valueFormatter: outOfFive },
    xAxis: {
      type: 'category',
      data: categories.map((c) => c.label),
      axisLabel: { color: '#5c4a3e', interval: 0, fontSize: 11, rotate: compact ? 35 : 0 },
      axisLine: { lineStyle: { color: '#d8c6b8' } },
    },
    yAxis: { type: 'value', min: 1, max: 5, interval: 1, axisLabel: { color: '#5c4a3e' }, splitLine: { lineStyle: { color: '#f1e4d9' } } },
    series: [
      {
        type: 'bar',
        name: 'Average score',
        barMaxWidth: 48,
        barCategoryGap: compact ? '30%' : '40%',
        data: categories.map((c) => ({ value: c.average, itemStyle: { color: c.color, borderRadius: [6, 6, 0, 0] } })),
        label: { show: true, position: 'top', formatter: (p: { value?: unknown }) => outOfFive(p.value), color: '#2f241d', fontWeight: 600, fontSize: compact ? 10 : 12 },
      },
    ],
  };
}
