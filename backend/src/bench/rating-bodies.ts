import { addDays, dayOf } from '@joy/domain';

/**
 * The body of the i-th of many ratings one person saves in the bench or a test (a writer loop, a burst): its day i
 * days back, cycling within the year that can be rated, as a long history is spread, so that no day comes near
 * RATINGS_PER_DAY_MAX however many are saved. (The person's zone is UTC unless a test sets another.)
 */
export const manyRatingsBody = (i: number) => ({
  relationships: 1 + (i % 5),
  health: 3,
  purpose: 4,
  growth: 2,
  joy: 5,
  day: addDays(dayOf(new Date(), 'UTC')!, -(i % 364)),
});
