import { act, render, screen } from '@testing-library/react';
import { EChart } from './EChart';
import { ChartTable } from './ChartTable';

const chartListeners: Record<string, () => void> = {};
const mockChart = {
  setOption: jest.fn(),
  resize: jest.fn(),
  dispose: jest.fn(),
  isDisposed: jest.fn(() => false),
  on: jest.fn((event: string, listener: () => void) => (chartListeners[event] = listener)),
};
jest.mock('./echarts', () => ({ initChart: jest.fn(() => mockChart) }));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { initChart } = require('./echarts') as { initChart: jest.Mock };

let observers: Array<{ callback: () => void; disconnect: jest.Mock; observe: jest.Mock }> = [];
beforeEach(() => {
  jest.clearAllMocks();
  observers = [];
  (window as unknown as { ResizeObserver: unknown }).ResizeObserver = class {
    callback: () => void;
    observe = jest.fn();
    disconnect = jest.fn();
    constructor(callback: () => void) {
      this.callback = callback;
      observers.push(this);
    }
  };
  jest.spyOn(window, 'requestAnimationFrame').mockImplementation((cb) => {
    cb(0);
    return 1;
  });
});

describe('EChart', () => {
  const description = <ChartTable caption="Joy over time" columns={['When', 'Score']} rows={[['Aug 19', '4.0']]} />;

  it('creates the chart, applies the option, and hides the canvas behind a text alternative', () => {
    render(<EChart option={{ series: [] }} description={description} />);
    expect(initChart).toHaveBeenCalledTimes(1);
    expect(mockChart.setOption).toHaveBeenCalledWith({ series: [] }, { notMerge: true });
    expect(screen.getByTestId('echart')).toHaveAttribute('aria-hidden', 'true');
    expect(screen.getByRole('table', { name: 'Joy over time' })).toBeInTheDocument();
    expect(screen.getByRole('rowheader', { name: 'Aug 19' })).toBeInTheDocument();
  });

  it('says when the option is drawn (data-rendered), and not while a new one is', () => {
    const { rerender } = render(<EChart option={{ series: [] }} description={description} />);
    const canvas = screen.getByTestId('echart');
    expect(canvas).toHaveAttribute('data-rendered', 'false');
    act(() => chartListeners.finished());
    expect(canvas).toHaveAttribute('data-rendered', 'true');
    rerender(<EChart option={{ series: [{ type: 'line', data: [2] }] }} description={description} />);
    expect(canvas).toHaveAttribute('data-rendered', 'false');
  });

  it('applies a new option without re-creating the chart', () => {
    const { rerender } = render(<EChart option={{ series: [] }} description={description} />);
    rerender(<EChart option={{ series: [{ type: 'line', data: [1] }] }} description={description} />);
    expect(initChart).toHaveBeenCalledTimes(1);
    expect(mockChart.setOption).toHaveBeenLastCalledWith({ series: [{ type: 'line', data: [1] }] }, { notMerge: true });
  });

  it('resizes when its container resizes', () => {
    render(<EChart option={{}} description={description} />);
    expect(observers).toHaveLength(1);
    expect(observers[0].observe).toHaveBeenCalledWith(screen.getByTestId('echart'));
    act(() => observers[0].callback());
    expect(mockChart.resize).toHaveBeenCalledTimes(1);
  });

  it('builds the option for a compact layout when the container is narrow', () => {
    const width = jest.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(340);
    const build = jest.fn(({ compact }: { compact: boolean }) => ({ series: [{ type: 'bar' as const, name: compact ? 'compact' : 'wide' }] }));
    render(<EChart option={build} description={description} />);
    expect(mockChart.setOption).toHaveBeenLastCalledWith({ series: [{ type: 'bar', name: 'compact' }] }, { notMerge: true });
    width.mockReturnValue(900);
    act(() => observers[0].callback());
    expect(mockChart.setOption).toHaveBeenLastCalledWith({ series: [{ type: 'bar', name: 'wide' }] }, { notMerge: true });
    width.mockRestore();
  });

  it('disposes the chart and stops observing on unmount', () => {
    const { unmount } = render(<EChart option={{}} description={description} />);
    unmount();
    expect(mockChart.dispose).toHaveBeenCalledTimes(1);
    expect(observers[0].disconnect).toHaveBeenCalledTimes(1);
  });
});
