import { Logger } from '@nestjs/common';
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { decideAndAppend } from '../event-store/decider';
import type { EventStore, RecordedEvent } from '../event-store/event-store.port';
import type { Reactor, ReactorContext } from '../projections/pipeline/reactor';
import { groupDecider, membershipDecider } from '../groups/groups.decider';
import { settingsDecider } from '../settings/settings.decider';
import { within } from '../within';
import { CareActionSent, type CareFacts, cancelledEventId, cancelReasonFor, careDecider, CareEvent, careStream, fulfilledEventId } from './care.decider';

/** A care action as the fulfilment partner needs it. */
export type CareOrder = CareActionSent['data'];

/**
 * The fulfilment port: places the order for a care action (the florist, the card printer, the gift-card
 * vendor). `idempotencyKey` is the care action's id: a second call with the same key must return the first
 * order instead of ordering again, so a retry after a crash between ordering and recording is harmless.
 */
export interface CareFulfilment {
  order(careAction: CareOrder, idempotencyKey: string): Promise<{ orderId: string }>;
}

export interface RecordedOrder {
  idempotencyKey: string;
  orderId: string;
  careActionId: string;
  kind: string;
  recipientId: string;
  message: string | null;
  orderedAt: string;
}

/**
 * The recording default adapter: no partner is called; each order is a row of `care-orders.sqlite` in
 * DATA_DIR, whose UNIQUE idempotency key makes the second call with a key return the first order. A real
 * partner's adapter passes the key to the partner's own idempotency mechanism instead.
 */
export class RecordingCareFulfilment implements CareFulfilment {
  private readonly db: Database.Database;
  private readonly insert: Database.Statement<[string, string, string, string, string, string | null, string]>;
  private readonly byKey: Database.Statement<[string], { order_id: string }>;

  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('synchronous = FULL');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS care_orders (
        idempotency_key TEXT NOT NULL UNIQUE,
        order_id        TEXT NOT NULL UNIQUE,
        care_action_id  TEXT NOT NULL,
        kind            TEXT NOT NULL,
        recipient_id    TEXT NOT NULL,
        message         TEXT,
        ordered_at      TEXT NOT NULL
      )`);
    this.insert = this.db.prepare(
      `INSERT INTO care_orders (idempotency_key, order_id, care_action_id, kind, recipient_id, message, ordered_at)
       VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (idempotency_key) DO NOTHING`,
    );
    this.byKey = this.db.prepare('SELECT order_id FROM care_orders WHERE idempotency_key = ?');
  }

  async order(careAction: CareOrder, idempotencyKey: string): Promise<{ orderId: string }> {
    // One statement: of two concurrent calls with a key, one inserts and both read the same row.
    this.insert.run(
      idempotencyKey,
      `order-${randomUUID()}`,
      careAction.careActionId,
      careAction.kind,
      careAction.recipientId,
      careAction.message,
      new Date().toISOString(),
    );
    return { orderId: this.byKey.get(idempotencyKey)!.order_id };
  }

  /** Every order recorded, oldest first (tests, support). */
  orders(): RecordedOrder[] {
    return this.db
      .prepare<[], { idempotency_key: string; order_id: string; care_action_id: string; kind: string; recipient_id: string; message: string | null; ordered_at: string }>(
        'SELECT * FROM care_orders ORDER BY rowid',
      )
      .all()
      .map((r) => ({
        idempotencyKey: r.idempotency_key,
        orderId: r.order_id,
        careActionId: r.care_action_id,
        kind: r.kind,
        recipientId: r.recipient_id,
        message: r.message,
        orderedAt: r.ordered_at,
      }));
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

export const CARE_FULFILMENT_REACTOR = 'care-fulfilment';

/** How long an order may take before it counts as the partner not answering (it is tried again, same key). */
const ORDER_DEADLINE_MS = 30_000;

/**
 * The partner failed or did not answer an order: it is tried again with the same idempotency key for as long as
 * that lasts (the reactor waits; later care actions queue behind it), never counted as done.
 */
export class CarePartnerUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(`Care partner unavailable: ${message}`, options);
    this.name = 'CarePartnerUnavailableError';
  }
}

/** `fulfilment.order`, its failure (or silence past the deadline) a CarePartnerUnavailableError. */
async function orderWithin(fulfilment: CareFulfilment, careAction: CareOrder, ms = ORDER_DEADLINE_MS): Promise<{ orderId: string }> {
  try {
    return await within(fulfilment.order(careAction, careAction.careActionId), ms, () => new CarePartnerUnavailableError(`no answer within ${ms / 1000} s`));
  } catch (err) {
    if (err instanceof CarePartnerUnavailableError) throw err;
    throw new CarePartnerUnavailableError(err instanceof Error ? err.message : String(err), { cause: err });
  }
}

/** A stream's events as the deciders fold them (only type and data matter to them). */
const asFolded = <E>(e: RecordedEvent) => ({ type: e.type, data: e.data }) as unknown as E;
const upcast = asFolded<CareEvent>;

/**
 * The care fulfilment reactor (runs in the worker, or the embedded process): on CareActionSent it looks again at
 * the rules of sending (`cancelReasonFor`: the recipient still accepts care, both are still in the group, both
 * accounts still exist), read from the streams themselves, since an order may come long after the send (a
 * partner outage is waited out). When one no longer holds it appends CareActionCancelled and orders nothing;
 * otherwise it orders through the port with the care action's id as idempotency key, then appends
 * CareActionFulfilled to `care-<id>` with expected version 1 and a deterministic event id.
 *
 * Exactly one order per care action, with at-least-once delivery:
 * - a redelivered job after success: the stream already says fulfilled, so nothing is ordered or appended;
 * - a crash between the order and the append: the job is delivered again, `order` with the same key returns
 *   the first order, and the append happens now;
 * - two deliveries racing: both get the same order; the second append is an idempotent retry of the same
 *   event id, or (on a version conflict) the decider sees the action fulfilled and appends nothing.
 */
export function careFulfilmentReactor(fulfilment: CareFulfilment, clock: () => Date = () => new Date()): Reactor {
  const logger = new Logger('CareFulfilment');
  return {
    name: CARE_FULFILMENT_REACTOR,
    eventTypes: ['CareActionSent'],
    async react(event: RecordedEvent, { store }: ReactorContext) {
      const outcome = await fulfil(store, fulfilment, event, clock());
      if (outcome) logger.log(`Care action ${(event.data as CareOrder).careActionId} ${outcome}`);
    },
    isTransient: (err) => err instanceof CarePartnerUnavailableError,
  };
}

/** The recipient's, the sender's and the group's facts now, from their streams (the source of truth, never behind). */
export async function readCareFacts(store: EventStore, sent: CareOrder): Promise<CareFacts> {
  const [recipientEvents, senderEvents, groupEvents] = await Promise.all([
    store.readStream(`user-${sent.recipientId}`),
    store.readStream(`user-${sent.senderId}`),
    store.readStream(`group-${sent.groupId}`),
  ]);
  const memberships = (events: RecordedEvent[]) => events.map(asFolded<Parameters<typeof membershipDecider.evolve>[1]>).reduce(membershipDecider.evolve, membershipDecider.initialState);
  const recipient = memberships(recipientEvents);
  const sender = memberships(senderEvents);
  const settings = recipientEvents.map(asFolded<Parameters<typeof settingsDecider.evolve>[1]>).reduce(settingsDecider.evolve, settingsDecider.initialState);
  const group = groupEvents.map(asFolded<Parameters<typeof groupDecider.evolve>[1]>).reduce(groupDecider.evolve, groupDecider.initialState);
  return {
    recipient: { deleted: recipient.deleted === true, acceptsCare: settings.acceptCareActions, inGroup: recipient.groupIds.includes(sent.groupId) },
    sender: { deleted: sender.deleted === true, inGroup: sender.groupIds.includes(sent.groupId) },
    groupDeleted: group.deleted,
  };
}

/**
 * Orders and records a care action once, or records it cancelled; null when either was done already (a redelivery).
 * A crash between the order and its record, with the recipient declining care in that same moment, would record a
 * placed order as cancelled: the window is one append long, and the partner's order stands (the key was used).
 */
async function fulfil(store: EventStore, fulfilment: CareFulfilment, event: RecordedEvent, at: Date): Promise<'fulfilled' | 'cancelled' | null> {
  const sent = event.data as CareOrder;
  const stream = careStream(sent.careActionId);
  const state = (await store.readStream(stream)).map(upcast).reduce(careDecider.evolve, careDecider.initialState);
  if (state.status === 'fulfilled' || state.status === 'cancelled') return null;
  const ctx = { actorUserId: 'system', correlationId: event.metadata.correlationId, causationId: event.metadata.eventId, now: at };
  const reason = cancelReasonFor(await readCareFacts(store, sent));
  if (reason) {
    await decideAndAppend(store, stream, careDecider, { type: 'CancelCareAction', careActionId: sent.careActionId, reason, at }, ctx, {
      upcast,
      eventIds: () => [cancelledEventId(sent.careActionId)],
    });
    return 'cancelled';
  }
  const { orderId } = await orderWithin(fulfilment, sent);
  // Appended with expected version 1 (the stream holds just the CareActionSent: decideAndAppend appends at the
  // version it read). On a conflict it reads again and re-decides, and the decider answers "nothing to append"
  // for an action that another delivery fulfilled meanwhile; the same event id again is an idempotent retry.
  await decideAndAppend(store, stream, careDecider, { type: 'FulfilCareAction', careActionId: sent.careActionId, orderId, at }, ctx, {
    upcast,
    eventIds: () => [fulfilledEventId(sent.careActionId)],
  });
  return 'fulfilled';
}
