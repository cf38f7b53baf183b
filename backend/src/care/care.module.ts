import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { PremiumModule } from '../billing/premium';
import { CareActionsController, CareSuggestionsController } from './care.controller';
import {
  GetCareReceivedHandler,
  GetCareSentHandler,
  GetCareSuggestionsHandler,
  SendCareActionHandler,
  ThankCareActionHandler,
} from './care.handlers';

/**
 * Care actions. The fulfilment is not here: it is a reactor of the projection pipeline (care-fulfilment.ts),
 * started by the worker (or the embedded process), never by an api-only replica.
 */
@Module({
  imports: [CqrsModule, PremiumModule],
  controllers: [CareActionsController, CareSuggestionsController],
  providers: [
    SendCareActionHandler,
    ThankCareActionHandler,
    GetCareSuggestionsHandler,
    GetCareReceivedHandler,
    GetCareSentHandler,
  ],
})
export class CareModule {}
