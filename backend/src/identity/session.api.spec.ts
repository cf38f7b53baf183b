import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';
import { SqliteSessionStore } from './sqlite-session-store';
import { IDLE_TIMEOUT_MS } from './session';

/** The session layer's short path (a cookie checked by express-session within the last minute) must end sessions as promptly as the full path. */
describe('sessions on the short path', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.destroy());

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
