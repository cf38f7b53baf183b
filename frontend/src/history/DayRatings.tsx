import { PlusOutlined } from '@ant-design/icons';
import { dayOf, earliestRateableDay } from '@joy/domain';
import { Button, Modal, Typography } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { PageLoading } from '../components/PageLoading';
import { RatingForm } from '../components/RatingForm';
import { RatingHistory } from '../components/RatingHistory';
import { formatCalendarDay } from '../lib/dates';
import { useRatingsOfDay } from '../queries';
import { usePersonTimeZone } from '../settings/api';

/**
 * One day of History's calendar, picked by a click on its cell or with "See a day": that day's ratings with
 * their notes (GET /api/joy-ratings/days/:day), each with Edit and Delete as in the list, and "Rate this day" for a
 * day that can still be rated (up to 365 days back, never ahead, in the person's zone). Closed when `day` is null.
 */
export function DayRatings({ day, onClose }: { day: string | null; onClose: () => void }) {
  const ratings = useRatingsOfDay(day);
  const today = dayOf(new Date(), usePersonTimeZone())!;
  const rateable = day !== null && day >= earliestRateableDay(today) && day <= today;
  // The day whose form is open (none when another day is opened).
  const [rating, setRating] = useState<string | null>(null);
  // The focus follows the form: onto its title when it opens, back onto "Rate this day" when it closes.
  const formTitle = useRef<HTMLHeadingElement>(null);
  const rateButton = useRef<HTMLButtonElement>(null);
  const closedForm = useRef(false);
  useEffect(() => {
    if (rating !== null) formTitle.current?.focus();
    else if (closedForm.current) rateButton.current?.focus();
    closedForm.current = false;
  }, [rating]);
  const closeForm = () => {
    closedForm.current = true;
    setRating(null);
  };
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
      {rateable && day === rating ? (
        <section aria-label={`Rate ${label}`} className="day-ratings__form">
          <Typography.Title level={3} ref={formTitle} tabIndex={-1}>
            Rate {label}
          </Typography.Title>
          <RatingForm forDay={day} showHints={false} onSaved={closeForm} onCancel={closeForm} />
        </section>
      ) : (
        rateable && (
          <Button ref={rateButton} icon={<PlusOutlined aria-hidden="true" />} onClick={() => setRating(day)}>
            Rate this day
          </Button>
        )
      )}
    </Modal>
  );
}
