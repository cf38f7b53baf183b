import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import { CurrentUser, type SessionUser, SignedInGuard } from '../identity/signed-in.guard';
import { READ_MODELS, type ReadModelStore } from '../read-models/read-model-store.port';

export interface SubscriptionStatusView {
  isPremium: boolean;
  status: string;
}

@Controller()
@UseGuards(SignedInGuard)
export class BillingController {
  constructor(@Inject(READ_MODELS) private readonly readModels: ReadModelStore) {}

  /** The user's plan; everyone is on the free plan until a subscription event says otherwise. */
  @Get('subscription-status')
  async status(@CurrentUser() user: SessionUser): Promise<SubscriptionStatusView> {
    const doc = await this.readModels.get<SubscriptionStatusView>('subscriptions', user.id);
    return doc ? { isPremium: doc.isPremium, status: doc.status } : { isPremium: false, status: 'free' };
  }
}
