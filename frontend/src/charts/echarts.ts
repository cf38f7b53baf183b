/**
 * The one place ECharts is imported (modularly, so only what the charts use is bundled): line, pie and
 * bar charts, grid and tooltip, and the canvas renderer. Legends are HTML (ChartLegend): they wrap on phones. Imported only by the lazy chart pages.
 */
import { BarChart, LineChart, PieChart, type BarSeriesOption, type LineSeriesOption, type PieSeriesOption } from 'echarts/charts';
import { GridComponent, TooltipComponent, type GridComponentOption, type TooltipComponentOption } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';

echarts.use([LineChart, PieChart, BarChart, GridComponent, TooltipComponent, CanvasRenderer]);

export type ChartOption = echarts.ComposeOption<
  LineSeriesOption | PieSeriesOption | BarSeriesOption | GridComponentOption | TooltipComponentOption
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
