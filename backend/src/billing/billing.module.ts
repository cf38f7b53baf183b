import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { APP_CONFIG } from '../app.tokens';
import type { AppConfig } from '../config';
import { BillingController, StripeWebhookController } from './billing.controller';
import {
  CancelSubscriptionHandler,
  ConfirmSandboxPaymentHandler,
  CreateSubscriptionHandler,
  EndSubscriptionNowHandler,
  GetSubscriptionStatusHandler,
  SandboxExpiry,
  SyncProviderSubscriptionHandler,
} from './billing.handlers';
import { BILLING_PROVIDER, type BillingProvider } from './billing.provider';
import { SandboxBillingProvider } from './sandbox.provider';
import { StripeBillingProvider } from './stripe.provider';

/** The adapter of the billing port, chosen by configuration: Stripe when STRIPE_SECRET_KEY is set, else the sandbox. */
export function billingProviderFor(config: AppConfig): BillingProvider {
  return config.billing.provider === 'stripe' ? new StripeBillingProvider(config.billing) : new SandboxBillingProvider(config.sessionSecret);
}

@Module({
  imports: [CqrsModule],
  controllers: [BillingController, StripeWebhookController],
  providers: [
    { provide: BILLING_PROVIDER, useFactory: billingProviderFor, inject: [APP_CONFIG] },
    CreateSubscriptionHandler,
    ConfirmSandboxPaymentHandler,
    CancelSubscriptionHandler,
    EndSubscriptionNowHandler,
    SyncProviderSubscriptionHandler,
    GetSubscriptionStatusHandler,
    SandboxExpiry,
  ],
})
export class BillingModule {}
