import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler, IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { CARE_LIMITS, type CareActionView, type CareSuggestionView, DomainError, type ReceivedCareActionView, type SentCareActionView } from '@joy/domain';
import { decideAndAppend } from '../event-store/decider';
import { idFromKey } from '../http/idempotency-key';
import { EVENT_STORE, type EventStore } from '../event-store/event-store.port';
import { PREMIUM_LOOKUP, type PremiumLookup } from '../billing/premium';
import { CareActionDoc, careActionsProjector } from '../projections/care-actions.projector';
import { CareSupportDoc, careSuggestionsProjector } from '../projections/care-suggestions.projector';
import { GroupDoc, groupsProjector } from '../projections/groups.projector';
import { READ_YOUR_WRITES, type ReadYourWrites } from '../projections/read-your-writes';
import { KEY_STORE, type KeyStore } from '../identity/key-store';
import { readProfiles } from '../identity/profiles';
import { READ_MODELS, type ReadModelStore } from '../read-models/read-model-store.port';
import { Turns } from '../event-store/turns';
import { CARE_MESSAGES, type CareActionSent, careDecider, careStream } from './care.decider';

/** Sends per sender and per recipient, in turns (see SendCareActionHandler.execute). */
const sendTurns = new Turns();

/** Newest care actions listed per person. */
export const CARE_LIST_LIMIT = 100;

// ---- commands -----------------------------------------------------------------------------------------

export class SendCareActionCommand {
  constructor(
    readonly userId: string,
    readonly groupId: string,
    readonly recipientId: string,
    readonly kind: unknown,
    readonly message: unknown,
    /** The Idempotency-Key header, checked: the same key sends once. */
    readonly idempotencyKey?: string,
  ) {}
}

@CommandHandler(SendCareActionCommand)
export class SendCareActionHandler implements ICommandHandler<SendCareActionCommand, CareActionView> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_MODELS) private readonly readModels: ReadModelStore,
    @Inject(READ_YOUR_WRITES) private readonly readYourWrites: ReadYourWrites,
    @Inject(PREMIUM_LOOKUP) private readonly isPremium: PremiumLookup,
  ) {}

  /**
   * Sends of one sender, and to one recipient, take turns in this process: the limits are counted and the new
   * care action recorded (and projected) before the next send is counted, so a burst cannot slip past them.
   */
  execute(command: SendCareActionCommand): Promise<CareActionView> {
    return sendTurns.runAll([`sender:${command.userId}`, `recipient:${command.recipientId}`], () => this.send(command));
  }

  /** The times of care sent within the limits' window that `query` finds (newest first, as many as a limit counts). */
  private async recentSentAt(query: Partial<CareActionDoc>, limit: number, at: Date): Promise<string[]> {
    const docs = await this.readModels.find<CareActionDoc>(careActionsProjector.collection, query, { sort: { field: 'seq', direction: 'desc' }, limit });
    return docs.map((d) => d.sentAt).filter((t) => at.getTime() - Date.parse(t) < CARE_LIMITS.windowMs);
  }

  private async send({ userId, groupId, recipientId, kind, message, idempotencyKey }: SendCareActionCommand): Promise<CareActionView> {
    const at = new Date();
    // With a key, the id is the key's: a retry finds the care action the first request sent (care.decider).
    const careActionId = idempotencyKey ? idFromKey(userId, idempotencyKey) : randomUUID();
    const [recipientCare, bySender, bySenderToRecipient, toRecipient] = await Promise.all([
      this.readModels.get<CareSupportDoc>(careSuggestionsProjector.collection, recipientId),
      this.recentSentAt({ senderId: userId }, CARE_LIMITS.perSender, at),
      this.recentSentAt({ senderId: userId, recipientId }, CARE_LIMITS.perPair, at),
      this.recentSentAt({ recipientId }, CARE_LIMITS.perRecipient, at),
    ]);
    // The groups read model: joining answers once it has the new member. Leaving (or deleting the account) just
    // before this send may not be in it yet; the fulfilment looks again at the streams before ordering and
    // cancels such a care action (care-fulfilment.ts).
    const group = await this.readModels.get<GroupDoc>(groupsProjector.collection, groupId);
    const { events, append, state } = await decideAndAppend(
      this.store,
      careStream(careActionId),
      careDecider,
      {
        type: 'SendCareAction',
        careActionId,
        groupId,
        senderId: userId,
        recipientId,
        kind,
        message,
        senderIsPremium: await this.isPremium(userId),
        groupMemberIds: group ? group.members.map((m) => m.userId) : null,
        recipientAcceptsCare: recipientCare?.declinesCare !== true,
        recent: { bySender, bySenderToRecipient, toRecipient },
        at,
        idempotencyKey,
      },
      { actorUserId: userId, now: at },
      { eventIds: () => [careActionId] },
    );
    // Sent already with this key: the same care action, as it stands now.
    if (events.length === 0 && state.status !== 'none') return careActionView(state.sent, state.status);
    const sent = events[0];
    if (sent.type !== 'CareActionSent') throw new Error('Expected CareActionSent');
    // Read-your-writes: the sender's list of care sent shows it at once.
    await this.readYourWrites.waitFor(append!.position, { eventTypes: ['CareActionSent'] });
    return careActionView(sent.data, 'sent');
  }
}

/** A care action as its sender's POST answers it. */
function careActionView(d: CareActionSent['data'], status: CareActionView['status']): CareActionView {
  return { id: d.careActionId, groupId: d.groupId, senderId: d.senderId, recipientId: d.recipientId, kind: d.kind, message: d.message, sentAt: d.sentAt, status };
}

export class ThankCareActionCommand {
  constructor(
    readonly userId: string,
    readonly careActionId: string,
  ) {}
}

/**
 * The recipient says thanks: CareActionThanked on `care-<id>`, answered with the care action as the recipient's
 * list shows it (thanked) once the lists show it. Another person's care action, or none: 404; twice: 409.
 */
@CommandHandler(ThankCareActionCommand)
export class ThankCareActionHandler implements ICommandHandler<ThankCareActionCommand, ReceivedCareActionView> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_MODELS) private readonly readModels: ReadModelStore,
    @Inject(READ_YOUR_WRITES) private readonly readYourWrites: ReadYourWrites,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
  ) {}

  async execute({ userId, careActionId }: ThankCareActionCommand): Promise<ReceivedCareActionView> {
    // Ids are at most 64 characters (as the API hands them out): anything else is no care action of anyone's.
    if (careActionId.length > 64) throw new DomainError('care.not_found', CARE_MESSAGES.notFound);
    const at = new Date();
    const { append } = await decideAndAppend(
      this.store,
      careStream(careActionId),
      careDecider,
      { type: 'ThankCareAction', careActionId, userId, at },
      { actorUserId: userId, now: at },
    );
    await this.readYourWrites.waitFor(append!.position, { eventTypes: ['CareActionThanked'] });
    const doc = await this.readModels.get<CareActionDoc>(careActionsProjector.collection, careActionId);
    if (!doc) throw new DomainError('care.not_found', CARE_MESSAGES.notFound);
    const names = await firstNames(this.readModels, this.keys, [doc.senderId]);
    return receivedView(doc, names);
  }
}

// ---- queries ------------------------------------------------------------------------------------------

function receivedView(d: CareActionDoc, names: Map<string, string | null>): ReceivedCareActionView {
  return {
    id: d.id,
    groupId: d.groupId,
    senderId: d.senderId,
    senderFirstName: names.get(d.senderId) ?? null,
    kind: d.kind,
    message: d.message,
    sentAt: d.sentAt,
    status: d.status,
    thankedAt: d.thankedAt ?? null,
  };
}

/** First names (decrypted; null for a deleted account). */
async function firstNames(readModels: ReadModelStore, keys: KeyStore, userIds: string[]): Promise<Map<string, string | null>> {
  const profiles = await readProfiles(readModels, keys, userIds);
  return new Map([...profiles].map(([id, profile]) => [id, profile?.firstName ?? null]));
}

export class GetCareSuggestionsQuery {
  constructor(
    readonly userId: string,
    readonly groupId: string,
  ) {}
}

/** The other members of a group whose latest overall score is below 3, lowest score first. */
@QueryHandler(GetCareSuggestionsQuery)
export class GetCareSuggestionsHandler implements IQueryHandler<GetCareSuggestionsQuery, CareSuggestionView[]> {
  constructor(
    @Inject(READ_MODELS) private readonly readModels: ReadModelStore,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
  ) {}

  async execute({ userId, groupId }: GetCareSuggestionsQuery): Promise<CareSuggestionView[]> {
    const group = await this.readModels.get<GroupDoc>(groupsProjector.collection, groupId);
    if (!group || !group.members.some((m) => m.userId === userId)) throw new DomainError('group.not_found', CARE_MESSAGES.groupNotFound);
    const members = new Set(group.members.map((m) => m.userId));
    const docs = (await this.readModels.find<CareSupportDoc>(careSuggestionsProjector.collection, { groupIds: groupId, needsSupport: true }))
      // A member who declined care actions is never suggested.
      .filter((d) => d.userId !== userId && members.has(d.userId) && d.latestScore !== null && d.declinesCare !== true)
      .sort((a, b) => a.latestScore! - b.latestScore! || b.latestSeq - a.latestSeq);
    const names = await firstNames(this.readModels, this.keys, docs.map((d) => d.userId));
    return docs.map((d) => ({ userId: d.userId, firstName: names.get(d.userId) ?? null, latestScore: d.latestScore! }));
  }
}

export class GetCareReceivedQuery {
  constructor(readonly userId: string) {}
}

/** Care actions the user received, newest first; one cancelled before it was ordered never came, so it is left out. */
@QueryHandler(GetCareReceivedQuery)
export class GetCareReceivedHandler implements IQueryHandler<GetCareReceivedQuery, ReceivedCareActionView[]> {
  constructor(
    @Inject(READ_MODELS) private readonly readModels: ReadModelStore,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
  ) {}

  async execute({ userId }: GetCareReceivedQuery): Promise<ReceivedCareActionView[]> {
    const docs = await this.readModels.find<CareActionDoc>(
      careActionsProjector.collection,
      { recipientId: userId },
      { sort: { field: 'seq', direction: 'desc' }, limit: CARE_LIST_LIMIT },
    );
    const received = docs.filter((d) => d.status !== 'cancelled');
    const names = await firstNames(this.readModels, this.keys, received.map((d) => d.senderId));
    return received.map((d) => receivedView(d, names));
  }
}

export class GetCareSentQuery {
  constructor(readonly userId: string) {}
}

/** Care actions the user sent, newest first. */
@QueryHandler(GetCareSentQuery)
export class GetCareSentHandler implements IQueryHandler<GetCareSentQuery, SentCareActionView[]> {
  constructor(
    @Inject(READ_MODELS) private readonly readModels: ReadModelStore,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
  ) {}

  async execute({ userId }: GetCareSentQuery): Promise<SentCareActionView[]> {
    const docs = await this.readModels.find<CareActionDoc>(
      careActionsProjector.collection,
      { senderId: userId },
      { sort: { field: 'seq', direction: 'desc' }, limit: CARE_LIST_LIMIT },
    );
    const names = await firstNames(this.readModels, this.keys, docs.map((d) => d.recipientId));
    return docs.map((d) => ({
      id: d.id,
      groupId: d.groupId,
      recipientId: d.recipientId,
      recipientFirstName: names.get(d.recipientId) ?? null,
      kind: d.kind,
      message: d.message,
      sentAt: d.sentAt,
      status: d.status,
      thankedAt: d.thankedAt ?? null,
      cancelReason: d.cancelReason ?? null,
    }));
  }
}
