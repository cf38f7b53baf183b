/** An HTML legend under or above a chart: wraps on narrow screens (a canvas legend cannot); `shape` as the chart's markers. */
export function ChartLegend({ items }: { items: Array<{ label: string; color: string; value?: string; shape?: string }> }) {
  return (
    <ul className="chart-legend" aria-hidden="true">
      {items.map((item) => (
        <li key={item.label}>
          <span className={`chart-legend__swatch${item.shape ? ` chart-legend__swatch--${item.shape}` : ''}`} style={{ background: item.color, color: item.color }} />
          {item.label}
          {item.value && <strong className="chart-legend__value">{item.value}</strong>}
        </li>
      ))}
    </ul>
  );
}
