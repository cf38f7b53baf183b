import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { premiumFromSubscriptions } from '../billing/billing.handlers';
import { READ_MODELS } from '../read-models/read-model-store.port';
import { CareActionsController, CareSuggestionsController } from './care.controller';
import {
  CARE_PREMIUM_LOOKUP,
  GetCareReceivedHandler,
  GetCareSentHandler,
  GetCareSuggestionsHandler,
  SendCareActionHandler,
} from './care.handlers';

/**
 * Care actions. The fulfilment is not here: it is a reactor of the projection pipeline (care-fulfilment.ts),
 * started by the worker (or the embedded process), never by an api-only replica.
 */
@Module({
  imports: [CqrsModule],
  controllers: [CareActionsController, CareSuggestionsController],
  providers: [
    // The same lookup the groups use: billing's subscriptions read model, the paid period checked now.
    { provide: CARE_PREMIUM_LOOKUP, useFactory: premiumFromSubscriptions, inject: [READ_MODELS] },
    SendCareActionHandler,
    GetCareSuggestionsHandler,
    GetCareReceivedHandler,
    GetCareSentHandler,
  ],
})
export class CareModule {}
