import { careActionsProjector } from './care-actions.projector';
import { careSuggestionsProjector } from './care-suggestions.projector';
import { groupMemberStatsProjector, groupMemberWeeksProjector, groupWeeklyActivityProjector } from './group-stats.projector';
import { groupsProjector, membershipsProjector } from './groups.projector';
import type { Projection } from './projector';
import { ratingDaySpanProjector, ratingTotalsProjector, ratingWeeksProjector } from './rating-days.projector';
import { latestRatingsProjector, ratingIndexProjector, ratingsProjector, ratingTimelineProjector } from './ratings.projector';
import { subscriptionsProjector } from './subscriptions.projector';
import { userProfilesProjector } from './user-profiles.projector';
import { userSettingsProjector } from './user-settings.projector';
import { pushSubscriptionsProjector } from './push-subscriptions.projector';

/** Every projection of the app; each is checkpointed, queued and rebuilt on its own. */
export const PROJECTIONS: readonly Projection[] = [
  { name: 'users', projectors: [userProfilesProjector] },
  // latest-ratings last: on UserDeleted the other two read the latest stream version from it before it goes.
  // Version 2: ratings no longer indexed by userId (pages go by chunk; the calendar reads rating-weeks).
  // Version 3: the latest rating is the latest by its day, then its time (a missed day rated today is not).
  { name: 'ratings', version: 3, projectors: [ratingsProjector, ratingIndexProjector, ratingTimelineProjector, latestRatingsProjector] },
  // rating-totals before rating-weeks: it reads the day as the week held it before the event.
  // rating-day-span last: on UserDeleted rating-weeks reads the span of weeks to remove before it goes.
  // Version 2: rating-totals and rating-weeks. Version 3: the days are kept in their weeks (no rating-days documents).
  {
    name: 'rating-days',
    version: 3,
    projectors: [ratingTotalsProjector, ratingWeeksProjector, ratingDaySpanProjector],
    retired: ['rating-days'],
  },
  // Version 2: memberships keep the groups an owner removed the person from (GET /api/groups/removals).
  { name: 'groups', version: 2, projectors: [groupsProjector, membershipsProjector] },
  // group-member-stats last: the weekly projectors look up the member's groups (and weeks, on a deletion) as they
  // were before the event; group-weekly-activity first: its context is the member's week before the event.
  // Version 2: a week of a group keeps counts and sums; each shared rating is kept once, in its member's week; the
  // member's latest rating is the latest by its day, then its time. Version 3: a correction made while out of a group
  // no longer counts as that group's (a later withdrawal took the new score out of a sum that never held it).
  {
    name: 'group-stats',
    version: 3,
    projectors: [groupWeeklyActivityProjector, groupMemberWeeksProjector, groupMemberStatsProjector],
  },
  { name: 'subscriptions', projectors: [subscriptionsProjector] },
  // Version 2: the latest rating by its day, then its time.
  { name: 'care-suggestions', version: 2, projectors: [careSuggestionsProjector] },
  { name: 'care-actions', projectors: [careActionsProjector] },
  // Version 2: a rating from before days were kept counts on its UTC day (it took the zone set at the time).
  { name: 'user-settings', version: 2, projectors: [userSettingsProjector] },
  { name: 'push-subscriptions', projectors: [pushSubscriptionsProjector] },
];
