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
    ['no endpoint', { keys: keysOf }, 'endpoint', 'endpoint is required'],
    ['a number as endpoint', { endpoint: 5, keys: keysOf }, 'endpoint', 'endpoint must be an https URL of a push service'],
    ['a long endpoint', { endpoint: `https://8.8.8.8/${'x'.repeat(2048)}`, keys: keysOf }, 'endpoint', 'endpoint must be at most 2048 characters'],
    ['no keys', { endpoint: 'https://8.8.8.8/push/x' }, 'keys', 'keys must hold p256dh and auth'],
    ['a short p256dh', { endpoint: 'https://8.8.8.8/push/x', keys: { ...keysOf, p256dh: 'abc' } }, 'keys.p256dh', null],
    ['a missing auth', { endpoint: 'https://8.8.8.8/push/x', keys: { p256dh: keysOf.p256dh } }, 'keys.auth', null],
    ['an unknown field', { endpoint: 'https://8.8.8.8/push/x', keys: keysOf, admin: true }, 'admin', 'admin is not an accepted field'],
  ])('refuses %s, naming the field', async (_label, body, field, message) => {
    const error = await apiValidationPipe()
      .transform(body, { type: 'body', metatype: SubscribePushDto })
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('request.invalid');
    expect((error as DomainError).errors![0].field).toBe(field);
    if (message) expect((error as DomainError).message).toBe(message);
  });

  it('says what keys must hold for an array of them, in its own words only (not the validator\'s "nested property")', async () => {
    const error = (await apiValidationPipe()
      .transform({ endpoint: 'https://8.8.8.8/push/x', keys: [1] }, { type: 'body', metatype: SubscribePushDto })
      .catch((err: unknown) => err)) as DomainError;
    expect(error.errors!.map((e) => e.message)).toEqual(error.errors!.map(() => 'keys must hold p256dh and auth'));
    expect(error.errors![0].field).toBe('keys');
  });

  it('accepts a subscription as browsers send it', async () => {
    const body = { endpoint: 'https://8.8.8.8/push/x', keys: keysOf, expirationTime: null };
    await expect(apiValidationPipe().transform(body, { type: 'body', metatype: SubscribePushDto })).resolves.toEqual(body);
  });
});
