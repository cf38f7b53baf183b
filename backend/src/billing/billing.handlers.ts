import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CommandHandler, ICommandHandler, IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CommandContext, decideAndAppend } from '../event-store/decider';
import { EVENT_STORE, type EventStore, type RecordedEvent } from '../event-store/event-store.port';
import { READ_YOUR_WRITES, type ReadYourWrites } from '../projections/read-your-writes';
import { type CreateSubscriptionResponse, DomainError, isPremiumAt, type SubscriptionStatusView } from '@joy/domain';
import { SubscriptionDoc, subscriptionsProjector, subscriptionStatusAt } from '../projections/subscriptions.projector';
import { READ_MODELS, type ReadModelStore } from '../read-models/read-model-store.port';
import {
  BILLING_MESSAGES,
  checkoutClosed,
  ProviderSubscription,
  SUBSCRIPTION_EVENT_TYPES,
  SubscriptionCommand,
  subscriptionDecider,
  SubscriptionEvent,
  SubscriptionState,
  subscriptionStream,
} from './billing.decider';
import { BILLING_PROVIDER, type BillingProvider, type TestCard } from './billing.provider';
import { APP_CONFIG } from '../app.tokens';
import type { AppConfig } from '../config';

const upcast = (e: RecordedEvent) => ({ type: e.type, data: e.data }) as unknown as SubscriptionEvent;

async function loadState(store: EventStore, userId: string): Promise<SubscriptionState> {
  return (await loadStream(store, userId)).state;
}

/** The state, and the position of the stream's last event (0 for none). */
async function loadStream(store: EventStore, userId: string): Promise<{ state: SubscriptionState; position: number }> {
  const recorded = await store.readStream(subscriptionStream(userId));
  return { state: recorded.map(upcast).reduce(subscriptionDecider.evolve, subscriptionDecider.initialState), position: recorded.at(-1)?.position ?? 0 };
}

/**
 * A request that changes nothing answers the status read model, which may not show yet what a concurrent request
 * just appended (a double click on Pay, a retried cancel): wait until it shows the stream as it was read.
 */
async function seen(readYourWrites: ReadYourWrites, position: number): Promise<void> {
  if (position > 0) await readYourWrites.waitFor(position, { eventTypes: SUBSCRIPTION_EVENT_TYPES });
}

/** Decides on the user's subscription stream, appends, and waits until the status read model shows it. */
async function decide(
  store: EventStore,
  readYourWrites: ReadYourWrites,
  userId: string,
  command: SubscriptionCommand,
  ctx: CommandContext,
  eventIds?: (events: SubscriptionEvent[], version: number) => string[],
): Promise<SubscriptionEvent[]> {
  const { events, append } = await decideAndAppend(store, subscriptionStream(userId), subscriptionDecider, command, ctx, { upcast, eventIds });
  if (append) await readYourWrites.waitFor(append.position, { eventTypes: SUBSCRIPTION_EVENT_TYPES });
  else await seen(readYourWrites, (await loadStream(store, userId)).position); // decided nothing: a concurrent request had done it
  return events;
}

/** A change the provider makes to a subscription: cancel at the period's end, or take that back. */
type ProviderChange = Extract<SubscriptionCommand, { type: 'ScheduleCancellation' | 'WithdrawCancellation' }>;

/**
 * The rules first (nothing to change: the provider is not asked, and nothing is appended; the decider's 409s,
 * such as nothing to cancel, come from here), then the provider's answer is recorded: the subscription's state as
 * it now is, or the command itself where the provider keeps no state of its own.
 */
async function changeThroughProvider(
  store: EventStore,
  readYourWrites: ReadYourWrites,
  command: ProviderChange,
  ask: (state: SubscriptionState) => Promise<ProviderSubscription | null>,
): Promise<SubscriptionEvent[]> {
  const { userId, at } = command;
  const { state, position } = await loadStream(store, userId);
  if (subscriptionDecider.decide(command, state).length === 0) {
    await seen(readYourWrites, position);
    return [];
  }
  const subscription = await ask(state);
  return decide(store, readYourWrites, userId, subscription ? { type: 'SyncSubscription', subscription, at } : command, { actorUserId: userId, now: at });
}

/** The status, saying when Premium is the operator's grant: the browser must not offer to cancel or resume it. */
async function statusOf(readModels: ReadModelStore, userId: string, now = new Date()): Promise<SubscriptionStatusView> {
  const doc = await readModels.get<SubscriptionDoc>(subscriptionsProjector.collection, userId);
  const status = subscriptionStatusAt(doc, now);
  return status.isPremium && doc?.provider === 'operator' ? { ...status, granted: true } : status;
}

// ---- commands -----------------------------------------------------------------------------------------

export class CreateSubscriptionCommand {
  constructor(readonly userId: string) {}
}

/**
 * POST /api/create-subscription: `{ clientSecret }` of a checkout to pay (new, or the one still open), or
 * `{}` when the user already has Joy Premium, or a lapsed subscription to pay or resume instead. During an
 * operator's grant a checkout opens: its paid period starts when the grant ends (see `grantToFollow`).
 */
@CommandHandler(CreateSubscriptionCommand)
export class CreateSubscriptionHandler implements ICommandHandler<CreateSubscriptionCommand, CreateSubscriptionResponse> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_YOUR_WRITES) private readonly readYourWrites: ReadYourWrites,
    @Inject(BILLING_PROVIDER) private readonly provider: BillingProvider,
  ) {}

  async execute({ userId }: CreateSubscriptionCommand): Promise<CreateSubscriptionResponse> {
    const at = new Date();
    const state = await loadState(this.store, userId);
    // Lapsed: no second subscription; the one there is paid or resumed through the billing portal (the Account page says so).
    if (checkoutClosed(state, at)) return {};
    const provider = this.provider.name;
    if (provider === 'none') throw new DomainError('billing.not_set_up', BILLING_MESSAGES.notSetUp);
    const checkout = await this.provider.checkout(userId, state);
    const ctx: CommandContext = { actorUserId: userId, now: at };
    if (checkout.kind === 'paid') {
      // Paid meanwhile (the webhook has not arrived yet): record it now.
      await decide(this.store, this.readYourWrites, userId, { type: 'SyncSubscription', subscription: checkout.subscription, at }, ctx);
      return {};
    }
    const { customerId, subscriptionId, clientSecret } = checkout;
    await decide(
      this.store,
      this.readYourWrites,
      userId,
      { type: 'StartCheckout', userId, provider, customerId, subscriptionId, at },
      ctx,
      () => [`checkout-${subscriptionId}`], // a retried request appends it once
    );
    return { clientSecret };
  }
}

export class ConfirmSandboxPaymentCommand {
  constructor(
    readonly userId: string,
    readonly clientSecret: string,
    readonly card: TestCard,
  ) {}
}

/** POST /api/billing/sandbox/confirm: pays the sandbox checkout with a test card. */
@CommandHandler(ConfirmSandboxPaymentCommand)
export class ConfirmSandboxPaymentHandler implements ICommandHandler<ConfirmSandboxPaymentCommand, SubscriptionStatusView> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_MODELS) private readonly readModels: ReadModelStore,
    @Inject(READ_YOUR_WRITES) private readonly readYourWrites: ReadYourWrites,
    @Inject(BILLING_PROVIDER) private readonly provider: BillingProvider,
  ) {}

  async execute({ userId, clientSecret, card }: ConfirmSandboxPaymentCommand): Promise<SubscriptionStatusView> {
    const testCards = this.provider.testCards;
    if (!testCards) throw new DomainError('request.not_found', 'Not found');
    const at = new Date();
    const { state, position } = await loadStream(this.store, userId);
    // Paid already (a retried confirmation, or two at once): answer the status as it is.
    if (isPremiumAt(state, at) && clientSecret === testCards.clientSecretOf(state.subscriptionId!)) {
      await seen(this.readYourWrites, position);
      return statusOf(this.readModels, userId, at);
    }
    const subscription = testCards.confirm(userId, state, clientSecret, card);
    await decide(this.store, this.readYourWrites, userId, { type: 'SyncSubscription', subscription, at }, { actorUserId: userId, now: at }, (events) =>
      events.map((e) => `sandbox-${subscription.subscriptionId}-${e.type}`),
    );
    return statusOf(this.readModels, userId, at);
  }
}

export class CancelSubscriptionCommand {
  constructor(readonly userId: string) {}
}

/** POST /api/subscription/cancel: ends the subscription at the end of the paid period; 409 if there is none. */
@CommandHandler(CancelSubscriptionCommand)
export class CancelSubscriptionHandler implements ICommandHandler<CancelSubscriptionCommand, SubscriptionStatusView> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_MODELS) private readonly readModels: ReadModelStore,
    @Inject(READ_YOUR_WRITES) private readonly readYourWrites: ReadYourWrites,
    @Inject(BILLING_PROVIDER) private readonly provider: BillingProvider,
  ) {}

  async execute({ userId }: CancelSubscriptionCommand): Promise<SubscriptionStatusView> {
    const at = new Date();
    // 409 with nothing to cancel; already canceling: nothing to do.
    await changeThroughProvider(this.store, this.readYourWrites, { type: 'ScheduleCancellation', userId, at }, (state) => this.provider.cancelAtPeriodEnd(userId, state));
    return statusOf(this.readModels, userId, at);
  }
}

export class ResumeSubscriptionCommand {
  constructor(readonly userId: string) {}
}

/** Takes back a cancellation before the period ends (Stripe: cancel_at_period_end=false); 409 when there is none. */
@CommandHandler(ResumeSubscriptionCommand)
export class ResumeSubscriptionHandler implements ICommandHandler<ResumeSubscriptionCommand, SubscriptionStatusView> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_MODELS) private readonly readModels: ReadModelStore,
    @Inject(READ_YOUR_WRITES) private readonly readYourWrites: ReadYourWrites,
    @Inject(BILLING_PROVIDER) private readonly provider: BillingProvider,
  ) {}

  async execute({ userId }: ResumeSubscriptionCommand): Promise<SubscriptionStatusView> {
    const at = new Date();
    // 409 with nothing to resume; already renewing: nothing to do.
    await changeThroughProvider(this.store, this.readYourWrites, { type: 'WithdrawCancellation', userId, at }, (state) => this.provider.resume(userId, state));
    return statusOf(this.readModels, userId, at);
  }
}

export class OpenCustomerPortalCommand {
  constructor(readonly userId: string) {}
}

/**
 * POST /api/billing/portal: `{ url }` of the person's Stripe Customer Portal (payment method, invoices), which
 * brings them back to /account. 409 on an install without Stripe, or before anything was paid through it.
 */
@CommandHandler(OpenCustomerPortalCommand)
export class OpenCustomerPortalHandler implements ICommandHandler<OpenCustomerPortalCommand, { url: string }> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(BILLING_PROVIDER) private readonly provider: BillingProvider,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async execute({ userId }: OpenCustomerPortalCommand): Promise<{ url: string }> {
    const portal = this.provider.customerPortal;
    if (!portal) throw new DomainError('billing.portal_unavailable', BILLING_MESSAGES.portalUnavailable);
    // Only a customer of this provider: a grant's 'operator' or a sandbox customer would be a 500 at Stripe.
    const { name } = this.provider;
    const customerId = name === 'stripe' || name === 'sandbox' ? (await loadState(this.store, userId)).customerIds?.[name] : undefined;
    if (!customerId) throw new DomainError('billing.portal_unavailable', BILLING_MESSAGES.nothingPaidYet);
    return { url: await portal.open(customerId, `${this.config.publicUrl}/account`) };
  }
}

export class EndSubscriptionNowCommand {
  constructor(readonly userId: string) {}
}

/**
 * Account deletion: ends Joy Premium at once, and a checkout still open. The provider first (Stripe cancels both
 * now: no further charge, and a payment under way cannot complete), then the end is recorded, decided on the
 * stream as it is then: a payment recorded in between is ended too. Nothing to end: nothing happens (no 409).
 */
@CommandHandler(EndSubscriptionNowCommand)
export class EndSubscriptionNowHandler implements ICommandHandler<EndSubscriptionNowCommand, SubscriptionEvent[]> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_YOUR_WRITES) private readonly readYourWrites: ReadYourWrites,
    @Inject(BILLING_PROVIDER) private readonly provider: BillingProvider,
  ) {}

  async execute({ userId }: EndSubscriptionNowCommand): Promise<SubscriptionEvent[]> {
    const at = new Date();
    const { state, position } = await loadStream(this.store, userId);
    if (subscriptionDecider.decide({ type: 'EndNow', userId, at }, state).length === 0) {
      await seen(this.readYourWrites, position);
      return [];
    }
    await this.provider.cancelNow(userId, state);
    return decide(this.store, this.readYourWrites, userId, { type: 'EndNow', userId, at }, { actorUserId: userId, now: at });
  }
}

export class SyncProviderSubscriptionCommand {
  constructor(
    readonly subscription: ProviderSubscription,
    /** The provider's id of the signal (a Stripe event id): the appended events' ids derive from it. */
    readonly signalId: string,
  ) {}
}

/** A provider's signal (a webhook): appends what the subscription's current state implies, once. */
@CommandHandler(SyncProviderSubscriptionCommand)
export class SyncProviderSubscriptionHandler implements ICommandHandler<SyncProviderSubscriptionCommand, SubscriptionEvent[]> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_YOUR_WRITES) private readonly readYourWrites: ReadYourWrites,
  ) {}

  execute({ subscription, signalId }: SyncProviderSubscriptionCommand): Promise<SubscriptionEvent[]> {
    const at = new Date();
    return decide(
      this.store,
      this.readYourWrites,
      subscription.userId,
      { type: 'SyncSubscription', subscription, at },
      { actorUserId: 'system', correlationId: signalId, causationId: signalId, now: at },
      (events, version) => events.map((_, i) => `${signalId}-${version}-${i}`),
    );
  }
}

// ---- queries ------------------------------------------------------------------------------------------

export class GetSubscriptionStatusQuery {
  constructor(
    readonly userId: string,
    readonly now = new Date(),
  ) {}
}

@QueryHandler(GetSubscriptionStatusQuery)
export class GetSubscriptionStatusHandler implements IQueryHandler<GetSubscriptionStatusQuery, SubscriptionStatusView> {
  constructor(@Inject(READ_MODELS) private readonly readModels: ReadModelStore) {}

  execute({ userId, now }: GetSubscriptionStatusQuery): Promise<SubscriptionStatusView> {
    return statusOf(this.readModels, userId, now);
  }
}

// ---- the sandbox's end of period ----------------------------------------------------------------------

/**
 * The sandbox has no renewals: once a sandbox subscription's month is over, this reactor appends its
 * `SubscriptionEnded` (the status endpoint already says 'ended' at that moment, computed at query time;
 * the event makes the stream say so too). It looks every minute; several processes doing it at once are
 * harmless (the stream's expected version lets one append, the others then decide nothing). An install moved
 * from the sandbox to Stripe (or to none) keeps the sandbox's subscriptions, which nothing else ends: there it
 * looks hourly (the status says 'ended' at once all the same).
 */
@Injectable()
export class SandboxExpiry implements OnApplicationBootstrap, OnApplicationShutdown {
  static readonly INTERVAL_MS = 60_000;
  static readonly LEFTOVER_INTERVAL_MS = 3_600_000;
  private readonly logger = new Logger('SandboxExpiry');
  private timer: NodeJS.Timeout | null = null;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_MODELS) private readonly readModels: ReadModelStore,
    @Inject(BILLING_PROVIDER) private readonly provider: BillingProvider,
  ) {}

  onApplicationBootstrap(): void {
    const every = this.provider.name === 'sandbox' ? SandboxExpiry.INTERVAL_MS : SandboxExpiry.LEFTOVER_INTERVAL_MS;
    this.timer = setInterval(() => void this.endDue().catch((err) => this.logger.error(err)), every);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Ends every sandbox subscription whose paid period is over at `now`; answers the users concerned. */
  async endDue(now = new Date()): Promise<string[]> {
    const docs = [
      ...(await this.readModels.find<SubscriptionDoc>(subscriptionsProjector.collection, { status: 'active' })),
      ...(await this.readModels.find<SubscriptionDoc>(subscriptionsProjector.collection, { status: 'canceling' })),
    ];
    const due = docs.filter((d) => d.provider === 'sandbox' && d.currentPeriodEnd && Date.parse(d.currentPeriodEnd) <= now.getTime());
    const ended: string[] = [];
    for (const doc of due) {
      const { events } = await decideAndAppend(
        this.store,
        subscriptionStream(doc.userId),
        subscriptionDecider,
        { type: 'EndIfDue', userId: doc.userId, at: now },
        { actorUserId: 'system', now },
        { upcast, eventIds: () => [`sandbox-end-${doc.subscriptionId}`] },
      );
      if (events.length > 0) ended.push(doc.userId);
    }
    return ended;
  }
}
