import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { api, startTestApp, storedSessionCount, TestApp } from '../../testing/app-harness';
import { runSignInFlow, signInWithPassword, signUp } from '../dev-sign-in-client';

/** A real install: no development form, no sandbox (both opt-ins off). */
const REAL = { AUTH_DEV_LOGIN: '0', BILLING_SANDBOX: '0' };
const ADA = { firstName: 'Adalinde', email: 'adalinde.vorstrand@example.com', password: 'violet-harbour-kettle-92' };
const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

async function providerPage(app: TestApp, suffix = ''): Promise<{ status: number; html: string; cacheControl: string | null }> {
  // Follows /api/login to the provider's page (as a browser would, with its cookies).
  const cookies: string[] = [];
  let res = await fetch(`${app.baseUrl}/api/login`, { redirect: 'manual' });
  let location = res.headers.get('location')!;
  for (let i = 0; i < 5 && !location.includes('/interaction/'); i++) {
    cookies.push(...res.headers.getSetCookie().map((c) => c.split(';')[0]));
    res = await fetch(new URL(location, app.baseUrl), { redirect: 'manual', headers: { cookie: cookies.join('; ') } });
    location = res.headers.get('location')!;
  }
  cookies.push(...res.headers.getSetCookie().map((c) => c.split(';')[0]));
  res = await fetch(new URL(location + suffix, app.baseUrl), { headers: { cookie: cookies.join('; ') } });
  return { status: res.status, html: await res.text(), cacheControl: res.headers.get('cache-control') };
}

describe('accounts of the built-in sign-in (a real install: no opt-ins)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(REAL);
  });
  afterAll(() => app.destroy());

  // First, before anyone signs in: the store must still be empty afterwards.
  it('starts no stored session for a visitor: /api/login, the API and the provider pages leave the session store empty', async () => {
    await fetch(`${app.baseUrl}/api/login`, { redirect: 'manual' });
    await providerPage(app);
    await api(app.baseUrl).get('/api/auth/user');
    await api(app.baseUrl).get('/api/groups');
    await api(app.baseUrl).post('/api/joy-ratings', {});
    await signInWithPassword(app.baseUrl, 'nobody@example.com', 'wrong-password-here');
    // sessions.sqlite, or Redis when the suite runs on the production backends (TEST_APP_BACKENDS=env).
    expect(await storedSessionCount(app)).toBe(0);
  });
  it('shows Sign in with Email and Password, links to Create account, and has no password-less form', async () => {
    const { status, html, cacheControl } = await providerPage(app);
    expect(status).toBe(200);
    expect(cacheControl).toBe('no-store');
    expect(html).toMatch(/<label for="email">Email<\/label>/);
    expect(html).toMatch(/<label for="password">Password<\/label>/);
    expect(html).toMatch(/<button type="submit" class="primary">Sign in<\/button>/);
    expect(html).toContain('Create account');
    expect(html).not.toContain('Development sign-in');
    expect(html).toContain('autofocus');
    const dev = await runSignInFlow(app.baseUrl, 'login', { email: 'mallory@example.com', firstName: 'Mallory' });
    expect(dev.status).toBe(404);
    expect(dev.cookie).toBeNull();
  });

  it('shows Create account with First name, Email, Password and Confirm password', async () => {
    const { html } = await providerPage(app, '/signup');
    for (const label of ['First name', 'Email', 'Password', 'Confirm password']) expect(html).toContain(`>${label}</label>`);
    expect(html).toMatch(/<button type="submit" class="primary">Create account<\/button>/);
  });

  it('creates an account and signs it in: the app knows the first name and e-mail; /api/auth/user is never cached', async () => {
    const cookie = await signUp(app.baseUrl, ADA);
    const me = await api(app.baseUrl, cookie).get('/api/auth/user');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email: ADA.email, firstName: ADA.firstName });
    expect(me.headers['cache-control']).toBe('no-store');
    expect((await api(app.baseUrl, cookie).get('/api/joy-ratings')).headers['cache-control']).toBe('no-store');
  });

  it('signs in again with the password to the same account; e-mail case does not matter', async () => {
    const first = await signUp(app.baseUrl, { ...ADA, email: 'bertil.oakhaven@example.com' });
    const again = await signInWithPassword(app.baseUrl, 'Bertil.Oakhaven@Example.com ', ADA.password);
    expect(again.cookie).not.toBeNull();
    const a = await api(app.baseUrl, first).get('/api/auth/user');
    const b = await api(app.baseUrl, again.cookie!).get('/api/auth/user');
    expect(b.body.id).toBe(a.body.id);
  });

  it('answers a wrong password and an unknown e-mail alike: 401 "Wrong e-mail or password", no session', async () => {
    await signUp(app.baseUrl, { ...ADA, email: 'cyrene.malbrook@example.com' });
    const wrong = await signInWithPassword(app.baseUrl, 'cyrene.malbrook@example.com', 'not-her-password-at-all');
    const unknown = await signInWithPassword(app.baseUrl, 'nobody.here@example.com', 'not-her-password-at-all');
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.cookie).toBeNull();
      expect(text(res.html)).toContain('Wrong e-mail or password.');
    }
    // The same page but for the e-mail typed back into the form.
    expect(text(wrong.html).replace('cyrene.malbrook@example.com', 'X')).toBe(text(unknown.html).replace('nobody.here@example.com', 'X'));
  });

  it.each([
    [{ password: 'short-one', confirm: 'short-one' }, 'password', 'Password must be at least 10 characters.'],
    [{ password: 'Password123!', confirm: 'Password123!' }, 'password', 'This password is too common or easy to guess.'],
    [{ password: '1234567890', confirm: '1234567890' }, 'password', 'This password is too common or easy to guess.'],
    [{ password: 'qwertyuiopasdf', confirm: 'qwertyuiopasdf' }, 'password', 'This password is too common or easy to guess.'],
    // Both password fields come back empty: the mismatch is said at the first, where retyping starts.
    [{ confirm: 'something-else-entirely' }, 'password', 'The two passwords did not match. Type your password in both fields again.'],
    [{ email: 'not-an-email' }, 'email', 'Enter a valid e-mail address.'],
    // Another account that would look like vera@example.com in a group's members.
    [{ email: 'vera\u200B@example.com' }, 'email', 'Enter a valid e-mail address.'],
    [{ email: 'vera@exa\u00ADmple.com' }, 'email', 'Enter a valid e-mail address.'],
    [{ email: '\u202Emoc.elpmaxe@arev' }, 'email', 'Enter a valid e-mail address.'],
    [{ firstName: '' }, 'firstName', 'Enter your first name.'],
    [{ firstName: 'Eve\u202Egnp.exe' }, 'firstName', 'First name must not contain control, direction-changing or invisible characters.'],
    [{ firstName: 'Zero\u200Bwidth' }, 'firstName', 'First name must not contain control, direction-changing or invisible characters.'],
  ])('refuses a sign-up with %o: 400 naming the field, no account', async (change, fieldName, message) => {
    const fields = { firstName: 'Dagny', email: `dagny.${fieldName}.${Math.random().toString(36).slice(2)}@example.com`, password: ADA.password, confirm: ADA.password, ...change };
    const res = await runSignInFlow(app.baseUrl, 'signup', fields);
    expect(res.status).toBe(400);
    expect(res.cookie).toBeNull();
    expect(res.html).toContain(`id="${fieldName}-error"`);
    expect(res.html).toMatch(new RegExp(`id="${fieldName}"[^>]*aria-invalid="true"`));
    expect(text(res.html)).toContain(message);
    expect(app.running.infra.accounts!.idOf(fields.email)).toBeNull();
  });

  it('refuses a second account for a taken e-mail without saying whose, and signs the owner in with their own password', async () => {
    const email = 'eirlys.thornquist@example.com';
    const owner = await signUp(app.baseUrl, { ...ADA, email });
    const ownerId = (await api(app.baseUrl, owner).get('/api/auth/user')).body.id;
    const other = await runSignInFlow(app.baseUrl, 'signup', { firstName: 'Mallory', email, password: 'another-long-passphrase', confirm: 'another-long-passphrase' });
    expect(other.status).toBe(409);
    expect(other.cookie).toBeNull();
    // The focus lands on Password (the first empty field), which a screen reader reads with the form's answer.
    expect(other.html).toMatch(/<input id="password" autofocus [^>]*aria-describedby="form-error password-help"/);
    expect(text(other.html)).toContain('This account could not be created. If you already have one, sign in instead.');
    const again = await signUp(app.baseUrl, { ...ADA, email });
    expect((await api(app.baseUrl, again).get('/api/auth/user')).body).toMatchObject({ id: ownerId, firstName: ADA.firstName });
  });

  it('keeps no e-mail or name in plain text at rest: accounts.sqlite, events.sqlite, keys.sqlite', async () => {
    await signUp(app.baseUrl, { firstName: 'Quillon', email: 'quillon.farrowdale@example.com', password: ADA.password });
    const db = new Database(join(app.config.dataDir, 'accounts.sqlite'), { readonly: true });
    const rows = db.prepare('SELECT * FROM accounts').all() as Record<string, string>[];
    db.close();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.password_hash).toMatch(/^\$argon2id\$/);
      expect(row.email).toMatch(/^enc:v1:/);
      expect(row.first_name).toMatch(/^enc:v1:/);
    }
    for (const file of ['accounts.sqlite', 'events.sqlite', 'keys.sqlite', 'events.sqlite-wal']) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(join(app.config.dataDir, file));
      } catch {
        continue;
      }
      expect(bytes.includes('quillon.farrowdale')).toBe(false);
      expect(bytes.includes('Quillon')).toBe(false);
    }
  });

  it('deleting the Joy account removes the sign-in account: the password no longer works, the e-mail is free again', async () => {
    const email = 'faramond.wexley@example.com';
    const cookie = await signUp(app.baseUrl, { ...ADA, email });
    const oldId = (await api(app.baseUrl, cookie).get('/api/auth/user')).body.id;
    const accountId = app.running.infra.accounts!.idOf(email)!;
    expect((await api(app.baseUrl, cookie).delete('/api/account').send({ confirm: 'DELETE' })).status).toBe(204);

    expect(app.running.infra.accounts!.idOf(email)).toBeNull();
    expect(await app.running.infra.keys.isDestroyed(accountId)).toBe(true);
    const old = await signInWithPassword(app.baseUrl, email, ADA.password);
    expect(old.status).toBe(401);
    expect(old.cookie).toBeNull();

    const fresh = await signUp(app.baseUrl, { ...ADA, email });
    const me = (await api(app.baseUrl, fresh).get('/api/auth/user')).body;
    expect(me.id).not.toBe(oldId);
    expect(me.email).toBe(email);
  });

  it('says payments are not set up: billing config "none", and no checkout opens (409 with the reason)', async () => {
    const cookie = await signUp(app.baseUrl, { ...ADA, email: 'gunnhild.pay@example.com' });
    expect((await api(app.baseUrl, cookie).get('/api/billing/config')).body).toEqual({ provider: 'none' });
    const res = await api(app.baseUrl, cookie).post('/api/create-subscription');
    expect(res.status).toBe(409);
    expect(res.body.message).toBe('Payments are not set up on this install. Ask the person who runs it about Joy Premium.');
    expect((await api(app.baseUrl, cookie).post('/api/billing/sandbox/confirm', { clientSecret: 'x', cardNumber: '4242424242424242' })).status).toBe(404);
    // Not there at all: a body it would refuse is not checked either (it said "cardNumber is required").
    expect((await api(app.baseUrl, cookie).post('/api/billing/sandbox/confirm', { clientSecret: 'x' })).status).toBe(404);
  });

  it('tells every visitor that this install is no demo', async () => {
    expect((await api(app.baseUrl).get('/api/install')).body).toEqual({ demo: false, optIns: [] });
  });

  // The wrong passwords above are far from the address limit (20) that the last describe block reaches.
  it('throttles wrong passwords per account: after 5 wrong passwords, 429 "Too many attempts, try again in 15 minutes", even with the right one', async () => {
    const email = 'ingrid.throttle@example.com';
    await signUp(app.baseUrl, { ...ADA, email });
    for (let i = 0; i < 5; i++) expect((await signInWithPassword(app.baseUrl, email, `wrong-password-${i}`)).status).toBe(401);
    const blocked = await signInWithPassword(app.baseUrl, email, ADA.password);
    expect(blocked.status).toBe(429);
    expect(blocked.cookie).toBeNull();
    expect(text(blocked.html)).toContain('Too many attempts, try again in 15 minutes.');
    // Another account from the same address is not blocked by it.
    await signUp(app.baseUrl, { ...ADA, email: 'jorunn.ok@example.com' });
    expect((await signInWithPassword(app.baseUrl, 'jorunn.ok@example.com', ADA.password)).cookie).not.toBeNull();
  });

  it('gives guesses sent together for one account no more tries than guesses sent one after another', async () => {
    const email = 'kalinda.race@example.com';
    await signUp(app.baseUrl, { ...ADA, email });
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => signInWithPassword(app.baseUrl, email, `wrong-guess-${i}`)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
  });

  it('takes an e-mail with an accent written either way for one account (Unicode NFC)', async () => {
    const composed = 'jos\u00e9.nfc@example.com';
    const decomposed = 'jose\u0301.nfc@example.com';
    await signUp(app.baseUrl, { ...ADA, email: composed });
    const again = await signInWithPassword(app.baseUrl, decomposed, ADA.password);
    expect(again.cookie).not.toBeNull();
    const me = await api(app.baseUrl, again.cookie!).get('/api/auth/user');
    expect(me.body).toMatchObject({ email: composed });
  });
});

// One app per describe block: passport's strategy is one per process, so two apps may not live side by side.
describe('SIGNUP=closed', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ ...REAL, SIGNUP: 'closed' });
  });
  afterAll(() => app.destroy());

  it('says sign-up is closed, creates no account (403), and offers no Create account link', async () => {
    const signin = await providerPage(app);
    expect(signin.html).not.toContain('Create account');
    const page = await providerPage(app, '/signup');
    expect(text(page.html)).toContain('Sign-up is closed on this install.');
    const res = await runSignInFlow(app.baseUrl, 'signup', { firstName: 'Hedda', email: 'hedda@example.com', password: ADA.password, confirm: ADA.password });
    expect(res.status).toBe(403);
    expect(res.cookie).toBeNull();
    expect(app.running.infra.accounts!.idOf('hedda@example.com')).toBeNull();
  });
});

// An app of its own: once the address is blocked, nobody signs in from it with a password.
describe('throttling wrong passwords per address', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(REAL);
  });
  afterAll(() => app.destroy());

  it('per address: 20 wrong passwords over many e-mails block that address, whatever X-Forwarded-For it sends', async () => {
    await signUp(app.baseUrl, { ...ADA, email: 'kolfinna.real@example.com' });
    for (let i = 0; i < 20; i++) expect((await signInWithPassword(app.baseUrl, `guess${i}@example.com`, 'wrong-password-here')).status).toBe(401);
    const blocked = await signInWithPassword(app.baseUrl, 'kolfinna.real@example.com', ADA.password);
    expect(blocked.status).toBe(429);
    expect(text(blocked.html)).toMatch(/Too many attempts, try again in \d+ minutes?\./);
    // A spoofed header changes nothing: TRUST_PROXY is unset, so the socket's address counts.
    const spoofed = await spoofedSignIn(app, 'kolfinna.real@example.com', ADA.password, '203.0.113.7');
    expect(spoofed).toBe(429);
  });
});

/** A password sign-in whose form post carries an X-Forwarded-For header; answers the form's status. */
async function spoofedSignIn(app: TestApp, email: string, password: string, forwardedFor: string): Promise<number> {
  const original = globalThis.fetch;
  globalThis.fetch = ((input: RequestInfo | URL, init: RequestInit = {}) =>
    original(input, { ...init, headers: { ...(init.headers as Record<string, string>), 'x-forwarded-for': forwardedFor } })) as typeof fetch;
  try {
    return (await signInWithPassword(app.baseUrl, email, password)).status;
  } finally {
    globalThis.fetch = original;
  }
}
