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
import { UnconfiguredBillingProvider } from './unconfigured.provider';

/** The adapter of the billing port, chosen by configuration: Stripe (STRIPE_SECRET_KEY), the sandbox (BILLING_SANDBOX=1), or none. */
export function billingProviderFor(config: AppConfig): BillingProvider {
  switch (config.billing.provider) {
    case 'stripe':
      return new StripeBillingProvider(config.billing);
    case 'sandbox':
      return new SandboxBillingProvider(config.sessionSecret);
    case 'none':
      return new UnconfiguredBillingProvider();
  }
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
