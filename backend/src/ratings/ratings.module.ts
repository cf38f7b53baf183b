import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { RatingsController } from './ratings.controller';
import { TimeZoneModule } from '../settings/time-zone';
import { GetRatingSummaryHandler } from './rating-summary.handlers';
import { GetRecentRatingsHandler } from './recent-ratings.handlers';
import { CorrectRatingHandler, GetLatestRatingHandler, GetRatingCalendarHandler, GetRatingsOfDayHandler, GetRatingsPageHandler, SubmitRatingHandler, WithdrawRatingHandler } from './ratings.handlers';

@Module({
  imports: [CqrsModule, TimeZoneModule],
  controllers: [RatingsController],
  providers: [SubmitRatingHandler, CorrectRatingHandler, WithdrawRatingHandler, GetRatingsPageHandler, GetLatestRatingHandler, GetRatingCalendarHandler, GetRatingsOfDayHandler, GetRatingSummaryHandler, GetRecentRatingsHandler],
})
export class RatingsModule {}
