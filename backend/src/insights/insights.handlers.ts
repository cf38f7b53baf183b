import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type AdvancedInsights, DomainError } from '@joy/domain';
import { PREMIUM_LOOKUP, type PremiumLookup } from '../billing/premium';
import type { RatingDoc } from '../projections/ratings.projector';
import { newestRatingFirst } from '../ratings/ratings.handlers';
import { READ_MODELS, type ReadModelStore } from '../read-models/read-model-store.port';
import { TIME_ZONE_LOOKUP, type TimeZoneLookup } from '../settings/time-zone';
import { advancedInsights } from './analytics';

export const ADVANCED_INSIGHTS_PREMIUM_ONLY =
  'Advanced analytics are a Joy Premium feature. Upgrade to see your full history, trends and forecast.';

export class GetAdvancedInsightsQuery {
  constructor(readonly userId: string) {}
}

/** GET /api/insights/advanced: premium only; computed from ALL the user's own ratings. */
@QueryHandler(GetAdvancedInsightsQuery)
export class GetAdvancedInsightsHandler implements IQueryHandler<GetAdvancedInsightsQuery, AdvancedInsights> {
  constructor(
    @Inject(READ_MODELS) private readonly readModels: ReadModelStore,
    @Inject(PREMIUM_LOOKUP) private readonly isPremium: PremiumLookup,
    @Inject(TIME_ZONE_LOOKUP) private readonly timeZoneOf: TimeZoneLookup,
  ) {}

  async execute({ userId }: GetAdvancedInsightsQuery): Promise<AdvancedInsights> {
    if (!(await this.isPremium(userId))) throw new DomainError('plan.premium_required', ADVANCED_INSIGHTS_PREMIUM_ONLY);
    const docs = await this.readModels.find<RatingDoc>('ratings', { userId }, { sort: { field: 'seq', direction: 'asc' } });
    // Oldest first by the time each was made (an imported rating comes later in the stream than it was made).
    return advancedInsights(docs.sort((a, b) => newestRatingFirst(b, a)), new Date(), await this.timeZoneOf(userId));
  }
}
