import { DomainError } from '@joy/domain';
import { createHash } from 'node:crypto';

/**
 * The `Idempotency-Key` header of a request that creates something: 1–255 visible ASCII characters (a UUID, as the
 * app sends); absent, undefined. Anything else is refused naming the header.
 */
export function idempotencyKey(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (/^[\x21-\x7e]{1,255}$/.test(value)) return value;
  const message = 'Idempotency-Key must be 1 to 255 visible ASCII characters';
  throw new DomainError('request.invalid', message, [{ field: 'Idempotency-Key', message }]);
}

/**
 * The id of what one person's key creates, the same on every retry (a UUID's form, from SHA-256 of the person and
 * the key): the retry finds the stream the first request wrote instead of starting another.
 */
export function idFromKey(userId: string, key: string): string {
  const hex = createHash('sha256').update(`${userId}\n${key}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((parseInt(hex[16], 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
