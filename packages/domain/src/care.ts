/** Care actions (Joy Premium): what can be sent, and when a member is suggested for one. */

export const CARE_KINDS = ['flowers', 'handwritten_card', 'digital_gift_card', 'care_package'] as const;
export type CareKind = (typeof CARE_KINDS)[number];

export const CARE_KIND_LABELS: Record<CareKind, string> = {
  flowers: 'Flowers',
  handwritten_card: 'Handwritten card',
  digital_gift_card: 'Digital gift card',
  care_package: 'Care package',
};

export function isCareKind(value: unknown): value is CareKind {
  return typeof value === 'string' && (CARE_KINDS as readonly string[]).includes(value);
}

/**
 * Care is meant to be rare and welcome: within any 24 hours, a sender sends at most `perPair` to one member and
 * `perSender` in all, and a member receives at most `perRecipient` in all (from everyone). The server refuses past
 * them (429); a group page stops offering "Send more care" at `perPair`.
 */
export const CARE_LIMITS = { perPair: 3, perSender: 10, perRecipient: 10, windowMs: 24 * 3600 * 1000 } as const;

/** The longest message a care action may carry, in characters (after trimming). */
export const CARE_MESSAGE_MAX = 500;

/** A member whose latest overall score is below this gets a care suggestion (a product choice, not a clinical one). */
export const CARE_SUGGESTION_THRESHOLD = 3;

/** `cancelled`: not ordered, because by the time it would have been the recipient no longer accepted care, either
 * of the two had left the group (or it was deleted), or an account was deleted (see CareCancelReason). */
export type CareActionStatus = 'sent' | 'fulfilled' | 'cancelled';

export const CARE_CANCEL_REASONS = ['recipient_declined', 'left_group', 'account_deleted'] as const;
/** Why a care action was cancelled before it was ordered. */
export type CareCancelReason = (typeof CARE_CANCEL_REASONS)[number];
