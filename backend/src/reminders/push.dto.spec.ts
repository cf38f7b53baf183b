import { DomainError } from '@joy/domain';
import { apiValidationPipe } from '../http/validation';
import { SubscribePushDto } from './push.dto';

/**
 * A push subscription body through the app's own validation pipe (no app, no I/O). push.api.spec.ts keeps one such
 * refusal over HTTP (400 naming the field, nothing added).
 */
const keysOf = { p256dh: 'B'.repeat(87), auth: 'A'.repeat(22) };

describe('a push subscription body', () => {
  it.each([
    ['no endpoint', { keys: keysOf }, 'endpoint'],
    ['a number as endpoint', { endpoint: 5, keys: keysOf }, 'endpoint'],
    ['no keys', { endpoint: 'https://8.8.8.8/push/x' }, 'keys'],
    ['a short p256dh', { endpoint: 'https://8.8.8.8/push/x', keys: { ...keysOf, p256dh: 'abc' } }, 'keys.p256dh'],
    ['a missing auth', { endpoint: 'https://8.8.8.8/push/x', keys: { p256dh: keysOf.p256dh } }, 'keys.auth'],
    ['an unknown field', { endpoint: 'https://8.8.8.8/push/x', keys: keysOf, admin: true }, 'admin'],
  ])('refuses %s, naming the field', async (_label, body, field) => {
    const error = await apiValidationPipe()
      .transform(body, { type: 'body', metatype: SubscribePushDto })
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('request.invalid');
    expect((error as DomainError).errors![0].field).toBe(field);
  });

  it('accepts a subscription as browsers send it', async () => {
    const body = { endpoint: 'https://8.8.8.8/push/x', keys: keysOf, expirationTime: null };
    await expect(apiValidationPipe().transform(body, { type: 'body', metatype: SubscribePushDto })).resolves.toEqual(body);
  });
});
