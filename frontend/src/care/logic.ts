/**
 * Pure logic of care actions (Joy Premium): the kinds and their labels, the toasts, and how a received care
 * action is told. No React, no I/O: tested in logic.test.ts.
 */
import { parseApiError, withServerReason } from '../lib/apiError';
import { CARE_KIND_LABELS, type CareActionStatus, type CareKind, dayNumber, dayOf, type ReceivedCareActionView, type SentCareActionView } from '@joy/domain';
import type { ToastInput } from '../lib/toast';
import { formatDate } from '../lib/dates';

/** A line under each kind in the dialog. */
export const CARE_KIND_HINTS: Record<CareKind, string> = {
  flowers: 'A fresh bouquet of flowers',
  handwritten_card: 'Your words, written out on a card',
  digital_gift_card: 'A gift card to spend online',
  care_package: 'A box of small comforts',
};

export function kindLabel(kind: string): string {
  return CARE_KIND_LABELS[kind as CareKind] ?? 'Care action';
}

/** "Ada could use some support". */
export function suggestionText(name: string): string {
  return `${name} could use some support`;
}

/** "Care sent!" — "Bob will receive your flowers." (the label in lower case inside the sentence). */
export function careSentToast(name: string, kind: CareKind): ToastInput {
  return { title: 'Care sent!', description: `${name} will receive your ${kindLabel(kind).toLowerCase()}.`, variant: 'success' };
}

export const CARE_FAILED_TOAST: ToastInput = {
  title: 'Error',
  description: 'Failed to send care action. Please try again.',
  variant: 'destructive',
};

/** Refusals the sender can act on: the member declines care actions, or a daily limit (see Retry-After). */
const EXPLAINED_REFUSALS = new Set(['care.declined', 'care.pair_limit', 'care.sender_limit', 'care.recipient_limit']);

/**
 * The toast for a failed send: the server's own words for a refusal the sender can act on (declined, a limit), else
 * CARE_FAILED_TOAST with the server's reason when it is one (a message too long, hidden characters).
 */
export function careFailedToast(error: Error): ToastInput {
  const { code, message } = parseApiError(error);
  if (!code || !EXPLAINED_REFUSALS.has(code) || !message) return withServerReason(CARE_FAILED_TOAST, error);
  return { ...CARE_FAILED_TOAST, title: 'Care not sent', description: message };
}

/** The message as sent: trimmed, and none when blank. */
export function careMessage(text: string): string | undefined {
  const trimmed = text.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** Who sent it: the first name, else "A member of your group". */
export function senderName(care: Pick<ReceivedCareActionView, 'senderFirstName'>): string {
  return care.senderFirstName?.trim() || 'A member of your group';
}

/** "Flowers from Ada". */
export function receivedTitle(care: Pick<ReceivedCareActionView, 'kind' | 'senderFirstName'>): string {
  return `${kindLabel(care.kind)} from ${senderName(care)}`;
}

/** "Mar 7, 2026" (today and yesterday by name), in the browser's time zone. */
export function receivedWhen(iso: string, now = new Date(), timeZone?: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const days = dayNumber(dayOf(now, timeZone)!) - dayNumber(dayOf(date, timeZone)!);
  if (days === 0) return 'Today';
  if (days === 1) return 'Yesterday';
  return formatDate(date, { timeZone });
}

/**
 * "Being ordered" until the order is placed, then "Ordered"; "Not sent" when it was cancelled before ordering. Joy
 * knows that an order was placed (fulfilment is the partner's), not that it arrived: it never says "Delivered".
 */
export function statusText(status: CareActionStatus): string {
  if (status === 'cancelled') return 'Not sent';
  return status === 'fulfilled' ? 'Ordered' : 'Being ordered';
}

/** Why a care action was not sent after all (the sender's list): what changed between sending and ordering. */
export function cancelledText(care: Pick<SentCareActionView, 'cancelReason' | 'recipientFirstName'>): string {
  const name = care.recipientFirstName?.trim();
  switch (care.cancelReason) {
    case 'recipient_declined':
      return `${name ?? 'This member'} stopped accepting care actions before it could be ordered. Nothing was ordered.`;
    case 'left_group':
      return `You and ${name ?? 'this member'} no longer share the group it was sent in. Nothing was ordered.`;
    case 'account_deleted':
      return 'The account it was sent to was deleted before it could be ordered. Nothing was ordered.';
    default:
      return 'It was cancelled before it could be ordered. Nothing was ordered.';
  }
}

/** Whom it went to: the first name, else "A former member" (the account was deleted). */
export function recipientName(care: Pick<SentCareActionView, 'recipientFirstName'>): string {
  return care.recipientFirstName?.trim() || 'A former member';
}

/** "Flowers to Bob". */
export function sentTitle(care: Pick<SentCareActionView, 'kind' | 'recipientFirstName'>): string {
  return `${kindLabel(care.kind)} to ${recipientName(care)}`;
}

/** The toast after "Say thanks": the sender sees it on their Sent page. */
export function thanksSentToast(care: Pick<ReceivedCareActionView, 'senderFirstName'>): ToastInput {
  return { title: 'Thanks sent', description: `${senderName(care)} will see that you said thanks.`, variant: 'success' };
}

export const THANKS_FAILED_TOAST: ToastInput = {
  title: 'Error',
  description: 'Failed to say thanks. Please try again.',
  variant: 'destructive',
};
