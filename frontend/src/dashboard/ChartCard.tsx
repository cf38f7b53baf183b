import { Card } from 'antd';
import { useId, type ReactNode } from 'react';

/** A card holding one chart, titled with an h2 that also names the chart's figure. */
export function ChartCard({ title, subtitle, children }: { title: string; subtitle?: ReactNode; children: ReactNode }) {
  const id = useId();
  return (
    <Card className="chart-card">
      <figure className="chart-card__figure" aria-labelledby={id}>
        <h2 id={id} className="card-title">
          {title}
        </h2>
        {subtitle && <p className="chart-card__subtitle">{subtitle}</p>}
        {children}
      </figure>
    </Card>
  );
}
