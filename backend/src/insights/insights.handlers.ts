import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type AdvancedInsights, DomainError } from '@joy/domain';
import { PREMIUM_LOOKUP, type PremiumLookup } from '../billing/premium';
import { type RatingWeekDoc, ratingWeeksProjector } from '../projections/rating-days.projector';
import { READ_MODELS, type ReadModelStore } from '../read-models/read-model-store.port';
import { TIME_ZONE_LOOKUP, type TimeZoneLookup } from '../settings/time-zone';
import { advancedInsightsOfDays, oldestTime } from './analytics';

export const ADVANCED_INSIGHTS_PREMIUM_ONLY =
  'Advanced analytics are a Joy Premium feature. Upgrade to see your full history, trends and forecast.';

export class GetAdvancedInsightsQuery {
  constructor(readonly userId: string) {}
}

/** GET /api/insights/advanced: premium only; computed over the user's whole history from its days' sums (rating-weeks), not from each rating. */
@QueryHandler(GetAdvancedInsightsQuery)
export class GetAdvancedInsightsHandler implements IQueryHandler<GetAdvancedInsightsQuery, AdvancedInsights> {
  constructor(
    @Inject(READ_MODELS) private readonly readModels: ReadModelStore,
    @Inject(PREMIUM_LOOKUP) private readonly isPremium: PremiumLookup,
    @Inject(TIME_ZONE_LOOKUP) private readonly timeZoneOf: TimeZoneLookup,
  ) {}

  async execute({ userId }: GetAdvancedInsightsQuery): Promise<AdvancedInsights> {
    if (!(await this.isPremium(userId))) throw new DomainError('plan.premium_required', ADVANCED_INSIGHTS_PREMIUM_ONLY);
    const [weeks, timeZone] = await Promise.all([this.readModels.find<RatingWeekDoc>(ratingWeeksProjector.collection, { userId }), this.timeZoneOf(userId)]);
    const days = weeks.flatMap((w) => w.days);
    return advancedInsightsOfDays(days, oldestTime(days.map((d) => d.firstAt)), new Date(), timeZone);
  }
}
