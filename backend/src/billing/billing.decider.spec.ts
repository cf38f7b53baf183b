import { expectRefusal } from '../testing/refusals';
import { isPremiumAt } from '@joy/domain';
import { contractViolations } from '../testing/event-contract';
import { recorded } from '../testing/events';
import {
  addOneMonth,
  BILLING_MESSAGES,
  grantToFollow,
  ProviderSubscription,
  SUBSCRIPTION_EVENT_TYPES,
  SubscriptionCommand,
  subscriptionDecider,
  SubscriptionEvent,
} from './billing.decider';

const at = new Date('2026-11-20T08:00:00.000Z');
const periodEnd = '2026-12-20T08:00:00.000Z';
const nextPeriodEnd = '2027-01-20T08:00:00.000Z';

const given = (events: SubscriptionEvent[]) => events.reduce(subscriptionDecider.evolve, subscriptionDecider.initialState);
const when = (events: SubscriptionEvent[], command: SubscriptionCommand) => subscriptionDecider.decide(command, given(events));

const started = (subscriptionId = 'sub_1', attempt = 1): SubscriptionEvent => ({
  type: 'SubscriptionCheckoutStarted',
  data: { userId: 'u1', provider: 'stripe', customerId: 'cus_1', subscriptionId, attempt, startedAt: at.toISOString() },
});
const activated = (subscriptionId = 'sub_1', end = periodEnd): SubscriptionEvent => ({
  type: 'SubscriptionActivated',
  data: { userId: 'u1', provider: 'stripe', customerId: 'cus_1', subscriptionId, currentPeriodEnd: end, activatedAt: at.toISOString() },
});
const scheduled = (subscriptionId = 'sub_1'): SubscriptionEvent => ({
  type: 'SubscriptionCancellationScheduled',
  data: { userId: 'u1', subscriptionId, cancelAt: periodEnd, scheduledAt: at.toISOString() },
});
const ended = (subscriptionId = 'sub_1'): SubscriptionEvent => ({
  type: 'SubscriptionEnded',
  data: { userId: 'u1', subscriptionId, endedAt: periodEnd, reason: 'canceled' },
});
const lapsed = (reason: 'unpaid' | 'paused' = 'unpaid', subscriptionId = 'sub_1'): SubscriptionEvent => ({
  type: 'SubscriptionLapsed',
  data: { userId: 'u1', subscriptionId, lapsedAt: at.toISOString(), reason },
});
const provider = (extra: Partial<ProviderSubscription> = {}): ProviderSubscription => ({
  provider: 'stripe',
  userId: 'u1',
  customerId: 'cus_1',
  subscriptionId: 'sub_1',
  status: 'active',
  currentPeriodEnd: periodEnd,
  cancelAtPeriodEnd: false,
  endedAt: null,
  ...extra,
});
const sync = (extra: Partial<ProviderSubscription> = {}, when = at): SubscriptionCommand => ({ type: 'SyncSubscription', subscription: provider(extra), at: when });
const startCheckout = (subscriptionId = 'sub_1'): SubscriptionCommand => ({
  type: 'StartCheckout', userId: 'u1', provider: 'stripe', customerId: 'cus_1', subscriptionId, at,
});
const types = (events: SubscriptionEvent[]) => events.map((e) => e.type);

describe('subscription decider', () => {
  describe("the operator's grant (npm run users -- grant-premium)", () => {
    const until = new Date('2027-11-20T08:00:00.000Z');
    const grant: SubscriptionCommand = { type: 'GrantPremium', userId: 'u1', until, at };

    it('activates Joy Premium by provider "operator" until the given date, its end scheduled at once', () => {
      const events = when([], grant);
      expect(events.map((e) => e.type)).toEqual(['SubscriptionActivated', 'SubscriptionCancellationScheduled']);
      expect(events[0].data).toMatchObject({ provider: 'operator', currentPeriodEnd: until.toISOString() });
      const state = given(events);
      expect(state.status).toBe('canceling');
      expect(isPremiumAt(state, new Date('2027-11-20T07:59:59.000Z'))).toBe(true);
      expect(isPremiumAt(state, until)).toBe(false);
      expect(events.flatMap((e, i) => contractViolations(recorded(e.type, e.data, i + 1)))).toEqual([]);
    });

    it('refuses a grant to someone who has Joy Premium, and a grant that ends in the past', () => {
      expectRefusal(() => when([started(), activated()], grant), { kind: 'conflict', code: 'billing.already_premium', message: BILLING_MESSAGES.alreadyPremium });
      expectRefusal(() => when([], { ...grant, until: new Date(at.getTime() - 1) }), { kind: 'invalid', code: 'billing.grant_invalid' });
    });

    it('lets the person subscribe once the grant is over', () => {
      const after = new Date(until.getTime() + 1000);
      expect(when(when([], grant), { type: 'StartCheckout', userId: 'u1', provider: 'stripe', customerId: 'c', subscriptionId: 's2', at: after })).toHaveLength(1);
    });

    it('lets the person subscribe while the grant runs, to follow on from its end; not when it runs two years more', () => {
      const grantEvents = when([], grant);
      expect(grantToFollow(given(grantEvents), at)).toEqual(until);
      expect(types(when(grantEvents, startCheckout('sub_2')))).toEqual(['SubscriptionCheckoutStarted']);
      const long = when([], { ...grant, until: new Date(at.getTime() + 731 * 86_400_000) });
      expect(grantToFollow(given(long), at)).toBeNull();
      expect(when(long, startCheckout('sub_2'))).toEqual([]);
      // A paid subscription never follows on from anything: it renews itself.
      expect(grantToFollow(given([started(), activated(), scheduled()]), at)).toBeNull();
    });

    it('gives way to the subscription paid during it: Premium goes on, now renewing', () => {
      const paid = when(when([], grant), sync({ subscriptionId: 'sub_2', currentPeriodEnd: until.toISOString() }));
      expect(types(paid)).toEqual(['SubscriptionActivated']);
      const state = given([...when([], grant), ...paid]);
      expect(state).toMatchObject({ status: 'active', provider: 'stripe', subscriptionId: 'sub_2', currentPeriodEnd: until.toISOString() });
      expect(grantToFollow(state, at)).toBeNull();
    });

    it("keeps the person's Stripe customer through a grant (Stripe is never handed the grant's 'operator')", () => {
      const before = [started(), activated(), ended()];
      const state = given([...before, ...when(before, { ...grant, at: new Date(Date.parse(periodEnd) + 1000) })]);
      expect(state.customerId).toBe('operator');
      expect(state.customerIds).toEqual({ stripe: 'cus_1' });
    });
  });

  describe('checkout', () => {
    it('starts the first checkout as attempt 1', () => {
      expect(when([], startCheckout())).toEqual([started('sub_1', 1)]);
    });

    it('records the same open checkout once (a reload reuses it)', () => {
      expect(when([started()], startCheckout('sub_1'))).toEqual([]);
    });

    it('counts a new attempt after an expired one', () => {
      expect(when([started('sub_1', 1)], startCheckout('sub_2'))).toEqual([started('sub_2', 2)]);
    });

    it('starts nothing for a premium user', () => {
      expect(when([started(), activated()], startCheckout('sub_2'))).toEqual([]);
      expect(when([started(), activated(), scheduled()], startCheckout('sub_2'))).toEqual([]);
    });

    it('lets a user whose subscription ended subscribe again', () => {
      expect(types(when([started(), activated(), scheduled(), ended()], startCheckout('sub_2')))).toEqual(['SubscriptionCheckoutStarted']);
    });
  });

  describe('syncing the provider’s current state', () => {
    it('activates a paid subscription with its period end', () => {
      expect(when([started()], sync())).toEqual([activated()]);
    });

    it('changes nothing when the state is already recorded (the same webhook twice)', () => {
      expect(when([started(), activated()], sync())).toEqual([]);
    });

    it('renews when the period end moves forward, and ignores an older one', () => {
      expect(when([started(), activated()], sync({ currentPeriodEnd: nextPeriodEnd }))).toEqual([
        { type: 'SubscriptionRenewed', data: { userId: 'u1', subscriptionId: 'sub_1', currentPeriodEnd: nextPeriodEnd } },
      ]);
      expect(when([started(), activated('sub_1', nextPeriodEnd)], sync({ currentPeriodEnd: periodEnd }))).toEqual([]);
    });

    it('schedules the cancellation at the period end, once', () => {
      expect(when([started(), activated()], sync({ cancelAtPeriodEnd: true }))).toEqual([
        { type: 'SubscriptionCancellationScheduled', data: { userId: 'u1', subscriptionId: 'sub_1', cancelAt: periodEnd, scheduledAt: at.toISOString() } },
      ]);
      expect(when([started(), activated(), scheduled()], sync({ cancelAtPeriodEnd: true }))).toEqual([]);
    });

    it('activates and schedules in one go when the first signal already says both', () => {
      expect(types(when([started()], sync({ cancelAtPeriodEnd: true })))).toEqual(['SubscriptionActivated', 'SubscriptionCancellationScheduled']);
    });

    it('withdraws a scheduled cancellation the provider no longer has', () => {
      expect(types(when([started(), activated(), scheduled()], sync({ cancelAtPeriodEnd: false })))).toEqual(['SubscriptionCancellationWithdrawn']);
    });

    it('ends a paid subscription the provider ended, with the reason', () => {
      expect(when([started(), activated(), scheduled()], sync({ status: 'ended', endedAt: periodEnd, cancelAtPeriodEnd: true }))).toEqual([ended()]);
      expect(when([started(), activated()], sync({ status: 'ended', endedAt: periodEnd, endReason: 'payment_failed' }))[0].data).toMatchObject({
        reason: 'payment_failed',
      });
    });

    it('keeps an ended subscription ended: a stale "active" delivered after "deleted" changes nothing', () => {
      const afterDeleted = [started(), activated(), ended()];
      expect(when(afterDeleted, sync())).toEqual([]);
      expect(when(afterDeleted, sync({ currentPeriodEnd: nextPeriodEnd, cancelAtPeriodEnd: true }))).toEqual([]);
    });

    it('ignores an open or expired checkout that was never paid', () => {
      expect(when([started()], sync({ status: 'open', currentPeriodEnd: null }))).toEqual([]);
      expect(when([started()], sync({ status: 'ended', endedAt: at.toISOString() }))).toEqual([]);
    });

    it('keeps past_due premium (Stripe retries) but renews nothing until the new period is paid', () => {
      const pastDue = sync({ paymentDue: true, currentPeriodEnd: nextPeriodEnd });
      expect(when([started(), activated()], pastDue)).toEqual([]);
      expect(isPremiumAt(given([started(), activated()]), new Date(nextPeriodEnd))).toBe(true); // a Stripe subscription waits for Stripe's word
      expect(when([started(), activated()], sync({ currentPeriodEnd: nextPeriodEnd }))).toEqual([
        { type: 'SubscriptionRenewed', data: { userId: 'u1', subscriptionId: 'sub_1', currentPeriodEnd: nextPeriodEnd } },
      ]);
    });

    it('moves to a new subscription after the old one ended', () => {
      const events = when([started(), activated(), ended(), started('sub_2', 2)], sync({ subscriptionId: 'sub_2', currentPeriodEnd: nextPeriodEnd }));
      expect(events).toEqual([activated('sub_2', nextPeriodEnd)]);
    });
  });

  describe('a lapsed subscription (Stripe: unpaid or paused)', () => {
    const unpaid = (extra: Partial<ProviderSubscription> = {}) => sync({ status: 'lapsed', lapseReason: 'unpaid', currentPeriodEnd: nextPeriodEnd, ...extra });

    it('lapses: Joy Premium stops within the period too, but the subscription has not ended', () => {
      const events = when([started(), activated()], unpaid());
      expect(events).toEqual([lapsed('unpaid')]);
      const state = given([started(), activated(), ...events]);
      expect(state).toMatchObject({ status: 'lapsed', subscriptionId: 'sub_1', lapsedReason: 'unpaid', endedSubscriptionIds: [] });
      expect(isPremiumAt(state, at)).toBe(false);
      expect(when([started(), activated(), ...events], unpaid())).toEqual([]); // the same webhook twice
    });

    it('lapses a canceling subscription and a paused one alike, with the reason', () => {
      expect(when([started(), activated(), scheduled()], unpaid())).toEqual([lapsed('unpaid')]);
      expect(when([started(), activated()], unpaid({ lapseReason: 'paused' }))).toEqual([lapsed('paused')]);
      expect(when([started(), activated(), lapsed('unpaid')], unpaid({ lapseReason: 'paused' }))).toEqual([lapsed('paused')]);
    });

    it('comes back on the same subscription once Stripe reports it active (the invoice paid, or resumed)', () => {
      const events = when([started(), activated(), lapsed()], sync({ currentPeriodEnd: nextPeriodEnd }));
      expect(events).toEqual([
        { type: 'SubscriptionReactivated', data: { userId: 'u1', subscriptionId: 'sub_1', currentPeriodEnd: nextPeriodEnd, reactivatedAt: at.toISOString() } },
      ]);
      const state = given([started(), activated(), lapsed(), ...events]);
      expect(state).toMatchObject({ status: 'active', subscriptionId: 'sub_1', currentPeriodEnd: nextPeriodEnd, lapsedReason: null });
      expect(isPremiumAt(state, at)).toBe(true);
      // With a cancellation still scheduled at Stripe, it comes back canceling.
      expect(types(when([started(), activated(), scheduled(), lapsed()], sync({ cancelAtPeriodEnd: true })))).toEqual([
        'SubscriptionReactivated',
        'SubscriptionCancellationScheduled',
      ]);
    });

    it('ends when canceled while lapsed: Stripe’s reason, else payment_failed for an unpaid one', () => {
      const canceled = (endReason?: 'canceled' | 'payment_failed') => sync({ status: 'ended', endedAt: periodEnd, ...(endReason ? { endReason } : {}) });
      expect(when([started(), activated(), lapsed()], canceled()).map((e) => e.data)).toEqual([
        { userId: 'u1', subscriptionId: 'sub_1', endedAt: periodEnd, reason: 'payment_failed' },
      ]);
      expect(when([started(), activated(), lapsed()], canceled('canceled'))[0].data).toMatchObject({ reason: 'canceled' });
      expect(when([started(), activated(), lapsed('paused')], canceled())[0].data).toMatchObject({ reason: 'period_ended' });
      // Ended is final: paying it afterwards changes nothing.
      const afterEnd = [started(), activated(), lapsed(), ...when([started(), activated(), lapsed()], canceled())];
      expect(when(afterEnd, sync())).toEqual([]);
    });

    it('ignores a lapse of a subscription that is not the current one', () => {
      expect(when([started()], unpaid())).toEqual([]);
      expect(when([started(), activated(), ended()], unpaid())).toEqual([]);
      expect(when([started(), activated('sub_2')], unpaid())).toEqual([]);
    });

    it('opens no second checkout beside it, and account deletion ends it', () => {
      expect(when([started(), activated(), lapsed()], startCheckout('sub_2'))).toEqual([]);
      expect(when([started(), activated(), lapsed()], { type: 'EndNow', userId: 'u1', at })).toEqual([
        { type: 'SubscriptionEnded', data: { userId: 'u1', subscriptionId: 'sub_1', endedAt: at.toISOString(), reason: 'canceled' } },
      ]);
    });

    it('has nothing to cancel or resume in Joy: the billing portal is the way', () => {
      expectRefusal(() => when([started(), activated(), lapsed()], { type: 'ScheduleCancellation', userId: 'u1', at }), { kind: 'conflict', code: 'billing.nothing_to_cancel' });
      expectRefusal(() => when([started(), activated(), lapsed()], { type: 'WithdrawCancellation', userId: 'u1', at }), { kind: 'conflict', code: 'billing.nothing_to_resume' });
    });
  });

  describe('cancelling', () => {
    const cancel: SubscriptionCommand = { type: 'ScheduleCancellation', userId: 'u1', at };

    it('schedules the end at the end of the paid period', () => {
      expect(when([started(), activated()], cancel)).toEqual([scheduled()]);
    });

    it('does nothing more when it is already scheduled', () => {
      expect(when([started(), activated(), scheduled()], cancel)).toEqual([]);
    });

    it('refuses with 409 when there is nothing to cancel', () => {
      for (const history of [[], [started()], [started(), activated(), ended()]]) {
        expectRefusal(() => when(history, cancel), { kind: 'conflict', code: 'billing.nothing_to_cancel', message: BILLING_MESSAGES.nothingToCancel });
      }
    });
  });

  describe('resuming', () => {
    const resume = (now = at): SubscriptionCommand => ({ type: 'WithdrawCancellation', userId: 'u1', at: now });

    it('takes back a scheduled cancellation before the period ends, once', () => {
      expect(when([started(), activated(), scheduled()], resume())).toEqual([
        { type: 'SubscriptionCancellationWithdrawn', data: { userId: 'u1', subscriptionId: 'sub_1', withdrawnAt: at.toISOString() } },
      ]);
      expect(when([started(), activated()], resume())).toEqual([]); // renewing already
    });

    it('refuses with 409 when there is nothing to resume, or the paid period is over', () => {
      for (const [history, now] of [[[], at], [[started(), activated(), ended()], at], [[started(), activated(), scheduled()], new Date(periodEnd)]] as const) {
        expectRefusal(() => when([...history], resume(now)), { kind: 'conflict', code: 'billing.nothing_to_resume', message: BILLING_MESSAGES.nothingToResume });
      }
    });

    it('refuses to turn an operator’s grant into a renewing plan', () => {
      const grant = subscriptionDecider.decide({ type: 'GrantPremium', userId: 'u1', until: new Date(periodEnd), at }, subscriptionDecider.initialState);
      expectRefusal(() => when(grant, resume()), { kind: 'conflict', code: 'billing.nothing_to_resume', message: BILLING_MESSAGES.grantNotResumable });
    });
  });

  describe('the sandbox’s end of period', () => {
    const sandboxActivated: SubscriptionEvent = {
      type: 'SubscriptionActivated',
      data: { userId: 'u1', provider: 'sandbox', customerId: 'c', subscriptionId: 'sb_1', currentPeriodEnd: periodEnd, activatedAt: at.toISOString() },
    };
    const endIfDue = (now: string): SubscriptionCommand => ({ type: 'EndIfDue', userId: 'u1', at: new Date(now) });

    it('ends a sandbox subscription once its period is over, not before', () => {
      expect(when([sandboxActivated], endIfDue('2026-12-20T07:59:59.000Z'))).toEqual([]);
      expect(when([sandboxActivated], endIfDue(periodEnd))).toEqual([
        { type: 'SubscriptionEnded', data: { userId: 'u1', subscriptionId: 'sb_1', endedAt: periodEnd, reason: 'period_ended' } },
      ]);
      expect(when([sandboxActivated, scheduled('sb_1')], endIfDue(periodEnd))[0].data).toMatchObject({ reason: 'canceled' });
    });

    it('leaves Stripe subscriptions and ended ones alone', () => {
      expect(when([started(), activated()], endIfDue(nextPeriodEnd))).toEqual([]);
      expect(when([sandboxActivated, ended('sb_1')], endIfDue(nextPeriodEnd))).toEqual([]);
    });
  });

  it('is premium while active, and while canceling until the period end', () => {
    const state = given([started(), activated(), scheduled()]);
    expect(isPremiumAt(given([]), at)).toBe(false);
    expect(isPremiumAt(state, at)).toBe(true);
    expect(isPremiumAt(state, new Date(periodEnd))).toBe(false);
    expect(isPremiumAt(given([started(), activated(), ended()]), at)).toBe(false);
  });
});

describe('one month ahead', () => {
  it.each([
    ['2026-11-20T08:00:00.000Z', '2026-12-20T08:00:00.000Z'],
    ['2026-12-15T23:30:00.000Z', '2027-01-15T23:30:00.000Z'], // across the year
    ['2027-01-31T10:00:00.000Z', '2027-02-28T10:00:00.000Z'], // clamped to February's end
    ['2028-01-31T10:00:00.000Z', '2028-02-29T10:00:00.000Z'], // leap year
    ['2026-03-31T00:00:00.000Z', '2026-04-30T00:00:00.000Z'],
    ['2026-08-31T12:00:00.000Z', '2026-09-30T12:00:00.000Z'],
  ])('from %s is %s', (from, to) => {
    expect(addOneMonth(new Date(from)).toISOString()).toBe(to);
  });
});

describe('the published contract of the subscription events (docs/events)', () => {
  /** Stored JSON as the app writes it at schemaVersion 1: these must stay valid. */
  const fixtures: [string, object][] = [
    ['SubscriptionCheckoutStarted', { userId: 'Yk3m0y0W3x9tQyHh8m2cUw', provider: 'stripe', customerId: 'cus_Q1', subscriptionId: 'sub_Q1', attempt: 1, startedAt: '2026-11-20T08:30:00.000Z' }],
    ['SubscriptionActivated', { userId: 'Yk3m0y0W3x9tQyHh8m2cUw', provider: 'sandbox', customerId: 'sandbox_cus_1', subscriptionId: 'sandbox_sub_1_1', currentPeriodEnd: '2026-12-20T08:30:00.000Z', activatedAt: '2026-11-20T08:30:00.000Z' }],
    ['SubscriptionRenewed', { userId: 'Yk3m0y0W3x9tQyHh8m2cUw', subscriptionId: 'sub_Q1', currentPeriodEnd: '2027-01-20T08:30:00.000Z' }],
    ['SubscriptionCancellationScheduled', { userId: 'Yk3m0y0W3x9tQyHh8m2cUw', subscriptionId: 'sub_Q1', cancelAt: '2026-12-20T08:30:00.000Z', scheduledAt: '2026-11-21T08:30:00.000Z' }],
    ['SubscriptionCancellationWithdrawn', { userId: 'Yk3m0y0W3x9tQyHh8m2cUw', subscriptionId: 'sub_Q1', withdrawnAt: '2026-11-22T08:30:00.000Z' }],
    ['SubscriptionLapsed', { userId: 'Yk3m0y0W3x9tQyHh8m2cUw', subscriptionId: 'sub_Q1', lapsedAt: '2027-01-10T08:30:00.000Z', reason: 'unpaid' }],
    ['SubscriptionReactivated', { userId: 'Yk3m0y0W3x9tQyHh8m2cUw', subscriptionId: 'sub_Q1', currentPeriodEnd: '2027-02-20T08:30:00.000Z', reactivatedAt: '2027-01-12T08:30:00.000Z' }],
    ['SubscriptionEnded', { userId: 'Yk3m0y0W3x9tQyHh8m2cUw', subscriptionId: 'sub_Q1', endedAt: '2026-12-20T08:30:00.000Z', reason: 'canceled' }],
  ];

  it.each(fixtures)('accepts stored %s events of schemaVersion 1', (type, data) => {
    expect(contractViolations(recorded(type, data, 1))).toEqual([]);
  });

  it('covers every subscription event type', () => {
    expect(fixtures.map(([type]) => type)).toEqual([...SUBSCRIPTION_EVENT_TYPES]);
  });

  it('refuses a lapse for a reason it does not know', () => {
    const [, data] = fixtures.find(([type]) => type === 'SubscriptionLapsed')!;
    expect(contractViolations(recorded('SubscriptionLapsed', { ...data, reason: 'past_due' }, 2)).join('\n')).toMatch(/reason|enum/);
  });
});

describe('ending Joy Premium now (account deletion)', () => {
  const endNow: SubscriptionCommand = { type: 'EndNow', userId: 'u1', at };

  it('ends an active or canceling subscription at once, as canceled', () => {
    const expected = [{ type: 'SubscriptionEnded', data: { userId: 'u1', subscriptionId: 'sub_1', endedAt: at.toISOString(), reason: 'canceled' } }];
    expect(when([started(), activated()], endNow)).toEqual(expected);
    expect(when([started(), activated(), scheduled()], endNow)).toEqual(expected);
    expect(isPremiumAt(given([started(), activated(), ...when([started(), activated()], endNow)]), at)).toBe(false);
  });

  it('does nothing without a subscription, or when it has ended already', () => {
    expect(when([], endNow)).toEqual([]);
    expect(when([started(), activated(), ended()], endNow)).toEqual([]);
  });

  it('ends a checkout still open too, so that its payment, finishing later, cannot start Premium (a review, 11-27)', () => {
    const endedCheckout = [{ type: 'SubscriptionEnded', data: { userId: 'u1', subscriptionId: 'sub_1', endedAt: at.toISOString(), reason: 'canceled' } }];
    expect(when([started()], endNow)).toEqual(endedCheckout);
    const paidLater = provider({ status: 'active' });
    expect(when([started(), ...endedCheckout] as SubscriptionEvent[], { type: 'SyncSubscription', subscription: paidLater, at })).toEqual([]);
    // Paid, with a new checkout open beside it: both end.
    expect(when([started(), activated(), started('sub_2', 2)], endNow).map((e) => e.data.subscriptionId)).toEqual(['sub_1', 'sub_2']);
  });

  it("answers Stripe's immediate cancellation (SyncSubscription, ended) with the same event, once", () => {
    const canceled = provider({ status: 'ended', endedAt: at.toISOString(), endReason: 'canceled' });
    const events = when([started(), activated()], { type: 'SyncSubscription', subscription: canceled, at });
    expect(events).toEqual([{ type: 'SubscriptionEnded', data: { userId: 'u1', subscriptionId: 'sub_1', endedAt: at.toISOString(), reason: 'canceled' } }]);
    expect(when([started(), activated(), ...events], { type: 'SyncSubscription', subscription: canceled, at })).toEqual([]);
  });
});
