import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { addDays, dayNumber, noRatingTotals, ratingSummaryOf, type RatingSummaryView, summaryOfTotals } from '@joy/domain';
import { dayDocId, type RatingDayDoc, ratingDaysProjector, type RatingTotalsDoc, ratingTotalsProjector } from '../projections/rating-days.projector';
import type { ReadModelStore } from '../read-models/read-model-store.port';
import { READ_MODELS } from '../read-models/read-model-store.port';

/** Up to this many days, a range is read day by day (one `get` each); a longer or open one with one `find`. */
const DAY_BY_DAY_UP_TO = 62;

/**
 * The person's rating-days documents of the days from `from` to `to` (inclusive, each open when null), oldest day
 * first: the summary's input for a range, instead of every rating. A short range (a week, the free
 * plan's 30 days, today) reads only its days.
 */
async function ratingDaysOf(readModels: ReadModelStore, userId: string, from: string | null, to: string | null): Promise<RatingDayDoc[]> {
  const collection = ratingDaysProjector.collection;
  let docs: RatingDayDoc[];
  if (from !== null && to !== null && dayNumber(to) - dayNumber(from) < DAY_BY_DAY_UP_TO) {
    const ids: string[] = [];
    for (let day = from; day <= to; day = addDays(day, 1)) ids.push(dayDocId(userId, day));
    docs = (await Promise.all(ids.map((id) => readModels.get<RatingDayDoc>(collection, id)))).filter((d): d is NonNullable<typeof d> => d !== null);
  } else {
    docs = (await readModels.find<RatingDayDoc>(collection, { userId })).filter((d) => (from === null || d.day >= from) && (to === null || d.day <= to));
  }
  return docs.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
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
 * GET /api/joy-ratings/summary?from=&to=: the caller's ratings of those days in aggregate, from rating-days; the
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
    return ratingSummaryOf(await ratingDaysOf(this.readModels, userId, from, to), { from, to });
  }
}
