import { Module } from '@nestjs/common';
import { TimeZoneModule } from '../settings/time-zone';
import { CqrsModule } from '@nestjs/cqrs';
import { PremiumModule } from '../billing/premium';
import { InsightsController } from './insights.controller';
import { GetAdvancedInsightsHandler } from './insights.handlers';

/** Joy Premium's advanced analytics over the ratings read model. */
@Module({
  imports: [CqrsModule, PremiumModule, TimeZoneModule],
  controllers: [InsightsController],
  providers: [
    GetAdvancedInsightsHandler,
  ],
})
export class InsightsModule {}
