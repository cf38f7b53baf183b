import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { premiumFromSubscriptions } from '../billing/billing.handlers';
import { READ_MODELS } from '../read-models/read-model-store.port';
import { InsightsController } from './insights.controller';
import { GetAdvancedInsightsHandler, INSIGHTS_PREMIUM_LOOKUP } from './insights.handlers';

/** Joy Premium's advanced analytics over the ratings read model. */
@Module({
  imports: [CqrsModule],
  controllers: [InsightsController],
  providers: [
    // The same lookup the groups and care use: billing's subscriptions read model, the paid period checked now.
    { provide: INSIGHTS_PREMIUM_LOOKUP, useFactory: premiumFromSubscriptions, inject: [READ_MODELS] },
    GetAdvancedInsightsHandler,
  ],
})
export class InsightsModule {}
