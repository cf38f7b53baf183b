import type { SubscriptionStatusView } from '@joy/domain';
import { cancellationExplanation, formatCardNumber, formatCvc, formatExpiry, formatPlanDate, planSummary, providerMessage, subscribeOutcome } from './logic';

const status = (extra: Partial<SubscriptionStatusView>): SubscriptionStatusView => ({
  isPremium: false, status: 'free', currentPeriodEnd: null, cancelAtPeriodEnd: false, ...extra,
});

describe('the Subscribe page’s rules', () => {
  it('pays with a client secret, and is "already subscribed" without one', () => {
    expect(subscribeOutcome({ clientSecret: 'sandbox_x' })).toEqual({ kind: 'pay', clientSecret: 'sandbox_x' });
    expect(subscribeOutcome({})).toEqual({ kind: 'already-subscribed' });
    expect(subscribeOutcome({ clientSecret: '' })).toEqual({ kind: 'already-subscribed' });
    expect(subscribeOutcome(undefined)).toEqual({ kind: 'already-subscribed' });
  });

  it('takes the provider’s message out of an API error', () => {
    expect(providerMessage(new Error('400: {"statusCode":400,"message":"Your card was declined."}'))).toBe('Your card was declined.');
    expect(providerMessage(new Error('502: Bad Gateway'))).toBe('Bad Gateway');
    expect(providerMessage(new Error('Failed to fetch'))).toBe('Failed to fetch');
    expect(providerMessage('nonsense')).toBe('Your payment could not be processed. Please try again.');
  });

  it('formats card details as they are typed', () => {
    expect(formatCardNumber('4242424242424242')).toBe('4242 4242 4242 4242');
    expect(formatCardNumber('4242-4242 42')).toBe('4242 4242 42');
    expect(formatCardNumber('4242 4242 4242 4242 4242')).toBe('4242 4242 4242 4242 424');
    expect(formatExpiry('1')).toBe('1');
    expect(formatExpiry('12')).toBe('12');
    expect(formatExpiry('1240')).toBe('12 / 40');
    expect(formatExpiry('12 / 405')).toBe('12 / 40');
    expect(formatCvc('12a34 5')).toBe('1234');
  });
});

describe('the Account page’s rules', () => {
  const end = '2026-12-20T08:00:00.000Z';

  it('formats dates in the reader’s locale', () => {
    expect(formatPlanDate(end, 'en-US')).toBe('Dec 20, 2026');
    expect(formatPlanDate(null)).toBe('');
    expect(formatPlanDate('not a date')).toBe('');
  });

  it('offers the Upgrade on the free plan', () => {
    expect(planSummary(status({}), 'en-US')).toMatchObject({ name: 'Free', dateLine: null, canUpgrade: true, canCancel: false });
    expect(planSummary(undefined, 'en-US')).toMatchObject({ name: 'Free', canUpgrade: true });
  });

  it('shows the renewal date and Cancel while active', () => {
    expect(planSummary(status({ isPremium: true, status: 'active', currentPeriodEnd: end }), 'en-US')).toMatchObject({
      name: 'Joy Premium', dateLine: 'Renews on Dec 20, 2026', canCancel: true, canResume: false, canUpgrade: false,
    });
  });

  it('shows the end date while canceling, without Cancel or Upgrade', () => {
    expect(planSummary(status({ isPremium: true, status: 'canceling', currentPeriodEnd: end, cancelAtPeriodEnd: true }), 'en-US')).toMatchObject({
      name: 'Joy Premium', dateLine: 'Ends on Dec 20, 2026', canCancel: false, canResume: true, canUpgrade: false,
    });
  });

  it('says a lapsed plan is paused and how to go on, without Upgrade (the same subscription comes back), Cancel or Resume', () => {
    const summary = planSummary(status({ status: 'lapsed', currentPeriodEnd: '2027-01-10T08:00:00.000Z' }), 'en-US');
    expect(summary).toMatchObject({ name: 'Joy Premium', dateLine: 'Paused since Jan 10, 2027', needsPayment: true, canUpgrade: false, canCancel: false, canResume: false });
    expect(summary.detail).toContain('Your last payment did not go through, so Joy Premium is paused. Update your card in the billing portal to continue');
  });

  it("says the operator's grant is given, until when, with no Cancel or Resume, and how to keep Premium after it", () => {
    const summary = planSummary(status({ isPremium: true, status: 'canceling', currentPeriodEnd: end, cancelAtPeriodEnd: true, granted: true }), 'en-US');
    expect(summary).toMatchObject({
      name: 'Joy Premium', dateLine: 'Given until Dec 20, 2026', granted: true, canCancel: false, canResume: false, canUpgrade: true,
      upgradeLabel: 'Keep Joy Premium after Dec 20, 2026',
    });
    expect(summary.detail).toBe('Joy Premium, given by the person who runs this install, until Dec 20, 2026. Nothing is charged for it, and it ends by itself.');
    expect(summary.detail).not.toMatch(/cancel|resume/i);
    expect(summary.upgradeNote).toBe('To keep Joy Premium after that, subscribe before then: you pay $4.99 per month from Dec 20, 2026 on, nothing for the days given.');
    // A grant that is over is the free plan, as any other end.
    expect(planSummary(status({ status: 'ended', currentPeriodEnd: end, granted: false }), 'en-US')).toMatchObject({ name: 'Free', granted: false });
  });

  it('is back on the free plan once ended', () => {
    expect(planSummary(status({ status: 'ended', currentPeriodEnd: end }), 'en-US')).toMatchObject({
      name: 'Free', dateLine: 'Joy Premium ended on Dec 20, 2026', canUpgrade: true, canCancel: false,
    });
  });

  it('explains that a cancellation takes effect at the end of the period', () => {
    const text = cancellationExplanation(status({ isPremium: true, status: 'active', currentPeriodEnd: end }), 'en-US');
    expect(text).toContain('until the end of your current billing period, on Dec 20, 2026');
    expect(text).toContain('not be charged again');
  });
});
