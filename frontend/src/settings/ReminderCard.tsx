import { BellOutlined } from '@ant-design/icons';
import { type MouseEvent, useEffect, useState } from 'react';
import { Alert } from 'antd';
import { useRatingSummary } from '../queries';
import { dayOf, timeOfDayIn } from '@joy/domain';
import { usePersonTimeZone, useSettings } from './api';

/**
 * Whether today (in the person's zone) has no rating yet: `known` once both the zone and today's ratings are in.
 * Home waits for it before showing the rating form, so the reminder never pops in above a form being filled in.
 */
export function useTodayUnrated(): { known: boolean; unrated: boolean; ratedToday: number } {
  const settings = useSettings();
  const zone = usePersonTimeZone();
  const today = dayOf(new Date(), zone)!;
  // Today's ratings in aggregate (one day's sums), only once the zone is known.
  const rated = useRatingSummary(today, today, { enabled: !settings.isLoading });
  // A failed answer counts as known (nothing to remind of): the form must not wait for it.
  const known = !settings.isLoading && (rated.data !== undefined || rated.isError);
  return { known, unrated: rated.data !== undefined && rated.data.count === 0, ratedToday: rated.data?.count ?? 0 };
}

/**
 * Whether the person's reminder time has come today in their zone ("HH:MM" strings compare as times): false with
 * reminders off. Looked at again every minute, so that a Home left open shows the reminder when its time comes.
 */
function useReminderDue(reminderTime: string | null | undefined, zone: string | undefined): boolean {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    if (!reminderTime) return;
    const tick = setInterval(() => setNow(new Date()), 60_000);
    return () => clearInterval(tick);
  }, [reminderTime]);
  return !!reminderTime && timeOfDayIn(now, zone ?? 'UTC') >= reminderTime;
}

/**
 * Home's in-app reminder (PRODUCT.md: "a daily reminder at the person's chosen time, in their zone, only when the day
 * is not rated … in the app, and as Web Push"): from the reminder time on, while today has no rating, with a link to
 * the form. None with reminders off (a review, 11-27: it showed at any hour, reminders on or off).
 */
export function ReminderCard() {
  const { unrated } = useTodayUnrated();
  const zone = usePersonTimeZone();
  const due = useReminderDue(useSettings().data?.reminderTime, zone);
  if (!unrated || !due) return null;
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
          {/* Underlined: its colour alone is too close to the text's to tell it is a link (axe link-in-text-block). */}
          <a href="#rate-today" onClick={focusRatingForm} style={{ textDecoration: 'underline' }}>
            Rate today
          </a>
        </>
      }
    />
  );
}

/** The link's target is a card, which a browser scrolls to but does not focus: the focus goes to its first field. */
function focusRatingForm(event: MouseEvent<HTMLAnchorElement>) {
  const card = document.getElementById('rate-today');
  const field = card?.querySelector<HTMLElement>('input:checked') ?? card?.querySelector<HTMLElement>('input, button, textarea');
  if (!field) return;
  event.preventDefault();
  field.focus();
}
