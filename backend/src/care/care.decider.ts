import { type CareCancelReason, CARE_KINDS, CARE_LIMITS, CARE_MESSAGE_MAX, type CareActionView, type CareKind, DomainError, type ErrorCode, fitsLength, isCareKind, LimitReachedError } from '@joy/domain';
import { Decider, DomainEvent } from '../event-store/decider';
import { nameProblem, normalizeName } from '../names/name-rule';
import { MESSAGES as GROUP_MESSAGES } from '../groups/groups.decider';

/*
 * Care actions: a Joy Premium member sends flowers, a handwritten card, a digital gift card or a care package
 * to another member of a group they share. Each care action is its own stream `care-<careActionId>`:
 *
 *   1. CareActionSent       appended by the command (POST /api/care-actions), stream version 1;
 *   2. CareActionFulfilled  appended by the fulfilment reactor (care-fulfilment.ts) after the order was placed,
 *                           with the deterministic event id `care-fulfilled-<id>`, so a redelivered job appends
 *                           nothing new;
 *   2'. CareActionCancelled appended by the same reactor instead, when by the time of ordering the recipient no
 *                           longer accepts care, either person left the group (or it was deleted), or an account
 *                           was deleted (`cancelReasonFor`); deterministic id `care-cancelled-<id>`. Nothing is
 *                           ordered, and the recipient's list leaves it out.
 *   3. CareActionThanked    appended when the recipient says thanks (POST /api/care-actions/:id/thank), at most
 *                           once, before or after the fulfilment; the sender sees it on their Sent page.
 *
 * Who may send is decided from facts the handler reads (premium status, the group's members), so the
 * decider stays pure.
 */


export const CARE_MESSAGES = {
  premiumOnly: 'Care actions are a Joy Premium feature. Upgrade to send care to your tribe.',
  groupNotFound: GROUP_MESSAGES.groupNotFound,
  toSelf: 'You cannot send a care action to yourself.',
  recipientNotMember: 'The recipient is not a member of this group.',
  groupIdRequired: 'groupId is required',
  recipientIdRequired: 'recipientId is required',
  kindInvalid: `kind must be one of ${CARE_KINDS.join(', ')}`,
  messageNotText: 'message must be a string',
  messageTooLong: `message must be at most ${CARE_MESSAGE_MAX} characters`,
  alreadySent: 'This care action already exists.',
  keyReused: 'This Idempotency-Key already sent a different care action; send a new key for a new one.',
  notFound: 'Care action not found',
  alreadyThanked: 'You already said thanks for this care action.',
  declined: 'This member does not accept care actions.',
  pairLimit: `You have sent this member ${CARE_LIMITS.perPair} care actions in the last 24 hours. Please wait before sending another.`,
  senderLimit: `You can send at most ${CARE_LIMITS.perSender} care actions in 24 hours. Please wait before sending another.`,
  recipientLimit: 'This member has received all the care actions they can for now. Please try again tomorrow.',
} as const;

export const careStream = (careActionId: string) => `care-${careActionId}`;
/** The id of a care action's CareActionFulfilled event: the same on every retry, so it is appended once. */
export const fulfilledEventId = (careActionId: string) => `care-fulfilled-${careActionId}`;
/** The id of a care action's CareActionCancelled event, for the same reason. */
export const cancelledEventId = (careActionId: string) => `care-cancelled-${careActionId}`;

/** Checks kind and message; the message is trimmed, and an empty one is no message (null). */
export function careDetails(kind: unknown, message: unknown): { kind: CareKind; message: string | null } {
  if (!isCareKind(kind)) throw new DomainError('care.kind_invalid', CARE_MESSAGES.kindInvalid);
  if (message !== undefined && message !== null && typeof message !== 'string') throw new DomainError('care.message_not_text', CARE_MESSAGES.messageNotText);
  const trimmed = normalizeName(message ?? '');
  if (!fitsLength(trimmed, CARE_MESSAGE_MAX)) throw new DomainError('care.message_too_long', CARE_MESSAGES.messageTooLong);
  const problem = nameProblem(trimmed, 'message', { multiline: true });
  if (problem) throw new DomainError('text.not_clean', problem);
  return { kind, message: trimmed === '' ? null : trimmed };
}

// ---- events -------------------------------------------------------------------------------------------

/** The care action's fields as the API shows them (CareActionView), under the event's own name for the id. */
export type CareActionSent = DomainEvent<'CareActionSent', Omit<CareActionView, 'id' | 'status'> & { careActionId: string }>;
export type CareActionFulfilled = DomainEvent<'CareActionFulfilled', { careActionId: string; orderId: string; fulfilledAt: string }>;
/** The recipient thanked the sender: `recipientId` is who thanked (the only person who may). */
export type CareActionThanked = DomainEvent<'CareActionThanked', { careActionId: string; recipientId: string; thankedAt: string }>;
export type CareActionCancelled = DomainEvent<'CareActionCancelled', { careActionId: string; reason: CareCancelReason; cancelledAt: string }>;
export type CareEvent = CareActionSent | CareActionFulfilled | CareActionCancelled | CareActionThanked;

export const CARE_EVENT_TYPES = ['CareActionSent', 'CareActionFulfilled', 'CareActionCancelled', 'CareActionThanked'] as const;

// ---- commands -----------------------------------------------------------------------------------------

export interface SendCareAction {
  type: 'SendCareAction';
  careActionId: string;
  groupId: string;
  senderId: string;
  recipientId: string;
  kind: unknown;
  message: unknown;
  /** Read from billing by the handler. */
  senderIsPremium: boolean;
  /** The group's current members, or null when there is no such group. */
  groupMemberIds: readonly string[] | null;
  /** false when the recipient declined care actions (their settings). */
  recipientAcceptsCare: boolean;
  /** When care was sent within the last CARE_LIMITS.windowMs (ISO times), as read by the handler. */
  recent: RecentCare;
  at: Date;
  /**
   * The client's Idempotency-Key, from which the handler made `careActionId` (http/idempotency-key.ts): a retry of
   * the same send meets the care action it sent, and sends nothing more (a second bouquet, a place of the limits).
   */
  idempotencyKey?: string;
}

export interface RecentCare {
  bySender: readonly string[];
  bySenderToRecipient: readonly string[];
  toRecipient: readonly string[];
}

/**
 * The limit `sentAt` (the times of care within the window) has reached, as a 429 whose Retry-After is when the
 * window frees a place; null when there is room.
 */
function limitReached(sentAt: readonly string[], limit: number, code: ErrorCode, message: string, at: Date): LimitReachedError | null {
  const inWindow = sentAt.map((t) => Date.parse(t)).filter((t) => at.getTime() - t < CARE_LIMITS.windowMs).sort((a, b) => a - b);
  if (inWindow.length < limit) return null;
  const freesAt = inWindow[inWindow.length - limit] + CARE_LIMITS.windowMs;
  return new LimitReachedError(code, message, Math.max(1, Math.ceil((freesAt - at.getTime()) / 1000)));
}

export interface FulfilCareAction {
  type: 'FulfilCareAction';
  careActionId: string;
  orderId: string;
  at: Date;
}

/** The recipient says thanks; `userId` is whoever asks (anyone else is told there is no such care action). */
export interface ThankCareAction {
  type: 'ThankCareAction';
  careActionId: string;
  userId: string;
  at: Date;
}

/** The fulfilment reactor found, before ordering, that the care action must not go out. */
export interface CancelCareAction {
  type: 'CancelCareAction';
  careActionId: string;
  reason: CareCancelReason;
  at: Date;
}

export type CareCommand = SendCareAction | FulfilCareAction | CancelCareAction | ThankCareAction;

/** What the fulfilment reactor reads, just before ordering, of the two people and the group (their streams). */
export interface CareFacts {
  recipient: { deleted: boolean; acceptsCare: boolean; inGroup: boolean };
  sender: { deleted: boolean; inGroup: boolean };
  groupDeleted: boolean;
}

/**
 * Why a care action must not be ordered now, or null when it may: the rules of sending, looked at again when the
 * order is placed (which may be long after sending when the partner was down). An account deleted comes first:
 * nothing more of a deleted account's goes out, and nothing goes to one.
 */
export function cancelReasonFor(facts: CareFacts): CareCancelReason | null {
  if (facts.recipient.deleted || facts.sender.deleted) return 'account_deleted';
  if (facts.groupDeleted || !facts.recipient.inGroup || !facts.sender.inGroup) return 'left_group';
  if (!facts.recipient.acceptsCare) return 'recipient_declined';
  return null;
}

/** Whether a send asks for the care action already sent: same sender, group, recipient, kind and message. */
function sameSend(sent: CareActionSent['data'], command: SendCareAction): boolean {
  const { kind, message } = careDetails(command.kind, command.message);
  return sent.senderId === command.senderId && sent.groupId === command.groupId && sent.recipientId === command.recipientId && sent.kind === kind && sent.message === message;
}

/** `thankedAt`: when the recipient said thanks (independent of the fulfilment, which may come before or after). */
export type CareState =
  | { status: 'none' }
  | { status: 'sent'; sent: CareActionSent['data']; thankedAt?: string }
  | { status: 'fulfilled'; sent: CareActionSent['data']; orderId: string; thankedAt?: string }
  | { status: 'cancelled'; sent: CareActionSent['data']; reason: CareCancelReason; thankedAt?: string };

function thank(command: ThankCareAction, state: CareState): CareEvent[] {
  // Another person's care action answers as if it did not exist (the sender's too: only the recipient thanks); so
  // does a cancelled one, which the recipient's list leaves out.
  if (state.status === 'none' || state.status === 'cancelled' || state.sent.recipientId !== command.userId) throw new DomainError('care.not_found', CARE_MESSAGES.notFound);
  if (state.thankedAt) throw new DomainError('care.already_thanked', CARE_MESSAGES.alreadyThanked);
  return [{ type: 'CareActionThanked', data: { careActionId: command.careActionId, recipientId: command.userId, thankedAt: command.at.toISOString() } }];
}

export const careDecider: Decider<CareState, CareCommand, CareEvent> = {
  initialState: { status: 'none' },
  evolve(state, event) {
    if (event.type === 'CareActionSent') return { status: 'sent', sent: event.data };
    if (state.status === 'none') return state;
    if (event.type === 'CareActionFulfilled') return { sent: state.sent, thankedAt: state.thankedAt, status: 'fulfilled', orderId: event.data.orderId };
    if (event.type === 'CareActionCancelled') return { sent: state.sent, thankedAt: state.thankedAt, status: 'cancelled', reason: event.data.reason };
    if (event.type === 'CareActionThanked') return { ...state, thankedAt: event.data.thankedAt };
    return state;
  },
  decide(command, state) {
    if (command.type === 'ThankCareAction') return thank(command, state);
    if (command.type === 'FulfilCareAction') {
      if (state.status === 'none') throw new DomainError('care.not_found', CARE_MESSAGES.notFound);
      // Already fulfilled (a redelivered job, a retry after a crash) or cancelled: nothing new to record.
      if (state.status === 'fulfilled' || state.status === 'cancelled') return [];
      return [{ type: 'CareActionFulfilled', data: { careActionId: command.careActionId, orderId: command.orderId, fulfilledAt: command.at.toISOString() } }];
    }
    if (command.type === 'CancelCareAction') {
      if (state.status === 'none') throw new DomainError('care.not_found', CARE_MESSAGES.notFound);
      // Ordered already (too late to cancel) or cancelled already (a redelivery): nothing new to record.
      if (state.status !== 'sent') return [];
      return [{ type: 'CareActionCancelled', data: { careActionId: command.careActionId, reason: command.reason, cancelledAt: command.at.toISOString() } }];
    }
    if (state.status !== 'none') {
      if (command.idempotencyKey === undefined) throw new DomainError('care.already_sent', CARE_MESSAGES.alreadySent);
      // The same send again (its answer was lost): nothing more, whatever the limits say now.
      if (sameSend(state.sent, command)) return [];
      throw new DomainError('care.idempotency_key_reused', CARE_MESSAGES.keyReused);
    }
    const details = careDetails(command.kind, command.message);
    if (!command.senderIsPremium) throw new DomainError('plan.premium_required', CARE_MESSAGES.premiumOnly);
    // A group the sender is not in answers as if it did not exist (as the group routes do).
    if (!command.groupMemberIds?.includes(command.senderId)) throw new DomainError('group.not_found', CARE_MESSAGES.groupNotFound);
    if (command.recipientId === command.senderId) throw new DomainError('care.to_self', CARE_MESSAGES.toSelf);
    if (!command.groupMemberIds.includes(command.recipientId)) throw new DomainError('care.recipient_not_member', CARE_MESSAGES.recipientNotMember);
    if (!command.recipientAcceptsCare) throw new DomainError('care.declined', CARE_MESSAGES.declined);
    const limited =
      limitReached(command.recent.bySenderToRecipient, CARE_LIMITS.perPair, 'care.pair_limit', CARE_MESSAGES.pairLimit, command.at) ??
      limitReached(command.recent.bySender, CARE_LIMITS.perSender, 'care.sender_limit', CARE_MESSAGES.senderLimit, command.at) ??
      limitReached(command.recent.toRecipient, CARE_LIMITS.perRecipient, 'care.recipient_limit', CARE_MESSAGES.recipientLimit, command.at);
    if (limited) throw limited;
    return [
      {
        type: 'CareActionSent',
        data: {
          careActionId: command.careActionId,
          groupId: command.groupId,
          senderId: command.senderId,
          recipientId: command.recipientId,
          ...details,
          sentAt: command.at.toISOString(),
        },
      },
    ];
  },
};
