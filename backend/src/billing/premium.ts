import { Module } from '@nestjs/common';
import { isPremiumAt } from '@joy/domain';
import { READ_MODELS, type ReadModelStore } from '../read-models/read-model-store.port';
import { type SubscriptionDoc, subscriptionsProjector } from '../projections/subscriptions.projector';

/**
 * The port through which groups, care and insights ask whether someone has Joy Premium. The rule itself is
 * `isPremiumAt` (@joy/domain), applied here to the subscriptions read model at the time of asking.
 */
export type PremiumLookup = (userId: string) => Promise<boolean>;
export const PREMIUM_LOOKUP = 'PremiumLookup';

export function premiumFromSubscriptions(readModels: ReadModelStore): PremiumLookup {
  return async (userId) => {
    const doc = await readModels.get<SubscriptionDoc>(subscriptionsProjector.collection, userId);
    return doc !== null && isPremiumAt(doc, new Date());
  };
}

/** Import this module to inject PREMIUM_LOOKUP. */
@Module({
  providers: [{ provide: PREMIUM_LOOKUP, useFactory: premiumFromSubscriptions, inject: [READ_MODELS] }],
  exports: [PREMIUM_LOOKUP],
})
export class PremiumModule {}
