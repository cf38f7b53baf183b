import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { initChart, type ChartInstance, type ChartOption } from './echarts';

/** Below this container width (px) a chart is drawn in its compact form (e.g. rotated axis labels). */
export const COMPACT_CHART_WIDTH = 480;

export type ChartOptionSource = ChartOption | ((layout: { compact: boolean }) => ChartOption);

interface EChartProps {
  /** The option, or a function of the layout (compact on narrow containers). */
  option: ChartOptionSource;
  /** CSS height of the chart area (default 300px). */
  height?: number | string;
  /**
   * The text alternative: a visually hidden element (usually a table of the plotted numbers). The canvas
   * itself is hidden from assistive technology.
   */
  description: ReactNode;
  className?: string;
  /** Called with the clicked item's value (e.g. a calendar cell's `[day, score, count]`). */
  onItemClick?: (value: unknown) => void;
}

/**
 * A tiny ECharts wrapper: creates the chart on mount, applies the option whenever it (or the compact
 * layout) changes, resizes with its container (ResizeObserver) and disposes the chart on unmount.
 */
export function EChart({ option, height = 300, description, className, onItemClick }: EChartProps) {
  const container = useRef<HTMLDivElement>(null);
  const chart = useRef<ChartInstance | null>(null);
  const [compact, setCompact] = useState(false);
  // The latest handler, read at each click: the chart is made once, the handler may change with every render.
  const clickHandler = useRef(onItemClick);
  clickHandler.current = onItemClick;

  useEffect(() => {
    const element = container.current;
    if (!element) return undefined;
    const instance = initChart(element);
    chart.current = instance;
    // data-rendered: the option is drawn, animation included (what a test waits for before looking).
    instance.on('finished', () => element.setAttribute('data-rendered', 'true'));
    instance.on('click', (params) => clickHandler.current?.((params as { value?: unknown }).value));
    setCompact(element.clientWidth > 0 && element.clientWidth < COMPACT_CHART_WIDTH);
    let frame = 0;
    const observer = new ResizeObserver(() => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => {
        if (instance.isDisposed()) return;
        setCompact(element.clientWidth > 0 && element.clientWidth < COMPACT_CHART_WIDTH);
        instance.resize();
      });
    });
    observer.observe(element);
    return () => {
      cancelAnimationFrame(frame);
      observer.disconnect();
      instance.dispose();
      chart.current = null;
    };
  }, []);

  const resolved = useMemo(() => (typeof option === 'function' ? option({ compact }) : option), [option, compact]);

  useEffect(() => {
    container.current?.setAttribute('data-rendered', 'false');
    chart.current?.setOption(resolved, { notMerge: true });
  }, [resolved]);

  return (
    <div className={className ? `echart ${className}` : 'echart'}>
      <div ref={container} className="echart__canvas" style={{ height }} aria-hidden="true" data-testid="echart" />
      <div className="visually-hidden">{description}</div>
    </div>
  );
}
