import { DEFAULT_TIME_ZONE, dayOf, minutesOfTime, timeOfDayIn } from '@joy/domain';
import { Decider, DomainEvent } from '../event-store/decider';

/*
 * The daily reminder (PRODUCT.md "Reminders and care consent"): at the person's reminder time in their zone,
 * only when that day is not rated, at most once a day. Sent reminders are events on `reminders-<userId>`,
 * appended BEFORE the push goes out with the stream's expected version, so a restart, a second worker or a
 * second tick never sends the same day twice (a crash between the two loses that day's reminder: at most once).
 */

export type ReminderSent = DomainEvent<'ReminderSent', { userId: string; day: string; sentAt: string; devices: number }>;

export const remindersStream = (userId: string) => `reminders-${userId}`;

/** How long after the reminder time it may still go out (a worker that was restarting, a skipped tick, a DST jump). */
export const REMINDER_WINDOW_MINUTES = 60;

export interface ReminderFacts {
  timeZone: string | null;
  reminderTime: string | null;
  /** The latest day the person rated, in their zone. */
  latestDay: string | null;
  /** The day of the last reminder sent. */
  lastReminderDay: string | null;
}

export type ReminderDecision =
  | { send: true; day: string }
  | { send: false; day: string; reason: 'off' | 'not_yet' | 'too_late' | 'rated' | 'already_sent' };

/** Whether the person's reminder is due at `now` (pure: the scheduler's one rule). */
export function reminderDecision(facts: ReminderFacts, now: Date): ReminderDecision {
  const zone = facts.timeZone ?? DEFAULT_TIME_ZONE;
  const day = dayOf(now, zone)!;
  if (facts.reminderTime === null) return { send: false, day, reason: 'off' };
  const late = minutesOfTime(timeOfDayIn(now, zone)) - minutesOfTime(facts.reminderTime);
  if (late < 0) return { send: false, day, reason: 'not_yet' };
  if (late >= REMINDER_WINDOW_MINUTES) return { send: false, day, reason: 'too_late' };
  if (facts.latestDay !== null && facts.latestDay >= day) return { send: false, day, reason: 'rated' };
  if (facts.lastReminderDay !== null && facts.lastReminderDay >= day) return { send: false, day, reason: 'already_sent' };
  return { send: true, day };
}

export interface RecordReminder {
  userId: string;
  day: string;
  at: Date;
  devices: number;
}

/** The reminders stream: the last day a reminder went out; a second one for that day is nothing to append. */
export const remindersDecider: Decider<{ lastDay: string | null }, RecordReminder, ReminderSent> = {
  initialState: { lastDay: null },
  evolve: (state, event) => (event.type === 'ReminderSent' && (state.lastDay === null || event.data.day > state.lastDay) ? { lastDay: event.data.day } : state),
  decide({ userId, day, at, devices }, state) {
    if (state.lastDay !== null && state.lastDay >= day) return [];
    return [{ type: 'ReminderSent', data: { userId, day, sentAt: at.toISOString(), devices } }];
  },
};
