import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';
import { metadataFor } from '../event-store/decider';
import { runSignInFlow } from './dev-sign-in-client';
import { SqliteSessionStore } from './sqlite-session-store';
import { IDLE_TIMEOUT_MS } from './session';
import { identityLinkStream, legacyIdentityLinkStream } from './identity.decider';

/** The form of the development sign-in, reached as a browser would; returns its URL and cookies. */
async function openSignInForm(baseUrl: string): Promise<{ url: string; cookie: string }> {
  const cookies = new Map<string, string>();
  const go = async (url: string) => {
    const res = await fetch(new URL(url, baseUrl), { redirect: 'manual', headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return res;
  };
  let res = await go('/api/login');
  for (let hops = 0; hops < 10 && res.status >= 300 && res.status < 400; hops++) {
    const next = res.headers.get('location')!;
    if (next.includes('/oidc/interaction/')) {
      await go(next);
      return { url: `${new URL(next, baseUrl).pathname}/login`, cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
    }
    res = await go(next);
  }
  throw new Error('no sign-in form');
}

/** One app for the whole file: each case signs in people of its own, and the restarts keep everyone's data. */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.destroy());

describe('sign-in over HTTP (embedded default, development provider)', () => {

  it('answers 401 Unauthorized to a signed-out caller', async () => {
    const res = await api(app.baseUrl).get('/api/auth/user');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ statusCode: 401, code: 'auth.unauthorized', message: 'Unauthorized' });
  });

  it('sends /api/login to the provider, and back through /api/callback to a signed-in session', async () => {
    const login = await api(app.baseUrl).get('/api/login');
    expect(login.status).toBe(302);
    expect(login.headers.location).toContain('/oidc/auth');
    expect(login.headers.location).toContain('scope=openid%20profile%20email');

    const cookie = await signIn(app.baseUrl, 'Ada@Example.com', 'Ada');
    const me = await api(app.baseUrl, cookie).get('/api/auth/user');
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ id: expect.any(String), email: 'ada@example.com', firstName: 'Ada', profileImageUrl: null });
  });

  // Issue 14: /api/login no longer starts a session (no stored session row for a visitor); the flow's state lives
  // in its own short-lived cookie, and the session cookie is set at the callback.
  it('sets the flow cookie at /api/login and the session cookie at the callback, both HttpOnly and SameSite=Lax', async () => {
    const login = await api(app.baseUrl).get('/api/login');
    const flowCookie = String(login.headers['set-cookie']);
    expect(flowCookie).not.toMatch(/joy\.sid=/);
    expect(flowCookie).toMatch(/joy\.oidc=.*HttpOnly/);
    expect(flowCookie).toMatch(/SameSite=Lax/);
    const { callbackSetCookie } = await runSignInFlow(app.baseUrl, 'login', { email: 'cookie@example.com', firstName: 'C' });
    const session = callbackSetCookie.find((c) => c.startsWith('joy.sid='))!;
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Lax/);
  });

  it('gives the same account at the next sign-in, with a new session id', async () => {
    const first = await signIn(app.baseUrl, 'grace@example.com', 'Grace');
    const second = await signIn(app.baseUrl, 'grace@example.com', 'Grace');
    expect(second).not.toEqual(first);
    const a = await api(app.baseUrl, first).get('/api/auth/user');
    const b = await api(app.baseUrl, second).get('/api/auth/user');
    expect(b.body.id).toEqual(a.body.id);
    const registrations = (await app.running.infra.store.readAll({ from: 0, limit: 1000 })).filter(
      (e) => e.type === 'UserRegistered' && e.data.userId === a.body.id,
    );
    expect(registrations).toHaveLength(1);
  });

  it('records a changed first name as a profile update', async () => {
    await signIn(app.baseUrl, 'kay@example.com', 'Kay');
    const cookie = await signIn(app.baseUrl, 'kay@example.com', 'Katherine');
    const me = await api(app.baseUrl, cookie).get('/api/auth/user');
    expect(me.body.firstName).toBe('Katherine');
  });

  it('shows the sign-in form again when the e-mail is not valid', async () => {
    const login = await fetch(`${app.baseUrl}/api/login`, { redirect: 'manual' });
    expect(login.status).toBe(302);
    const res = await fetch(`${app.baseUrl}/oidc/interaction/unknown/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=not-an-email&firstName=X',
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('Enter a valid e-mail address.');
  });

  it('ends the session at /api/logout', async () => {
    const cookie = await signIn(app.baseUrl, 'linus@example.com', 'Linus');
    const out = await api(app.baseUrl, cookie).get('/api/logout');
    expect(out.status).toBe(302);
    expect(out.headers.location).toBe('/');
    expect((await api(app.baseUrl, cookie).get('/api/auth/user')).status).toBe(401);
  });

  it('keeps people signed in across a restart of the app', async () => {
    const cookie = await signIn(app.baseUrl, 'margaret@example.com', 'Margaret');
    await app.stop();
    await app.restart();
    const me = await api(app.baseUrl, cookie).get('/api/auth/user');
    expect(me.status).toBe(200);
    expect(me.body.firstName).toBe('Margaret');
  });
});

describe('identity links under keyed names, and the links of installs before them', () => {

  const issuer = () => `${app.config.publicUrl}/oidc`;
  const linkEvents = async (stream: string) => (await app.running.infra.store.readStream(stream)).map((e) => ({ type: e.type, userId: e.data.userId }));

  it('names the link stream with a keyed hash: nothing in the stream names derives from the e-mail without the install key', async () => {
    const cookie = await signIn(app.baseUrl, 'keyed@example.com', 'Keyed');
    const { id } = (await api(app.baseUrl, cookie).get('/api/auth/user')).body;
    const keyed = identityLinkStream(app.running.infra.lookup, issuer(), 'keyed@example.com');
    expect(keyed).toMatch(/^identity-[\w-]{32}$/);
    expect(await linkEvents(keyed)).toEqual([{ type: 'IdentityLinked', userId: id }]);
    expect(await linkEvents(legacyIdentityLinkStream(issuer(), 'keyed@example.com'))).toEqual([]);
  });

  it('carries a person linked by an older install (identity-<sha256>) over to the keyed name; a deletion unlinks both', async () => {
    const email = 'before.keys@example.com';
    const store = app.running.infra.store;
    const userId = 'OlderInstallUser000001';
    const legacy = legacyIdentityLinkStream(issuer(), email);
    const ctx = { actorUserId: userId, now: new Date() };
    await store.appendToStream(legacy, [{ type: 'IdentityLinked', data: { userId, linkedAt: ctx.now.toISOString() }, metadata: metadataFor(ctx, 'legacy-link') }], { expectedVersion: 0 });
    const registered = { userId, issuer: issuer(), subject: email, email, firstName: 'Older', profileImageUrl: null };
    await store.appendToStream(`user-${userId}`, [{ type: 'UserRegistered', data: registered, metadata: metadataFor(ctx, 'legacy-registered') }], { expectedVersion: 0 });

    const cookie = await signIn(app.baseUrl, email, 'Older');
    expect((await api(app.baseUrl, cookie).get('/api/auth/user')).body).toMatchObject({ id: userId, email, firstName: 'Older' });
    const keyed = identityLinkStream(app.running.infra.lookup, issuer(), email);
    expect(await linkEvents(keyed)).toEqual([{ type: 'IdentityLinked', userId }]);

    expect((await api(app.baseUrl, cookie).delete('/api/account').send({ confirm: 'DELETE' })).status).toBe(204);
    expect((await linkEvents(keyed)).at(-1)).toEqual({ type: 'IdentityUnlinked', userId });
    expect((await linkEvents(legacy)).at(-1)).toEqual({ type: 'IdentityUnlinked', userId });
    const again = await signIn(app.baseUrl, email, 'Older');
    expect((await api(app.baseUrl, again).get('/api/auth/user')).body.id).not.toBe(userId);
  });
});

describe('the upgrade of identity links at start-up (embedded default)', () => {
  it('renames a live legacy link to its keyed name and drops the legacy link of a deleted account', async () => {
    const store = app.running.infra.store;
    const issuer = `${app.config.publicUrl}/oidc`;
    const ctx = { actorUserId: 'system', now: new Date() };
    const at = ctx.now.toISOString();
    // As an install before keyed hashes left them: one live person, one whose account was deleted.
    const live = { userId: 'UpgradedLiveUser000001', email: 'still.here@example.com' };
    const gone = { userId: 'UpgradedGoneUser000001', email: 'long.gone@example.com' };
    for (const p of [live, gone]) {
      await store.appendToStream(legacyIdentityLinkStream(issuer, p.email), [{ type: 'IdentityLinked', data: { userId: p.userId, linkedAt: at }, metadata: metadataFor(ctx, `link-${p.userId}`) }], { expectedVersion: 0 });
      const registered = { userId: p.userId, issuer, subject: p.email, email: p.email, firstName: 'Up', profileImageUrl: null };
      await store.appendToStream(`user-${p.userId}`, [{ type: 'UserRegistered', data: registered, metadata: metadataFor(ctx, `reg-${p.userId}`) }], { expectedVersion: 0 });
    }
    await store.appendToStream(
      legacyIdentityLinkStream(issuer, gone.email),
      [{ type: 'IdentityUnlinked', data: { userId: gone.userId, reason: 'account_deleted', unlinkedAt: at }, metadata: metadataFor(ctx, `unlink-${gone.userId}`) }],
      { expectedVersion: 1 },
    );

    await app.stop();
    await app.restart();
    const after = app.running.infra.store;
    const names = async (stream: string) => (await after.readStream(stream)).map((e) => `${e.streamVersion}:${e.type}:${e.data.userId}`);
    expect(await names(legacyIdentityLinkStream(issuer, live.email))).toEqual([]);
    expect(await names(identityLinkStream(app.running.infra.lookup, issuer, live.email))).toEqual([`1:IdentityLinked:${live.userId}`]);
    expect(await names(legacyIdentityLinkStream(issuer, gone.email))).toEqual([]);
    expect(await names(identityLinkStream(app.running.infra.lookup, issuer, gone.email))).toEqual([]);

    const cookie = await signIn(app.baseUrl, live.email, 'Up');
    expect((await api(app.baseUrl, cookie).get('/api/auth/user')).body.id).toBe(live.userId);
    const fresh = await signIn(app.baseUrl, gone.email, 'Up');
    expect((await api(app.baseUrl, fresh).get('/api/auth/user')).body.id).not.toBe(gone.userId);
  });
});

describe('a session cookie of one install', () => {
  it('is worthless on another, even one holding the same session rows (each install signs with its own secret)', async () => {
    const first = app;
    const cookie = await signIn(first.baseUrl, 'traveller@example.com', 'Traveller');
    expect((await api(first.baseUrl, cookie).get('/api/auth/user')).status).toBe(200);
    await first.stop();
    const other = await startTestApp();
    try {
      await other.stop();
      copyFileSync(join(first.config.dataDir, 'sessions.sqlite'), join(other.config.dataDir, 'sessions.sqlite'));
      await other.restart();
      expect(other.config.sessionSecret).not.toBe(first.config.sessionSecret);
      // A read that needs nothing but a valid session (the person has no profile on the other install).
      expect((await api(other.baseUrl, cookie).get('/api/joy-ratings')).status).toBe(401);
    } finally {
      await other.destroy();
      await first.restart();
    }
  });
});

describe('the development sign-in form: the name rule on the first name (names/name-rule.spec.ts has the rule itself)', () => {
  async function submitSignInForm(firstName: string): Promise<Response> {
    const form = await openSignInForm(app.baseUrl);
    return fetch(new URL(form.url, app.baseUrl), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: form.cookie },
      body: new URLSearchParams({ email: 'eve@example.com', firstName }).toString(),
    });
  }

  it('refuses a direction override in the first name on the development sign-in form, naming the field', async () => {
    const res = await submitSignInForm('Ada\u202E');
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('First name must not contain control, direction-changing or invisible characters');
  });

  it('answers a huge field on the development sign-in form with 413 and the form, never 500 or an echo', async () => {
    const huge = 'x'.repeat(50 * 1024);
    const res = await submitSignInForm(huge);
    expect(res.status).toBe(413);
    const page = await res.text();
    expect(page).toContain('The form was too large');
    expect(page).not.toContain('xxxxxxxxxx');
  });

  it('refuses a first name over 80 characters without echoing it whole', async () => {
    const res = await submitSignInForm('y'.repeat(5000));
    expect(res.status).toBe(400);
    const page = await res.text();
    expect(page).toContain('First name can be at most 80 characters.');
    expect(page).not.toContain('y'.repeat(81));
  });
});

/** The session layer's short path (a cookie checked by express-session within the last minute) must end sessions as promptly as the full path. */
describe('sessions on the short path', () => {
  const sidOf = (cookie: string) => decodeURIComponent(cookie.split('=')[1]).replace(/^s:/, '').split('.')[0];
  const me = (cookie: string) => api(app.baseUrl, cookie).get('/api/auth/user');

  it('keeps serving a used session, and renews its cookie on every request', async () => {
    const cookie = await signIn(app.baseUrl, 'steady@example.com', 'Steady');
    for (let i = 0; i < 3; i++) {
      const res = await me(cookie);
      expect(res.status).toBe(200);
      expect(res.body.firstName).toBe('Steady');
      const setCookie = String(res.headers['set-cookie']);
      expect(setCookie).toContain(cookie);
      expect(setCookie).toMatch(/HttpOnly/);
      expect(setCookie).toMatch(/SameSite=Lax/);
      const expires = Date.parse(/Expires=([^;]+)/.exec(setCookie)![1]);
      expect(Math.abs(expires - Date.now() - IDLE_TIMEOUT_MS)).toBeLessThan(60_000);
    }
  });

  it('refuses a session at once after sign-out, though it was used a moment before', async () => {
    const cookie = await signIn(app.baseUrl, 'leaver@example.com', 'Leaver');
    expect((await me(cookie)).status).toBe(200);
    expect((await me(cookie)).status).toBe(200);
    await api(app.baseUrl, cookie).get('/api/logout');
    expect((await me(cookie)).status).toBe(401);
    expect((await api(app.baseUrl, cookie).post('/api/joy-ratings', { relationships: 3, health: 3, purpose: 3, growth: 3, joy: 3 })).status).toBe(401);
  });

  it('signs out through any spelling of the sign-out URL that routing accepts', async () => {
    const cookie = await signIn(app.baseUrl, 'spelling@example.com', 'Spelling');
    expect((await me(cookie)).status).toBe(200);
    const out = await api(app.baseUrl, cookie).get('/api/Logout/');
    expect(out.status).toBe(302);
    expect((await me(cookie)).status).toBe(401);
  });

  it('refuses a session at once when it is removed from the store elsewhere (another replica, account deletion)', async () => {
    const cookie = await signIn(app.baseUrl, 'elsewhere@example.com', 'Elsewhere');
    expect((await me(cookie)).status).toBe(200);
    await new Promise<void>((done) => app.running.infra.sessions.destroy(sidOf(cookie), () => done()));
    expect((await me(cookie)).status).toBe(401);
  });

  it('applies the absolute timeout on the short path too', async () => {
    const cookie = await signIn(app.baseUrl, 'aged@example.com', 'Aged');
    expect((await me(cookie)).status).toBe(200);
    const store = app.running.infra.sessions as SqliteSessionStore;
    const sid = sidOf(cookie);
    const session = await new Promise<Record<string, unknown>>((done) => store.get(sid, (_err, sess) => done(sess as never)));
    await new Promise<void>((done) => store.set(sid, { ...session, signedInAt: Date.now() - 31 * 24 * 3600 * 1000 } as never, () => done()));
    expect((await me(cookie)).status).toBe(401);
  });

  it('refuses a cookie with a forged signature, even for a session that exists', async () => {
    const cookie = await signIn(app.baseUrl, 'forged@example.com', 'Forged');
    expect((await me(cookie)).status).toBe(200);
    const forged = cookie.replace(/\.[^.;]+$/, '.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    expect(forged).not.toBe(cookie);
    expect((await me(forged)).status).toBe(401);
  });
});
