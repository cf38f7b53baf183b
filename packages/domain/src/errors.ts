/*
 * Errors as kinds with stable codes. A rule that refuses a request throws a DomainError with a `code` from
 * this catalogue; the code decides the `kind`, and the HTTP edge maps only kinds to statuses (one exception
 * filter). Every API error answer is `{ statusCode, code, message, errors? }`: `message` is for people and may
 * be reworded, `code` is for programs and never changes meaning, so the browser switches on `code`.
 */

export type ErrorKind =
  | 'invalid' // the request itself is wrong: 400
  | 'unauthenticated' // nobody is signed in: 401
  | 'forbidden' // signed in, but not allowed (a plan limit, a premium feature, another site): 403
  | 'not_found' // no such thing, or not one of yours: 404
  | 'method_not_allowed' // the path exists, not with this method (`Allow` lists those it takes): 405
  | 'conflict' // the state of things refuses it now: 409
  | 'unsupported_media' // not JSON: 415
  | 'too_large' // 413
  | 'rate_limited' // 429
  | 'unavailable' // try again later: 503
  | 'internal'; // a bug: 500, never explained to the client

export const ERROR_CODES = {
  // the HTTP edge
  'request.invalid': 'invalid', // a body or query that fails validation (`errors` names the fields)
  'request.malformed_json': 'invalid',
  'request.too_large': 'too_large',
  'request.not_json': 'unsupported_media',
  'request.cross_origin': 'forbidden',
  'request.not_found': 'not_found',
  'request.method_not_allowed': 'method_not_allowed',
  'request.rate_limited': 'rate_limited',
  'auth.unauthorized': 'unauthenticated',
  'auth.unavailable': 'unavailable',
  'store.conflict': 'conflict', // another process kept changing the same thing; nothing was saved
  'store.unavailable': 'unavailable', // the event store cannot take writes; nothing was saved
  'store.outcome_unknown': 'unavailable', // sent to the event store, never answered: it may be saved (check before a new try)
  'server.busy': 'unavailable', // load shed: Retry-After says when to come back
  'server.starting': 'unavailable', // the read models are still being built at start: Retry-After says when to come back
  internal: 'internal',
  // ratings
  'rating.factor_out_of_range': 'invalid',
  'rating.idempotency_key_reused': 'conflict', // the Idempotency-Key already saved a different rating
  'rating.idempotency_key_withdrawn': 'conflict', // the Idempotency-Key saved a rating that was deleted since
  'rating.not_found': 'not_found', // no such rating, another person's, or withdrawn
  'rating.day_full': 'conflict', // the day already holds RATINGS_PER_DAY_MAX ratings
  // names and free text (groups, care messages)
  'text.not_clean': 'invalid',
  // groups
  'group.name_required': 'invalid',
  'group.name_too_long': 'invalid',
  'group.description_not_text': 'invalid',
  'group.description_too_long': 'invalid',
  'group.already_exists': 'conflict',
  'group.idempotency_key_reused': 'conflict', // the Idempotency-Key created another group, or its group is gone
  'group.not_found': 'not_found',
  'group.invite_code_required': 'invalid',
  'group.invite_not_found': 'not_found',
  'group.invite_replaced': 'not_found', // the group's owner gave it a new code since
  'group.already_member': 'conflict',
  'group.removed_by_owner': 'forbidden', // the owner removed this person while this code was the group's
  'group.owner_only': 'forbidden', // a member who is not the owner renames, removes or deletes
  'group.member_not_found': 'not_found', // removing someone who is not a member of the group
  'group.cannot_remove_self': 'invalid', // the owner leaves instead
  'group.nothing_to_change': 'invalid',
  // plans
  'plan.group_limit': 'forbidden',
  'plan.premium_required': 'forbidden',
  // billing
  'billing.card_refused': 'invalid', // declined, or a card number, expiry or security code that is not right
  'billing.checkout_stale': 'invalid',
  'billing.nothing_to_cancel': 'conflict',
  'billing.nothing_to_resume': 'conflict', // no cancellation to take back, or the period has ended
  'billing.webhook_invalid': 'invalid',
  'billing.not_set_up': 'conflict', // no Stripe keys and no sandbox on this install: no checkout opens
  'billing.already_premium': 'conflict', // an operator's grant to someone who has Joy Premium
  'billing.grant_invalid': 'invalid',
  'billing.portal_unavailable': 'conflict', // no Stripe on this install, or nothing paid through it yet
  // care
  'care.kind_invalid': 'invalid',
  'care.message_not_text': 'invalid',
  'care.message_too_long': 'invalid',
  'care.to_self': 'invalid',
  'care.recipient_not_member': 'invalid',
  'care.already_sent': 'conflict',
  'care.idempotency_key_reused': 'conflict', // the Idempotency-Key already sent a different care action
  'care.declined': 'forbidden', // the recipient does not accept care actions (their settings)
  'care.pair_limit': 'rate_limited', // Retry-After says when
  'care.sender_limit': 'rate_limited',
  'care.recipient_limit': 'rate_limited',
  'care.already_thanked': 'conflict', // the recipient said thanks for this care action before
  // settings
  'settings.nothing_to_change': 'invalid',
  // reminders (Web Push)
  'push.endpoint_refused': 'invalid', // not a public https push service (`errors` names endpoint)
  'push.subscription_not_found': 'not_found',
  'care.not_found': 'not_found',
  // accounts
  'passkey.unavailable': 'conflict', // only accounts of the built-in sign-in have passkeys here
  'passkey.not_verified': 'invalid',
  'passkey.not_found': 'not_found',
  'account.deleted': 'conflict',
  'account.not_found': 'not_found',
  'account.export_format': 'invalid',
  'account.import_incomplete': 'unavailable', // an import stopped between two writes: the earlier ones are stored
} as const satisfies Record<string, ErrorKind>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface FieldError {
  field: string;
  message: string;
}

/** The body of every API error answer. */
export interface ApiError {
  statusCode: number;
  code: ErrorCode;
  message: string;
  /** Validation failures: each field's first problem. */
  errors?: FieldError[];
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CODES, value);
}

/** A rule the request broke: a stable `code`, its `kind`, and a message a person can read. */
export class DomainError extends Error {
  readonly kind: ErrorKind;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors?: FieldError[],
  ) {
    super(message);
    this.name = 'DomainError';
    this.kind = ERROR_CODES[code];
  }
}

/** A limit that frees up later: answered 429 with `Retry-After: retryAfterSeconds`. */
export class LimitReachedError extends DomainError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(code, message);
    this.name = 'LimitReachedError';
  }
}
