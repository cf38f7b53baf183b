import { BellOutlined } from '@ant-design/icons';
import type { MouseEvent } from 'react';
import { Alert } from 'antd';
import { useRatingSummary } from '../queries';
import { dayOf } from '@joy/domain';
import { usePersonTimeZone, useSettings } from './api';

/**
 * Whether today (in the person's zone) has no rating yet: `known` once both the zone and today's ratings are in.
 * Home waits for it before showing the rating form, so the reminder never pops in above a form being filled in.
 */
export function useTodayUnrated(): { known: boolean; unrated: boolean } {
  const settings = useSettings();
  const zone = usePersonTimeZone();
  const today = dayOf(new Date(), zone)!;
  // Today's ratings in aggregate (one day's sums), only once the zone is known.
  const rated = useRatingSummary(today, today, { enabled: !settings.isLoading });
  // A failed answer counts as known (nothing to remind of): the form must not wait for it.
  const known = !settings.isLoading && (rated.data !== undefined || rated.isError);
  return { known, unrated: rated.data !== undefined && rated.data.count === 0 };
}

/** Home's in-app reminder: shown while today (in the person's zone) has no rating, with a link to the form. */
export function ReminderCard() {
  const { unrated } = useTodayUnrated();
  if (!unrated) return null;
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
