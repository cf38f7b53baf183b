import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { dayNumber, noRatingTotals, ratingSummaryOf, type RatingSummaryView, summaryOfTotals } from '@joy/domain';
import { mondayOf, type RatedDay, type RatingTotalsDoc, ratingTotalsProjector, type RatingWeekDoc, ratingWeeksProjector, weekDocId, weekMondays } from '../projections/rating-days.projector';
import type { ReadModelStore } from '../read-models/read-model-store.port';
import { READ_MODELS } from '../read-models/read-model-store.port';

/** Up to this many weeks, a range is read week by week (one `get` each); a longer or open one with one `find`. */
const WEEK_BY_WEEK_UP_TO = 10;

/**
 * The person's rated days from `from` to `to` (inclusive, each open when null), oldest first, from their weeks
 * (rating-weeks): the input of a range's summary, the calendar and the analytics, instead of every rating. A short
 * range (a week, the free plan's 30 days, today) reads only its weeks.
 */
export async function ratedDaysOf(readModels: ReadModelStore, userId: string, from: string | null, to: string | null): Promise<RatedDay[]> {
  const collection = ratingWeeksProjector.collection;
  let weeks: RatingWeekDoc[];
  if (from !== null && to !== null && dayNumber(mondayOf(to)) - dayNumber(mondayOf(from)) < 7 * WEEK_BY_WEEK_UP_TO) {
    const ids = weekMondays(from, to).map((monday) => weekDocId(userId, monday));
    weeks = (await Promise.all(ids.map((id) => readModels.get<RatingWeekDoc>(collection, id)))).filter((w): w is NonNullable<typeof w> => w !== null);
  } else {
    weeks = await readModels.find<RatingWeekDoc>(collection, { userId });
  }
  return weeks
    .flatMap((w) => w.days)
    .filter((d) => (from === null || d.day >= from) && (to === null || d.day <= to))
    .sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
}

export class GetRatingSummaryQuery {
  constructor(
    readonly userId: string,
    /** `YYYY-MM-DD` or null (from the first day). */
    readonly from: string | null,
    /** `YYYY-MM-DD` or null (up to the last day). */
    readonly to: string | null,
  ) {}
}

/**
 * GET /api/joy-ratings/summary?from=&to=: the caller's ratings of those days in aggregate, from their weeks; the
 * whole history (no range) from rating-totals, one document however long it is.
 */
@QueryHandler(GetRatingSummaryQuery)
export class GetRatingSummaryHandler implements IQueryHandler<GetRatingSummaryQuery, RatingSummaryView> {
  constructor(@Inject(READ_MODELS) private readonly readModels: ReadModelStore) {}

  async execute({ userId, from, to }: GetRatingSummaryQuery): Promise<RatingSummaryView> {
    if (from === null && to === null) {
      const totals = await this.readModels.get<RatingTotalsDoc>(ratingTotalsProjector.collection, userId);
      return summaryOfTotals(totals ?? noRatingTotals(), { from, to });
    }
    return ratingSummaryOf(await ratedDaysOf(this.readModels, userId, from, to), { from, to });
  }
}
