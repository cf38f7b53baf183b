import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { addDays, latestFirst, type RatingView } from '@joy/domain';
import { KEY_STORE, type KeyStore } from '../identity/key-store';
import { type RatingDaySpanDoc, ratingDaySpanProjector } from '../projections/rating-days.projector';
import { READ_MODELS, type ReadModelStore } from '../read-models/read-model-store.port';
import { ratedDaysOf } from './rating-summary.handlers';
import { ownRatingsByIds } from './ratings.handlers';

/** The most `GET /api/joy-ratings/recent` answers, and what it answers without `limit` (the Dashboard's 14-rating trend). */
export const RECENT_RATINGS_MAX = 50;
export const RECENT_RATINGS_DEFAULT = 14;

/** Days read first, back from the last rated day (nine weeks and a day: ratedDaysOf reads them week by week); all if too few. */
const FIRST_LOOK_DAYS = 62;

export class GetRecentRatingsQuery {
  constructor(
    readonly userId: string,
    readonly limit: number,
  ) {}
}

/**
 * GET /api/joy-ratings/recent?limit=: the caller's latest ratings by the day they rate, then the time made (the order
 * of `latestFirst`, as every "latest" in Joy), with their notes: the input of the Dashboard's trend, gauge and charts
 * and of the Insights' recent figures. The list pages by the time a rating was made, so a person who rated today and
 * then filled in 50 missed days had yesterday's rating on its second page, and the trend compared today with a month
 * ago. Read from the person's newest weeks (rating-weeks, back from rating-day-span's last day), each rating by id.
 */
@QueryHandler(GetRecentRatingsQuery)
export class GetRecentRatingsHandler implements IQueryHandler<GetRecentRatingsQuery, RatingView[]> {
  constructor(
    @Inject(READ_MODELS) private readonly readModels: ReadModelStore,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
  ) {}

  async execute({ userId, limit }: GetRecentRatingsQuery): Promise<RatingView[]> {
    const span = await this.readModels.get<RatingDaySpanDoc>(ratingDaySpanProjector.collection, userId);
    if (!span) return [];
    const from = addDays(span.last, -FIRST_LOOK_DAYS);
    let days = await ratedDaysOf(this.readModels, userId, from > span.first ? from : span.first, span.last);
    if (days.reduce((n, d) => n + d.ratings.length, 0) < limit && from > span.first) days = await ratedDaysOf(this.readModels, userId, null, span.last);
    const newest = days
      .flatMap((d) => d.ratings.map(([ratingId, submittedAt]) => ({ id: ratingId, createdAt: submittedAt, day: d.day })))
      .sort(latestFirst)
      .slice(0, limit);
    return ownRatingsByIds(this.readModels, this.keys, userId, newest.map(({ id }) => id));
  }
}
