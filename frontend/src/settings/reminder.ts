import { dayOf } from '@joy/domain';

/** A rating as the reminder needs it: its own `day` when the server gives one, else the day of its time in the zone. */
export interface RatedOn {
  createdAt: string;
  day?: string;
}

/** Whether one of the ratings is for today, in the person's zone (the reminder card's rule, as the scheduler's). */
export function isTodayRated(ratings: readonly RatedOn[], timeZone: string | undefined, now: Date = new Date()): boolean {
  const today = dayOf(now, timeZone);
  return ratings.some((r) => (r.day ?? dayOf(r.createdAt, timeZone)) === today);
}
