import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, optIns } from './config';

describe('loadConfig: safe by default', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'joy-config-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));
  const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: dataDir, ...env });

  it('turns on no development convenience unless asked: no password-less form, no sandbox checkout', () => {
    const config = load({});
    expect(config.devLogin).toBe(false);
    expect(config.billing).toEqual({ provider: 'none' });
    expect(optIns(config)).toEqual([]);
    expect(config.signup).toBe('open');
    expect(config.trustProxy).toBe(false);
  });

  it('turns them on with AUTH_DEV_LOGIN=1 and BILLING_SANDBOX=1, in production too (a demo install)', () => {
    const config = load({ NODE_ENV: 'production', AUTH_DEV_LOGIN: '1', BILLING_SANDBOX: '1' });
    expect(config.devLogin).toBe(true);
    expect(config.billing).toEqual({ provider: 'sandbox' });
    expect(optIns(config)).toEqual(['AUTH_DEV_LOGIN', 'BILLING_SANDBOX']);
  });

  it.each([
    [{ AUTH_DEV_LOGIN: 'yes' }, 'AUTH_DEV_LOGIN must be 1 (on) or 0 (off), got yes'],
    [{ BILLING_SANDBOX: 'true' }, 'BILLING_SANDBOX must be 1 (on) or 0 (off), got true'],
    [{ SIGNUP: 'invite' }, 'SIGNUP must be open or closed, got invite'],
    [{ TRUST_PROXY: 'true' }, 'TRUST_PROXY=true'],
    [{ REDIS_PREFIX: 'joy:prod' }, "REDIS_PREFIX must be 1 to 64 letters, digits, '_', '.' or '-', got joy:prod"],
    [{ BILLING_SANDBOX: '1', STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_PUBLISHABLE_KEY: 'pk', STRIPE_WEBHOOK_SECRET: 'wh' }, 'BILLING_SANDBOX=1 and STRIPE_SECRET_KEY are both set'],
  ])('refuses %o, naming the variable', (env, message) => {
    expect(() => load(env)).toThrow(message);
  });

  it('prefixes Redis keys with joy unless REDIS_PREFIX names another prefix (installs sharing a Redis)', () => {
    expect(load({}).redisPrefix).toBe('joy');
    expect(load({ REDIS_PREFIX: 'joy-staging' }).redisPrefix).toBe('joy-staging');
  });

  it('reads TRUST_PROXY as hops or addresses', () => {
    expect(load({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(load({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).toBe('loopback, 10.0.0.0/8');
    expect(load({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
  });

  it.each([
    ['too short', 'abc123'],
    ['the old compose default', 'change-me-to-a-long-random-string'],
    ['a placeholder', 'your-session-secret-goes-here-please-1234'],
    ['one character repeated', 'a'.repeat(64)],
  ])('refuses a weak SESSION_SECRET (%s) at a production start, naming SESSION_SECRET', (_why, secret) => {
    expect(() => load({ NODE_ENV: 'production', SESSION_SECRET: secret })).toThrow(/^SESSION_SECRET is (shorter than 32 characters|a well-known placeholder)/);
    // Development is let through (a local run with a quick value).
    expect(load({ SESSION_SECRET: secret }).sessionSecret).toBe(secret);
  });

  it('accepts a long random SESSION_SECRET in production, and generates one per install when unset', () => {
    const strong = 'k3Jd9fQ0zL7wXbV2mN8pR4tY6uA1sE5h';
    expect(load({ NODE_ENV: 'production', SESSION_SECRET: strong }).sessionSecret).toBe(strong);
    const generated = load({ NODE_ENV: 'production' }).sessionSecret;
    expect(generated).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(join(dataDir, 'session-secret'), 'utf8').trim()).toBe(generated);
    const other = mkdtempSync(join(tmpdir(), 'joy-config-'));
    try {
      expect(loadConfig({ DATA_DIR: other }).sessionSecret).not.toBe(generated);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
