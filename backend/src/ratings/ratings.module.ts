import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { RatingsController } from './ratings.controller';
import { CorrectRatingHandler, GetLatestRatingHandler, GetRatingsHandler, GetRatingsPageHandler, SubmitRatingHandler, WithdrawRatingHandler } from './ratings.handlers';

@Module({
  imports: [CqrsModule],
  controllers: [RatingsController],
  providers: [SubmitRatingHandler, CorrectRatingHandler, WithdrawRatingHandler, GetRatingsHandler, GetRatingsPageHandler, GetLatestRatingHandler],
})
export class RatingsModule {}
