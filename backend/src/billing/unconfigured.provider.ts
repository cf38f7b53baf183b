import { DomainError } from '@joy/domain';
import { BILLING_MESSAGES } from './billing.decider';
import type { BillingClientConfig } from '@joy/domain';
import { type BillingProvider, type Checkout, StatelessBillingProvider } from './billing.provider';

/**
 * The billing port when nothing is configured: no STRIPE_SECRET_KEY and no BILLING_SANDBOX=1. No checkout opens
 * (the Subscribe page says payments are not set up on this install); Joy Premium can still be granted by the
 * operator (`npm run users -- grant-premium <email>`), and such a grant is cancelled by the app alone.
 */
export class UnconfiguredBillingProvider extends StatelessBillingProvider implements BillingProvider {
  readonly name = 'none' as const;

  clientConfig(): BillingClientConfig {
    return { provider: 'none' };
  }

  async checkout(): Promise<Checkout> {
    throw new DomainError('billing.not_set_up', BILLING_MESSAGES.notSetUp);
  }
}
