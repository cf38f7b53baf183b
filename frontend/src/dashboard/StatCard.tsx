import { CalendarOutlined } from '@ant-design/icons';
import type { ReactNode } from 'react';

interface StatCardProps {
  label: string;
  value: ReactNode;
  /** A line under the value (e.g. "vs previous rating"). */
  note?: ReactNode;
  icon?: ReactNode;
  valueColor?: string;
  /** A word rather than a number (e.g. "Relationships"): set smaller so it never breaks mid-word. */
  textValue?: boolean;
  testId?: string;
}

/** One summary card of the Dashboard and Insights pages: label, big value, optional note. */
export function StatCard({ label, value, note, icon, valueColor, textValue, testId }: StatCardProps) {
  return (
    <div className="stat-card" data-testid={testId}>
      <div className="stat-card__head">
        {icon && (
          <span className="stat-card__icon" aria-hidden="true">
            {icon}
          </span>
        )}
        <span className="stat-card__label">{label}</span>
      </div>
      <div className={textValue ? 'stat-card__value stat-card__value--text' : 'stat-card__value'} style={valueColor ? { color: valueColor } : undefined}>
        {value}
      </div>
      {note && <div className="stat-card__note">{note}</div>}
    </div>
  );
}

/**
 * Days Tracked, as both the Dashboard and Insights show it: distinct days rated, and the number of ratings; of the
 * last `windowDays` days when the figures are (the free plan's Insights), so it does not read as the whole history.
 */
export function DaysTrackedCard({ days, count, windowDays = null }: { days: number; count: number; windowDays?: number | null }) {
  return (
    <StatCard
      testId="card-days"
      label="Days Tracked"
      icon={<CalendarOutlined />}
      value={days}
      note={`${count} ${count === 1 ? 'rating' : 'ratings'} ${windowDays === null ? 'in total' : `in the last ${windowDays} days`}`}
    />
  );
}
