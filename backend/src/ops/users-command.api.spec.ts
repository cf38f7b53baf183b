import { runSignInFlow, signInWithPassword, signUp } from '../identity/dev-sign-in-client';
import { api, startTestApp, TestApp } from '../testing/app-harness';
import { waitUntil } from '../testing/wait';
import type { CliIo } from './cli-io';
import { runUsers } from './users-command';

const OLD = 'lantern-orchard-meadow-7';
const NEW = 'copper-willow-station-41';

/** Runs `npm run users -- <argv>` against the app's data, beside the running app. */
async function users(app: TestApp, ...argv: string[]) {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => void (out += t), err: (t) => void (err += t), env: { DATA_DIR: app.config.dataDir, PUBLIC_URL: app.baseUrl } };
  const code = await runUsers(argv, io);
  return { code, out, err };
}

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

describe('npm run users (beside a running app without payments or opt-ins)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ AUTH_DEV_LOGIN: '0', BILLING_SANDBOX: '0' });
  });
  afterAll(() => app.destroy());

  it('reset-password prints a one-time link; the new password signs in, the old one and the used link no longer work', async () => {
    const email = 'oddny.resetter@example.com';
    // Whoever signed up with the address holds a session (e-mails are not verified): the reset must end it.
    const squatter = await signUp(app.baseUrl, { firstName: 'Oddny', email, password: OLD });
    expect((await api(app.baseUrl, squatter).get('/api/auth/user')).status).toBe(200);
    const { code, out } = await users(app, 'reset-password', 'Oddny.Resetter@example.com');
    expect(code).toBe(0);
    const link = out.match(/http\S+\/oidc\/reset\/\S+/)![0];
    expect(link.startsWith(`${app.baseUrl}/oidc/reset/`)).toBe(true);

    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('>New password</label>');
    const weak = await fetch(link, form({ password: 'password12345', confirm: 'password12345' }));
    expect(weak.status).toBe(400);
    expect(await weak.text()).toContain('too common');
    const done = await fetch(link, form({ password: NEW, confirm: NEW }));
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Password changed');
    expect((await api(app.baseUrl, squatter).get('/api/auth/user')).status).toBe(401);

    expect((await fetch(link)).status).toBe(404);
    expect((await fetch(link, form({ password: 'another-new-password-9', confirm: 'another-new-password-9' }))).status).toBe(404);
    expect((await signInWithPassword(app.baseUrl, email, OLD)).status).toBe(401);
    expect((await signInWithPassword(app.baseUrl, email, NEW)).cookie).not.toBeNull();
  });

  it('a sign-in whose form was sent with the old password before the reset signs nobody in when its last step is followed after', async () => {
    const email = 'ingrid.midflight@example.com';
    await signUp(app.baseUrl, { firstName: 'Ingrid', email, password: OLD });
    const reset = async () => {
      const link = (await users(app, 'reset-password', email)).out.match(/http\S+\/oidc\/reset\/\S+/)![0];
      expect((await fetch(link, form({ password: NEW, confirm: NEW }))).status).toBe(200);
    };
    // The old password is accepted (303 on to the provider), then the owner resets it, then the redirects are followed.
    const late = await runSignInFlow(app.baseUrl, 'signin', { email, password: OLD }, { afterForm: reset });
    expect(late.status).toBe(303);
    expect(late.cookie).toBeNull();
    // The new password signs in as ever.
    expect((await signInWithPassword(app.baseUrl, email, NEW)).cookie).not.toBeNull();
  });

  it('reset-password of an unknown e-mail prints no link and fails', async () => {
    const { code, out, err } = await users(app, 'reset-password', 'nobody@example.com');
    expect(code).toBe(1);
    expect(out).toBe('');
    expect(err).toContain('No account of the built-in sign-in has the e-mail nobody@example.com');
  });

  it('grant-premium gives Joy Premium for 12 months, seen by the running app; a second grant is refused', async () => {
    const email = 'premium.gift@example.com';
    const cookie = await signUp(app.baseUrl, { firstName: 'Gift', email, password: OLD });
    expect((await api(app.baseUrl, cookie).get('/api/subscription-status')).body.isPremium).toBe(false);

    const { code, out } = await users(app, 'grant-premium', email);
    expect(code).toBe(0);
    expect(out).toMatch(/Joy Premium granted to premium\.gift@example\.com until \d{4}-\d{2}-\d{2}/);
    let status = (await api(app.baseUrl, cookie).get('/api/subscription-status')).body;
    // The command writes to the store; the running app's projection catches up on its own.
    await waitUntil(async () => (status = (await api(app.baseUrl, cookie).get('/api/subscription-status')).body).isPremium, 5000, 50);
    expect(status).toMatchObject({ isPremium: true, status: 'canceling', cancelAtPeriodEnd: true });
    const months = (Date.parse(status.currentPeriodEnd) - Date.now()) / (30.4 * 24 * 3600 * 1000);
    expect(months).toBeGreaterThan(11.5);
    expect(months).toBeLessThan(12.5);

    const again = await users(app, 'grant-premium', email);
    expect(again.code).toBe(1);
    expect(again.err).toContain('This person has Joy Premium already.');
  });

  it('grant-premium refuses an unknown e-mail and a bad --months, naming them', async () => {
    expect((await users(app, 'grant-premium', 'never.signed.in@example.com')).err).toContain('Nobody has signed in to Joy with the e-mail never.signed.in@example.com');
    const bad = await users(app, 'grant-premium', 'premium.gift@example.com', '--months', 'lots');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--months must be a whole number from 1 to 120');
  });
});
