import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { BillingController, StripeWebhookController } from './billing.controller';
import {
  CancelSubscriptionHandler,
  OpenCustomerPortalHandler,
  ResumeSubscriptionHandler,
  ConfirmSandboxPaymentHandler,
  CreateSubscriptionHandler,
  EndSubscriptionNowHandler,
  GetSubscriptionStatusHandler,
  SandboxExpiry,
  SyncProviderSubscriptionHandler,
} from './billing.handlers';

/** Joy Premium. Its BillingProvider (BILLING_PROVIDER) comes from the composition root (app.module.ts). */
@Module({
  imports: [CqrsModule],
  controllers: [BillingController, StripeWebhookController],
  providers: [
    CreateSubscriptionHandler,
    ConfirmSandboxPaymentHandler,
    CancelSubscriptionHandler,
    ResumeSubscriptionHandler,
    OpenCustomerPortalHandler,
    EndSubscriptionNowHandler,
    SyncProviderSubscriptionHandler,
    GetSubscriptionStatusHandler,
    SandboxExpiry,
  ],
})
export class BillingModule {}
