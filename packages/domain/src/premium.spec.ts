import { isPremiumAt, type SubscriptionFacts } from './premium';

const end = '2026-12-01T00:00:00.000Z';
const before = new Date('2026-11-30T23:59:59.999Z');
const atEnd = new Date(end);
const sub = (facts: Partial<SubscriptionFacts>): SubscriptionFacts => ({ status: 'active', provider: 'sandbox', currentPeriodEnd: end, ...facts });

describe('isPremiumAt: the one premium rule', () => {
  it('is premium while the paid period runs, and the period end belongs to the next period', () => {
    expect(isPremiumAt(sub({}), before)).toBe(true);
    expect(isPremiumAt(sub({}), atEnd)).toBe(false); // a sandbox subscription nobody renews ends at its period end
    expect(isPremiumAt(sub({ status: 'canceling' }), before)).toBe(true);
    expect(isPremiumAt(sub({ status: 'canceling' }), atEnd)).toBe(false);
  });

  it('keeps an active Stripe subscription premium past its period end until Stripe renews or ends it', () => {
    expect(isPremiumAt(sub({ provider: 'stripe' }), new Date('2026-12-03T00:00:00Z'))).toBe(true);
    expect(isPremiumAt(sub({ provider: 'stripe', status: 'canceling' }), atEnd)).toBe(false);
  });

  it('needs a known period end for a canceling subscription; an active one without it is premium', () => {
    expect(isPremiumAt(sub({ status: 'canceling', currentPeriodEnd: null }), before)).toBe(false);
    expect(isPremiumAt(sub({ currentPeriodEnd: null }), before)).toBe(true);
  });

  it('is not premium while lapsed (Stripe: unpaid or paused), within the paid period too and past it for ever', () => {
    for (const provider of ['stripe', 'sandbox'] as const) {
      expect(isPremiumAt(sub({ provider, status: 'lapsed' }), before)).toBe(false);
      expect(isPremiumAt(sub({ provider, status: 'lapsed' }), new Date('2027-12-01T00:00:00Z'))).toBe(false);
    }
    expect(isPremiumAt(sub({ provider: 'stripe', status: 'lapsed', currentPeriodEnd: null }), before)).toBe(false);
  });

  it('is never premium without a paid subscription', () => {
    for (const status of ['none', 'free', 'ended'] as const) expect(isPremiumAt(sub({ status }), before)).toBe(false);
  });
});
