import { dayOfStoredRating } from '../ratings/rating-events';
import type { RatingSubmitted, RatingWithdrawn } from '../ratings/ratings.decider';
import type { ReminderSent } from '../reminders/reminders.decider';
import type { UserSettingsChanged } from '../settings/settings.decider';
import { dataOf, Projector, withFields } from './projector';

/**
 * user-settings: per user (keyed by user id) what the server needs of their settings without reading their
 * stream: the time zone (the day of a new rating), the reminder time, and for the reminder scheduler the latest
 * day they rated (in their zone: the rating's own `day` when it has one) and the day of the last reminder sent.
 * Only people with a document have ever set a setting or rated; `hasReminder` is what the scheduler finds by.
 */
export interface UserSettingsDoc {
  userId: string;
  timeZone: string | null;
  reminderTime: string | null;
  hasReminder: boolean;
  /** The latest `YYYY-MM-DD` day with a rating; a rating cannot be for a day after today, so "today is rated" is `latestDay === today`. */
  latestDay: string | null;
  /** The day of the last reminder sent (ReminderSent). */
  lastReminderDay: string | null;
}

export const userSettingsProjector: Projector<UserSettingsDoc> = {
  collection: 'user-settings',
  // RatingCorrected is not among them: a correction keeps the rating's day.
  eventTypes: ['UserSettingsChanged', 'RatingSubmitted', 'RatingWithdrawn', 'ReminderSent', 'UserDeleted'],
  indexes: ['hasReminder'],
  ids: (event) => [dataOf<{ userId: string }>(event).userId],
  evolve(doc, event) {
    if (event.type === 'UserDeleted') return null;
    const userId = dataOf<{ userId: string }>(event).userId;
    const current: UserSettingsDoc = doc ?? { userId, timeZone: null, reminderTime: null, hasReminder: false, latestDay: null, lastReminderDay: null };
    switch (event.type) {
      case 'UserSettingsChanged': {
        const d = dataOf<UserSettingsChanged['data']>(event);
        const timeZone = d.timeZone ?? current.timeZone;
        const reminderTime = d.reminderTime === undefined ? current.reminderTime : d.reminderTime;
        return { ...current, timeZone, reminderTime, hasReminder: reminderTime !== null };
      }
      case 'RatingSubmitted': {
        // A rating from before days were kept counts on its UTC day, as in every other read model.
        const day = dayOfStoredRating(dataOf<RatingSubmitted['data']>(event));
        if ((current.latestDay !== null && current.latestDay >= day)) return current;
        return withFields(current, { latestDay: day });
      }
      case 'RatingWithdrawn': {
        // The latest day is now that of the newest rating left (today's only rating withdrawn: today is unrated).
        const { latest } = dataOf<RatingWithdrawn['data']>(event);
        const day = latest ? dayOfStoredRating(latest) : null;
        return withFields(current, { latestDay: day });
      }
      case 'ReminderSent': {
        const { day } = dataOf<ReminderSent['data']>(event);
        return current.lastReminderDay !== null && current.lastReminderDay >= day ? current : { ...current, lastReminderDay: day };
      }
      default:
        return current;
    }
  },
};
