import { startAppProcess } from './bench/app-process';
import { runSignInFlow } from './identity/dev-sign-in-client';

jest.setTimeout(60_000); // three starts of the built app on a busy machine

/** The built app as a server runs it (`NODE_ENV=production node backend/dist/main.js`): needs `npm run build`. */
describe('a production start', () => {
  it('refuses a weak SESSION_SECRET with a message naming it, and does not listen', async () => {
    await expect(startAppProcess({ NODE_ENV: 'production', SESSION_SECRET: 'change-me-to-a-long-random-string', AUTH_DEV_LOGIN: '0', BILLING_SANDBOX: '0' })).rejects.toThrow(
      /The app exited at start[\s\S]*Joy refuses to start: SESSION_SECRET is a well-known placeholder/,
    );
    await expect(startAppProcess({ NODE_ENV: 'production', SESSION_SECRET: 'short', AUTH_DEV_LOGIN: '0', BILLING_SANDBOX: '0' })).rejects.toThrow(
      /SESSION_SECRET is shorter than 32 characters/,
    );
  });

  it.each([
    ['a Redis that does not answer', { REDIS_URL: 'redis://127.0.0.1:1' }, 'Joy refuses to start: Cannot use Redis at 127.0.0.1:1 (REDIS_URL): connect ECONNREFUSED 127.0.0.1:1. Check that Redis is running and that REDIS_URL names it.'],
    // The client's parser would print the URL whole, password included: the message names the setting instead.
    ['an EVENTSTORE_URL its client cannot read', { EVENTSTORE_URL: 'esdb://admin:Sup3rSecretPw@127.0.0.1:abc' }, 'Joy refuses to start: EVENTSTORE_URL cannot be read: Unexpected "abc" at position 37, expected port number.'],
  ])('refuses %s at once, naming the setting, and never writes its password', async (_what, env, message) => {
    const started = Date.now();
    const refusal = await startAppProcess({ NODE_ENV: 'production', ...env }).then(
      () => null,
      (err: Error) => err.message,
    );
    expect(refusal).toContain(message);
    expect(refusal).not.toMatch(/Sup3r|Unhandled error event/);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('with no opt-in: no warning, no Demo banner, and the log says where to sign in and that sign-up is open', async () => {
    const app = await startAppProcess({ NODE_ENV: 'production', AUTH_DEV_LOGIN: '0', BILLING_SANDBOX: '0' });
    try {
      expect(await (await fetch(`${app.baseUrl}/api/install`)).json()).toEqual({ demo: false, optIns: [] });
      expect(app.output()).toContain(`Sign in at ${app.baseUrl}/`);
      expect(app.output()).toContain('sign-up is open');
      expect(app.output()).not.toMatch(/AUTH_DEV_LOGIN|BILLING_SANDBOX/);
      expect((await runSignInFlow(app.baseUrl, 'signin', { email: 'nobody@example.com', password: 'wrong-password-1' })).html).not.toContain('class="demo"');
    } finally {
      await app.destroy();
    }
  });

  it('with AUTH_DEV_LOGIN=1 and BILLING_SANDBOX=1 (a demo install): a warning naming each at every start, and the Demo banner', async () => {
    const app = await startAppProcess({ NODE_ENV: 'production', AUTH_DEV_LOGIN: '1', BILLING_SANDBOX: '1', SIGNUP: 'closed' });
    try {
      const warnings = () => app.output().split('\n').filter((line) => line.includes('WARN'));
      expect(warnings().some((l) => l.includes('AUTH_DEV_LOGIN=1 in production'))).toBe(true);
      expect(warnings().some((l) => l.includes('BILLING_SANDBOX=1 in production'))).toBe(true);
      expect(app.output()).toContain('sign-up is closed');
      expect(await (await fetch(`${app.baseUrl}/api/install`)).json()).toEqual({ demo: true, optIns: ['AUTH_DEV_LOGIN', 'BILLING_SANDBOX'] });
      // The sign-in pages say so too.
      const signInPage = await runSignInFlow(app.baseUrl, 'login', { email: 'not-an-email' });
      expect(signInPage.html).toContain('class="demo" role="note">Demo');
      await app.stop();
      await app.start();
      expect(warnings().some((l) => l.includes('AUTH_DEV_LOGIN=1 in production'))).toBe(true);
    } finally {
      await app.destroy();
    }
  });

  it('behind https without TRUST_PROXY: a warning naming TRUST_PROXY; with it, none', async () => {
    const without = await startAppProcess({ NODE_ENV: 'production', PUBLIC_URL: 'https://joy.example', AUTH_DEV_LOGIN: '0', BILLING_SANDBOX: '0' });
    try {
      expect(without.output()).toContain('PUBLIC_URL is https but TRUST_PROXY is unset');
    } finally {
      await without.destroy();
    }
    const behind = await startAppProcess({ NODE_ENV: 'production', PUBLIC_URL: 'https://joy.example', TRUST_PROXY: '1', AUTH_DEV_LOGIN: '0', BILLING_SANDBOX: '0' });
    try {
      expect(behind.output()).not.toContain('TRUST_PROXY');
    } finally {
      await behind.destroy();
    }
  });
});
