import { Modal, Typography } from 'antd';
import { PageLoading } from '../components/PageLoading';
import { RatingHistory } from '../components/RatingHistory';
import { formatCalendarDay } from '../lib/dates';
import { useRatingsOfDay } from '../queries';

/**
 * One day of History's calendar, picked by a click on its cell or with "See a day": that day's ratings with
 * their notes (GET /api/joy-ratings/days/:day), each with Edit and Delete as in the list. Closed when `day` is null.
 */
export function DayRatings({ day, onClose }: { day: string | null; onClose: () => void }) {
  const ratings = useRatingsOfDay(day);
  const label = day ? formatCalendarDay(day) : '';
  return (
    <Modal open={day !== null} title={label} footer={null} onCancel={onClose} destroyOnHidden width={720} className="day-ratings">
      {ratings.isLoading ? (
        <PageLoading />
      ) : ratings.isError ? (
        <Typography.Text type="danger">The ratings of {label} could not be loaded. Please try again.</Typography.Text>
      ) : ratings.data && ratings.data.length > 0 ? (
        <RatingHistory ratings={ratings.data} title={`${ratings.data.length} rating${ratings.data.length === 1 ? '' : 's'} for this day`} />
      ) : (
        <Typography.Paragraph type="secondary">No ratings for {label}.</Typography.Paragraph>
      )}
    </Modal>
  );
}
