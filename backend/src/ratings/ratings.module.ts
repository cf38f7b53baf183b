import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { RatingsController } from './ratings.controller';
import { GetLatestRatingHandler, GetRatingsHandler, SubmitRatingHandler } from './ratings.handlers';

@Module({
  imports: [CqrsModule],
  controllers: [RatingsController],
  providers: [SubmitRatingHandler, GetRatingsHandler, GetLatestRatingHandler],
})
export class RatingsModule {}
