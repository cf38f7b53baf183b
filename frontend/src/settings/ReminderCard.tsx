import { BellOutlined } from '@ant-design/icons';
import { Alert } from 'antd';
import { useRatings } from '../queries';
import { browserTimeZone, useSettings } from './api';
import { isTodayRated } from './reminder';

/** Home's in-app reminder: shown while today (in the person's zone) has no rating, with a link to the form. */
export function ReminderCard() {
  const settings = useSettings();
  const ratings = useRatings();
  if (settings.isLoading || ratings.isLoading || !ratings.data) return null;
  const zone = settings.data?.timeZone ?? browserTimeZone() ?? undefined;
  if (isTodayRated(ratings.data, zone)) return null;
  return (
    <Alert
      type="info"
      showIcon
      icon={<BellOutlined aria-hidden="true" />}
      className="reminder-card"
      data-testid="reminder-card"
      title="You haven't rated today yet"
      description={
        <>
          A minute is enough: how were your relationships, health, purpose, growth and joy today?{' '}
          <a href="#rate-today">Rate today</a>
        </>
      }
    />
  );
}
