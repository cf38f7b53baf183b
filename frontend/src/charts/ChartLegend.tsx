/** An HTML legend under or above a chart: wraps on narrow screens (a canvas legend cannot). */
export function ChartLegend({ items }: { items: Array<{ label: string; color: string; value?: string }> }) {
  return (
    <ul className="chart-legend" aria-hidden="true">
      {items.map((item) => (
        <li key={item.label}>
          <span className="chart-legend__swatch" style={{ background: item.color }} />
          {item.label}
          {item.value && <strong className="chart-legend__value">{item.value}</strong>}
        </li>
      ))}
    </ul>
  );
}
