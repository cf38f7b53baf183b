/**
 * The one place ECharts is imported (modularly, so only what the charts use is bundled): line, pie, bar and
 * calendar heatmap charts, grid, tooltip, calendar and visual map, and the canvas renderer. Legends are HTML (ChartLegend): they wrap on phones. Imported only by the lazy chart pages.
 */
import { BarChart, HeatmapChart, LineChart, PieChart, type BarSeriesOption, type HeatmapSeriesOption, type LineSeriesOption, type PieSeriesOption } from 'echarts/charts';
import {
  CalendarComponent,
  GridComponent,
  TooltipComponent,
  VisualMapComponent,
  type CalendarComponentOption,
  type GridComponentOption,
  type TooltipComponentOption,
  type VisualMapComponentOption,
} from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';

// The calendar heatmap of a year (History) adds the heatmap series, the calendar and the visual map.
echarts.use([LineChart, PieChart, BarChart, HeatmapChart, GridComponent, TooltipComponent, CalendarComponent, VisualMapComponent, CanvasRenderer]);

export type ChartOption = echarts.ComposeOption<
  | LineSeriesOption
  | PieSeriesOption
  | BarSeriesOption
  | HeatmapSeriesOption
  | GridComponentOption
  | TooltipComponentOption
  | CalendarComponentOption
  | VisualMapComponentOption
>;

export type ChartInstance = echarts.ECharts;

export function initChart(element: HTMLElement): ChartInstance {
  return echarts.init(element, undefined, { renderer: 'canvas' });
}

/** Shared look: the app's font and muted ink. */
export const CHART_TEXT_STYLE = {
  fontFamily: "'Inter', system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif",
  color: '#4a3b31',
};
