import { InMemoryReadModelStore } from '../read-models/in-memory-read-model-store';
import { recorded } from '../testing/events';
import { applyEvent } from './pipeline/applier';
import { PROJECTIONS } from './projections';
import { SubscriptionDoc, subscriptionStatusAt } from './subscriptions.projector';

const subscriptions = PROJECTIONS.find((p) => p.name === 'subscriptions')!;
const periodEnd = '2026-12-20T08:00:00.000Z';
const events = [
  recorded('SubscriptionCheckoutStarted', { userId: 'ada', provider: 'sandbox', customerId: 'c1', subscriptionId: 's1', attempt: 1, startedAt: '2026-11-20T08:00:00.000Z' }, 1),
  recorded('SubscriptionCheckoutStarted', { userId: 'bob', provider: 'stripe', customerId: 'c2', subscriptionId: 's2', attempt: 1, startedAt: '2026-11-20T08:00:00.000Z' }, 2),
  recorded('SubscriptionActivated', { userId: 'ada', provider: 'sandbox', customerId: 'c1', subscriptionId: 's1', currentPeriodEnd: periodEnd, activatedAt: '2026-11-20T08:01:00.000Z' }, 3),
  recorded('SubscriptionActivated', { userId: 'bob', provider: 'stripe', customerId: 'c2', subscriptionId: 's2', currentPeriodEnd: periodEnd, activatedAt: '2026-11-20T08:01:00.000Z' }, 4),
  recorded('SubscriptionCancellationScheduled', { userId: 'ada', subscriptionId: 's1', cancelAt: periodEnd, scheduledAt: '2026-11-21T08:00:00.000Z' }, 5),
  recorded('SubscriptionRenewed', { userId: 'bob', subscriptionId: 's2', currentPeriodEnd: '2027-01-20T08:00:00.000Z' }, 6),
];

async function project(store: InMemoryReadModelStore, list = events) {
  for (const e of list) await applyEvent(store, subscriptions, e);
}
const doc = async (store: InMemoryReadModelStore, id: string) => (await store.get<SubscriptionDoc>('subscriptions', id)) as SubscriptionDoc | null;

describe('subscriptions projection', () => {
  it('keeps each user’s plan: an open checkout alone changes nothing the user sees', async () => {
    const store = new InMemoryReadModelStore();
    await project(store, events.slice(0, 1));
    expect(await doc(store, 'ada')).toMatchObject({ userId: 'ada', status: 'free', subscriptionId: null });
    await project(store);
    expect(await store.get('subscriptions', 'ada')).toEqual({
      _id: 'ada', _position: 5,
      userId: 'ada', status: 'canceling', provider: 'sandbox', subscriptionId: 's1', currentPeriodEnd: periodEnd, cancelAt: periodEnd, endedAt: null, lapsedAt: null,
    });
    expect(await doc(store, 'bob')).toMatchObject({ status: 'active', provider: 'stripe', currentPeriodEnd: '2027-01-20T08:00:00.000Z' });
  });

  it('ends, and is active again after a new subscription', async () => {
    const store = new InMemoryReadModelStore();
    await project(store);
    await applyEvent(store, subscriptions, recorded('SubscriptionEnded', { userId: 'ada', subscriptionId: 's1', endedAt: periodEnd, reason: 'canceled' }, 7));
    expect(await doc(store, 'ada')).toMatchObject({ status: 'ended', endedAt: periodEnd });
    // A late signal about another subscription changes nothing.
    await applyEvent(store, subscriptions, recorded('SubscriptionRenewed', { userId: 'ada', subscriptionId: 'old', currentPeriodEnd: '2030-01-01T00:00:00.000Z' }, 8));
    expect(await doc(store, 'ada')).toMatchObject({ status: 'ended', currentPeriodEnd: periodEnd });
    await applyEvent(store, subscriptions, recorded('SubscriptionActivated', { userId: 'ada', provider: 'sandbox', customerId: 'c1', subscriptionId: 's3', currentPeriodEnd: '2027-02-01T00:00:00.000Z', activatedAt: '2027-01-01T00:00:00.000Z' }, 9));
    expect(await doc(store, 'ada')).toMatchObject({ status: 'active', subscriptionId: 's3', endedAt: null, cancelAt: null });
  });

  it('lapses (not premium, not ended) and comes back on the same subscription', async () => {
    const store = new InMemoryReadModelStore();
    await project(store);
    const lapsedAt = '2027-01-25T08:00:00.000Z';
    await applyEvent(store, subscriptions, recorded('SubscriptionLapsed', { userId: 'bob', subscriptionId: 's2', lapsedAt, reason: 'unpaid' }, 7));
    const lapsed = (await doc(store, 'bob'))!;
    expect(lapsed).toMatchObject({ status: 'lapsed', subscriptionId: 's2', lapsedAt, endedAt: null });
    expect(subscriptionStatusAt(lapsed, new Date('2027-01-01T00:00:00.000Z'))).toEqual({ isPremium: false, status: 'lapsed', currentPeriodEnd: lapsedAt, cancelAtPeriodEnd: false });
    // A lapse of another subscription changes nothing.
    await applyEvent(store, subscriptions, recorded('SubscriptionLapsed', { userId: 'ada', subscriptionId: 'other', lapsedAt, reason: 'paused' }, 8));
    expect(await doc(store, 'ada')).toMatchObject({ status: 'canceling' });
    const next = '2027-02-20T08:00:00.000Z';
    await applyEvent(store, subscriptions, recorded('SubscriptionReactivated', { userId: 'bob', subscriptionId: 's2', currentPeriodEnd: next, reactivatedAt: '2027-01-26T08:00:00.000Z' }, 9));
    const back = (await doc(store, 'bob'))!;
    expect(back).toMatchObject({ status: 'active', subscriptionId: 's2', currentPeriodEnd: next, lapsedAt: null });
    expect(subscriptionStatusAt(back, new Date('2027-01-26T09:00:00.000Z'))).toMatchObject({ isPremium: true, status: 'active' });
  });

  it('gives the same documents when the events are applied twice', async () => {
    const store = new InMemoryReadModelStore();
    await project(store);
    const once = [await store.get('subscriptions', 'ada'), await store.get('subscriptions', 'bob')];
    await project(store);
    expect([await store.get('subscriptions', 'ada'), await store.get('subscriptions', 'bob')]).toEqual(once);
  });

  describe('the status at query time', () => {
    const base: SubscriptionDoc = { userId: 'u', status: 'active', provider: 'sandbox', subscriptionId: 's', currentPeriodEnd: periodEnd, cancelAt: null, endedAt: null };
    const before = new Date('2026-12-20T07:59:59.000Z');
    const after = new Date(periodEnd);

    it('is free without a document', () => {
      expect(subscriptionStatusAt(null, before)).toEqual({ isPremium: false, status: 'free', currentPeriodEnd: null, cancelAtPeriodEnd: false });
    });

    it('is premium while active and renews at the period end', () => {
      expect(subscriptionStatusAt(base, before)).toEqual({ isPremium: true, status: 'active', currentPeriodEnd: periodEnd, cancelAtPeriodEnd: false });
    });

    it('stays premium while canceling, until the period end, then has ended', () => {
      const canceling = { ...base, status: 'canceling' as const, cancelAt: periodEnd };
      expect(subscriptionStatusAt(canceling, before)).toEqual({ isPremium: true, status: 'canceling', currentPeriodEnd: periodEnd, cancelAtPeriodEnd: true });
      expect(subscriptionStatusAt(canceling, after)).toEqual({ isPremium: false, status: 'ended', currentPeriodEnd: periodEnd, cancelAtPeriodEnd: false });
    });

    it('ends a sandbox subscription at its period end; a Stripe one waits for Stripe’s word', () => {
      expect(subscriptionStatusAt(base, after)).toMatchObject({ isPremium: false, status: 'ended' });
      expect(subscriptionStatusAt({ ...base, provider: 'stripe' }, after)).toMatchObject({ isPremium: true, status: 'active' });
    });

    it('is not premium once ended', () => {
      expect(subscriptionStatusAt({ ...base, status: 'ended', endedAt: periodEnd }, before)).toEqual({
        isPremium: false, status: 'ended', currentPeriodEnd: periodEnd, cancelAtPeriodEnd: false,
      });
    });
  });
});
