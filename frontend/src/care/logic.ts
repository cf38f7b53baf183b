/**
 * Pure logic of care actions (Joy Premium): the kinds and their labels, the toasts, and how a received care
 * action is told. No React, no I/O: tested in logic.test.ts.
 */
import type { ToastInput } from '../lib/toast';

export const CARE_KINDS = ['flowers', 'handwritten_card', 'digital_gift_card', 'care_package'] as const;
export type CareKind = (typeof CARE_KINDS)[number];

export const CARE_KIND_LABELS: Record<CareKind, string> = {
  flowers: 'Flowers',
  handwritten_card: 'Handwritten card',
  digital_gift_card: 'Digital gift card',
  care_package: 'Care package',
};

/** A line under each kind in the dialog. */
export const CARE_KIND_HINTS: Record<CareKind, string> = {
  flowers: 'A fresh bouquet delivered to their door',
  handwritten_card: 'Your words, written out on a card',
  digital_gift_card: 'A gift card sent by e-mail',
  care_package: 'A box of small comforts',
};

export const CARE_MESSAGE_MAX = 500;

export type CareStatus = 'sent' | 'fulfilled';

/** POST /api/care-actions answers this. */
export interface CareAction {
  id: string;
  groupId: string;
  senderId: string;
  recipientId: string;
  kind: CareKind;
  message: string | null;
  sentAt: string;
  status: CareStatus;
}

/** GET /api/care-actions/received. */
export interface ReceivedCareAction {
  id: string;
  groupId: string;
  senderId: string;
  senderFirstName: string | null;
  kind: CareKind;
  message: string | null;
  sentAt: string;
  status: CareStatus;
}

/** GET /api/groups/:id/care-suggestions: other members whose latest overall score is below 3. */
export interface CareSuggestion {
  userId: string;
  firstName: string | null;
  latestScore: number;
}

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

/** The message as sent: trimmed, and none when blank. */
export function careMessage(text: string): string | undefined {
  const trimmed = text.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** Who sent it: the first name, else "A member of your group". */
export function senderName(care: Pick<ReceivedCareAction, 'senderFirstName'>): string {
  return care.senderFirstName?.trim() || 'A member of your group';
}

/** "Flowers from Ada". */
export function receivedTitle(care: Pick<ReceivedCareAction, 'kind' | 'senderFirstName'>): string {
  return `${kindLabel(care.kind)} from ${senderName(care)}`;
}

/** "Mar 7, 2026" (today and yesterday by name), in the browser's time zone. */
export function receivedWhen(iso: string, now = new Date()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const day = (d: Date) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  const days = Math.round((day(now) - day(date)) / 86_400_000);
  if (days === 0) return 'Today';
  if (days === 1) return 'Yesterday';
  return date.toLocaleDateString(undefined, { dateStyle: 'medium' });
}

/** "On its way" until the order is placed, then "Delivered". */
export function statusText(status: CareStatus): string {
  return status === 'fulfilled' ? 'Delivered' : 'On its way';
}
