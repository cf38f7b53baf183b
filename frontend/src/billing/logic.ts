/** Joy Premium in the browser: the pure rules of the Subscribe and Account pages (the API's shapes are in @joy/domain). */
import { parseApiError } from '../lib/apiError';
import { type CreateSubscriptionResponse, FREE_PLAN_GROUP_LIMIT, PREMIUM_PRICE_LABEL, type SubscriptionStatusView } from '@joy/domain';
import { formatDate } from '../lib/dates';

export const SANDBOX_TEST_CARD = '4242 4242 4242 4242';
export const SANDBOX_DECLINED_CARD = '4000 0000 0000 0002';

/** What the Subscribe page does with the answer of POST /api/create-subscription (SPEC §4). */
export function subscribeOutcome(response: CreateSubscriptionResponse | undefined): { kind: 'pay'; clientSecret: string } | { kind: 'already-subscribed' } {
  const secret = response?.clientSecret;
  return typeof secret === 'string' && secret !== '' ? { kind: 'pay', clientSecret: secret } : { kind: 'already-subscribed' };
}

/**
 * The payment provider's message from an API error ("400: {json}" per SPEC §8): the answer's `message`, else
 * the text after the status; a network failure keeps its own message.
 */
export function providerMessage(error: unknown): string {
  const fallback = 'Your payment could not be processed. Please try again.';
  if (!(error instanceof Error)) return fallback;
  const { status, message } = parseApiError(error);
  if (status === null) return error.message || fallback;
  return message || fallback;
}

/** "4242424242424242" → "4242 4242 4242 4242" (digits only, at most 19). */
export function formatCardNumber(input: string): string {
  const digits = input.replace(/\D/g, '').slice(0, 19);
  return digits.replace(/(\d{4})(?=\d)/g, '$1 ');
}

/** "1240" → "12 / 40": month and year as they are typed. */
export function formatExpiry(input: string): string {
  const digits = input.replace(/\D/g, '').slice(0, 4);
  if (digits.length <= 2) return digits;
  return `${digits.slice(0, 2)} / ${digits.slice(2)}`;
}

export function formatCvc(input: string): string {
  return input.replace(/\D/g, '').slice(0, 4);
}

/** A plan's date, as every date in Joy (lib/dates): "Dec 20, 2026". */
export function formatPlanDate(iso: string | null, locale?: string): string {
  return iso ? formatDate(iso, { locale }) : '';
}

export interface PlanSummary {
  name: 'Free' | 'Joy Premium';
  /** "Renews on …", "Ends on …", "Given until …", "Paused since …", "Ended on …", or null. */
  dateLine: string | null;
  detail: string;
  /** The operator's grant: nobody subscribed or cancelled, so there is no Cancel or Resume, and no "canceled". */
  granted: boolean;
  /** What subscribing does for this plan, where payments are set up (a grant: Premium goes on after it); else null. */
  upgradeNote: string | null;
  /** The label of the link to /subscribe. */
  upgradeLabel: string;
  /** Premium is paused until a payment goes through: the billing portal is the way on (Stripe's unpaid or paused). */
  needsPayment: boolean;
  canCancel: boolean;
  /** Canceled but not ended yet: the cancellation can be taken back. */
  canResume: boolean;
  canUpgrade: boolean;
}

/** What happened to a lapsed plan, and what to do. */
export const LAPSED_MESSAGE =
  'Your last payment did not go through, so Joy Premium is paused. Update your card in the billing portal to continue: Joy Premium comes back as soon as the payment goes through.';

/** What the Account page shows for a status. */
export function planSummary(status: SubscriptionStatusView | undefined, locale?: string): PlanSummary {
  const date = formatPlanDate(status?.currentPeriodEnd ?? null, locale);
  const plain = { granted: false, upgradeNote: null, upgradeLabel: 'Upgrade to Joy Premium' };
  if (status?.granted && status.isPremium) {
    // The server answers it as canceling (it ends by itself), but nobody cancelled anything: never "Resume it".
    return {
      name: 'Joy Premium',
      dateLine: date ? `Given until ${date}` : null,
      detail: `Joy Premium, given by the person who runs this install${date ? `, until ${date}` : ''}. Nothing is charged for it, and it ends by itself.`,
      granted: true,
      upgradeNote: `To keep Joy Premium after that, subscribe before then: you pay ${PREMIUM_PRICE_LABEL.amount} ${PREMIUM_PRICE_LABEL.period} from ${date || 'that day'} on, nothing for the days given.`,
      upgradeLabel: date ? `Keep Joy Premium after ${date}` : 'Keep Joy Premium after that',
      needsPayment: false,
      canCancel: false,
      canResume: false,
      canUpgrade: true,
    };
  }
  switch (status?.status) {
    case 'active':
      return {
        ...plain,
        name: 'Joy Premium',
        dateLine: date ? `Renews on ${date}` : null,
        detail: `${PREMIUM_PRICE_LABEL.amount} ${PREMIUM_PRICE_LABEL.period}. Care Actions, unlimited groups and advanced analytics are yours.`,
        needsPayment: false,
        canCancel: true,
        canResume: false,
        canUpgrade: false,
      };
    case 'canceling':
      return {
        ...plain,
        name: 'Joy Premium',
        dateLine: date ? `Ends on ${date}` : null,
        detail: 'Your subscription is canceled and will not renew. You keep every premium feature until then; after that you move to the free plan. Changed your mind? Resume it before then.',
        needsPayment: false,
        canCancel: false,
        canResume: true,
        canUpgrade: false,
      };
    case 'lapsed':
      // Not ended: paying (or resuming) the same subscription brings Premium back, so no Upgrade to a second one.
      return {
        ...plain,
        name: 'Joy Premium',
        dateLine: date ? `Paused since ${date}` : null,
        detail: `${LAPSED_MESSAGE} Until then the free plan applies: up to ${FREE_PLAN_GROUP_LIMIT} groups and no Care Actions.`,
        needsPayment: true,
        canCancel: false,
        canResume: false,
        canUpgrade: false,
      };
    case 'ended':
      return {
        ...plain,
        name: 'Free',
        dateLine: date ? `Joy Premium ended on ${date}` : null,
        detail: 'Up to 3 groups. Upgrade again for Care Actions, unlimited groups and advanced analytics.',
        needsPayment: false,
        canCancel: false,
        canResume: false,
        canUpgrade: true,
      };
    default:
      return {
        ...plain,
        name: 'Free',
        dateLine: null,
        detail: 'Up to 3 groups. Upgrade for Care Actions, unlimited groups and advanced analytics.',
        needsPayment: false,
        canCancel: false,
        canResume: false,
        canUpgrade: true,
      };
  }
}

/** The confirmation dialog's explanation of a cancellation at the period end. */
export function cancellationExplanation(status: SubscriptionStatusView | undefined, locale?: string): string {
  const date = formatPlanDate(status?.currentPeriodEnd ?? null, locale);
  const until = date ? `until the end of your current billing period, on ${date}` : 'until the end of your current billing period';
  return `Joy Premium stays active ${until}, and you will not be charged again. After that you move to the free plan: no Care Actions or Advanced Analytics, up to ${FREE_PLAN_GROUP_LIMIT} groups, and Insights shows your last 30 days.`;
}
