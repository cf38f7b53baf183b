/** What each plan allows. */

/** A free member may belong to at most this many groups; Joy Premium has no limit. */
export const FREE_PLAN_GROUP_LIMIT = 3;

/** What a free member at the limit is told (PRODUCT.md's text), by the server's refusal and by the app before it. */
export const FREE_PLAN_GROUP_LIMIT_MESSAGE = `Free plan allows up to ${FREE_PLAN_GROUP_LIMIT} groups. Upgrade to Joy Premium for unlimited groups.`;

/** Joy Premium's one price. */
export const PREMIUM_PRICE = { amountCents: 499, currency: 'usd', interval: 'month', lookupKey: 'joy_premium_monthly' } as const;

/** The price as the Subscribe page shows it. */
export const PREMIUM_PRICE_LABEL = { amount: '$4.99', period: 'per month' } as const;
