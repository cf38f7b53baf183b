import { DynamicModule, Module, Provider } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { APP_CONFIG, INFRASTRUCTURE, LOCAL_ACCOUNTS, LOOKUP_HASH, SESSION_STORE } from './app.tokens';
import { READ_YOUR_WRITES } from './projections/read-your-writes';
import { BillingModule } from './billing/billing.module';
import { RemindersModule } from './reminders/reminders.module';
import { PUSH_POLICY, VAPID_PUBLIC_KEY } from './reminders/push.service';
import { BILLING_PROVIDER, type BillingProvider } from './billing/billing.provider';
import { SandboxBillingProvider } from './billing/sandbox.provider';
import type { StripeBillingProvider } from './billing/stripe.provider';
import { UnconfiguredBillingProvider } from './billing/unconfigured.provider';
import { CareModule } from './care/care.module';
import type { AppConfig } from './config';
import { EVENT_STORE } from './event-store/event-store.port';
import { GroupsModule } from './groups/groups.module';
import { AccountModule } from './account/account.module';
import { IdentityModule } from './identity/identity.module';
import { InsightsModule } from './insights/insights.module';
import { KEY_STORE } from './identity/key-store';
import type { Infrastructure } from './infrastructure';
import { OpsModule } from './ops/ops.module';
import { JOB_QUEUE } from './queue/queue.port';
import { RatingsModule } from './ratings/ratings.module';
import { SettingsModule } from './settings/settings.module';
import { READ_MODELS } from './read-models/read-model-store.port';

/** The adapter of the billing port, chosen by configuration: Stripe (STRIPE_SECRET_KEY), the sandbox (BILLING_SANDBOX=1), or none. */
export function billingProviderFor(config: AppConfig): BillingProvider {
  switch (config.billing.provider) {
    case 'stripe': {
      // Loaded only when configured: Stripe's library takes a tenth of a second or more of every start.
      const { StripeBillingProvider: Provider } = require('./billing/stripe.provider') as { StripeBillingProvider: typeof StripeBillingProvider };
      return new Provider(config.billing);
    }
    case 'sandbox':
      return new SandboxBillingProvider(config.sessionSecret);
    case 'none':
      return new UnconfiguredBillingProvider();
  }
}

/** The composition root: the configured adapters are provided to every feature module. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig, infra: Infrastructure): DynamicModule {
    const ports: Provider[] = [
      { provide: APP_CONFIG, useValue: config },
      { provide: EVENT_STORE, useValue: infra.store },
      { provide: READ_MODELS, useValue: infra.readModels },
      { provide: JOB_QUEUE, useValue: infra.queue },
      { provide: READ_YOUR_WRITES, useValue: infra.pipeline },
      { provide: KEY_STORE, useValue: infra.keys },
      { provide: SESSION_STORE, useValue: infra.sessions },
      { provide: LOCAL_ACCOUNTS, useValue: infra.accounts },
      { provide: BILLING_PROVIDER, useValue: billingProviderFor(config) },
      { provide: LOOKUP_HASH, useValue: infra.lookup },
      { provide: INFRASTRUCTURE, useValue: infra },
      { provide: VAPID_PUBLIC_KEY, useValue: infra.vapid.publicKey },
      { provide: PUSH_POLICY, useValue: { allowInsecureEndpoints: config.push.allowInsecureEndpoints } },
    ];
    return {
      module: AppModule,
      global: true,
      imports: [CqrsModule.forRoot(), IdentityModule, RatingsModule, BillingModule, OpsModule, GroupsModule, CareModule, AccountModule, InsightsModule, SettingsModule, RemindersModule],
      providers: ports,
      exports: ports,
    };
  }
}
