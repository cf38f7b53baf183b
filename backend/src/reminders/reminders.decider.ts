import { DAY_MS, DEFAULT_TIME_ZONE, dayOf, timeOfDayIn } from '@joy/domain';
import { Decider, DomainEvent } from '../event-store/decider';

/*
 * The daily reminder (PRODUCT.md "Reminders and care consent"): at the person's reminder time in their zone,
 * only when that day is not rated, at most once a day. Sent reminders are events on `reminders-<userId>`,
 * appended BEFORE the push goes out with the stream's expected version, so a restart, a second worker or a
 * second tick never starts the same day twice. A push the push service did not take (no answer, 429, 5xx) is tried
 * again by the scheduler that recorded it, until the window ends (reminder-scheduler.ts); a restart in between
 * drops that retry rather than risk a second reminder (at most once).
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

/** The day before a `YYYY-MM-DD` day (calendar arithmetic: the same in every zone). */
const dayBefore = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) - DAY_MS).toISOString().slice(0, 10);

/**
 * Whether the person's reminder is due at `now` (pure: the scheduler's one rule). It is due for REMINDER_WINDOW_MINUTES
 * of real time from the reminder time, also past midnight: at 00:30 a 23:59 reminder is still due, for the day before
 * (its day is the day it was for), unless that day has been rated or reminded. Windows are shorter than the shortest
 * day, so at most one day's is open at a time, and each day has one.
 */
export function reminderDecision(facts: ReminderFacts, now: Date): ReminderDecision {
  const zone = facts.timeZone ?? DEFAULT_TIME_ZONE;
  const today = dayOf(now, zone)!;
  if (facts.reminderTime === null) return { send: false, day: today, reason: 'off' };
  const yesterday = dayBefore(today);
  const lateYesterday = minutesLate(now, yesterday, facts.reminderTime, zone);
  const [day, late] = lateYesterday >= 0 && lateYesterday < REMINDER_WINDOW_MINUTES ? [yesterday, lateYesterday] : [today, minutesLate(now, today, facts.reminderTime, zone)];
  if (late < 0) return { send: false, day, reason: 'not_yet' };
  if (late >= REMINDER_WINDOW_MINUTES) return { send: false, day, reason: 'too_late' };
  if (facts.latestDay !== null && facts.latestDay >= day) return { send: false, day, reason: 'rated' };
  if (facts.lastReminderDay !== null && facts.lastReminderDay >= day) return { send: false, day, reason: 'already_sent' };
  return { send: true, day };
}

/** The instant the reminder for `day` stops being due (the scheduler retries a failed push until then). */
export function reminderWindowEnd(facts: Pick<ReminderFacts, 'timeZone' | 'reminderTime'>, day: string): Date | null {
  if (facts.reminderTime === null) return null;
  const moment = reminderMoment(Date.parse(`${day}T${facts.reminderTime}:00Z`), facts.timeZone ?? DEFAULT_TIME_ZONE);
  return new Date(moment + REMINDER_WINDOW_MINUTES * MINUTE_MS);
}

const MINUTE_MS = 60_000;
/** More than any clock change of one day (tz database: at most 2 h): beyond it, the clock's difference decides. */
const MAX_CLOCK_SHIFT_MINUTES = 180;

/** An instant's wall-clock time in the zone, written as if it were UTC (whole minutes). */
const wallOf = (time: number, zone: string) => Date.parse(`${dayOf(time, zone)}T${timeOfDayIn(new Date(time), zone)}:00Z`);

/**
 * Real minutes from the moment the reminder time came on `day` (negative: before it) to `now`. The moment is the
 * first instant the zone's clock shows that time or later: on the day the clocks go forward over it (02:00–03:00 in
 * Berlin, 00:00–01:00 in Santiago or Havana), the end of the jump; on the day they go back, its first showing. So a
 * summer time jump still sends the reminder, and the window is a real hour whatever the clocks do.
 */
function minutesLate(now: Date, day: string, time: string, zone: string): number {
  const wall = Date.parse(`${day}T${time}:00Z`);
  const clockLate = (wallOf(now.getTime(), zone) - wall) / MINUTE_MS;
  // Far from the reminder time, no clock change can matter (and most people, at most ticks, are far from it).
  if (clockLate <= -MAX_CLOCK_SHIFT_MINUTES || clockLate >= REMINDER_WINDOW_MINUTES + MAX_CLOCK_SHIFT_MINUTES) return clockLate;
  return (now.getTime() - reminderMoment(wall, zone)) / MINUTE_MS;
}

/** The first instant at which the zone's clock shows `wall` (a wall-clock time written as UTC) or later. */
function reminderMoment(wall: number, zone: string): number {
  // The zone's offsets the day before and the day after: the same, or the two sides of that day's change.
  const offsets = [...new Set([wall - DAY_MS, wall + DAY_MS].map((t) => wallOf(t, zone) - t))];
  const showings = offsets.map((offset) => wall - offset).filter((t) => wallOf(t, zone) === wall);
  if (showings.length > 0) return Math.min(...showings);
  // Skipped (the clocks went forward over it): the jump lies between the two candidates; find its first minute.
  let [before, after] = [Math.min(...offsets.map((o) => wall - o)), Math.max(...offsets.map((o) => wall - o))];
  while (after - before > MINUTE_MS) {
    const middle = before + Math.max(MINUTE_MS, Math.floor((after - before) / 2 / MINUTE_MS) * MINUTE_MS);
    if (wallOf(middle, zone) >= wall) after = middle;
    else before = middle;
  }
  return after;
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
