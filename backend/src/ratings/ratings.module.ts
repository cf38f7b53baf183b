import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { RatingsController } from './ratings.controller';
import { TimeZoneModule } from '../settings/time-zone';
import { CorrectRatingHandler, GetLatestRatingHandler, GetRatingCalendarHandler, GetRatingsHandler, GetRatingsPageHandler, SubmitRatingHandler, WithdrawRatingHandler } from './ratings.handlers';

@Module({
  imports: [CqrsModule, TimeZoneModule],
  controllers: [RatingsController],
  providers: [SubmitRatingHandler, CorrectRatingHandler, WithdrawRatingHandler, GetRatingsHandler, GetRatingsPageHandler, GetLatestRatingHandler, GetRatingCalendarHandler],
})
export class RatingsModule {}
