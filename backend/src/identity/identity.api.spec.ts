import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';
import { runSignInFlow } from './dev-sign-in-client';

describe('sign-in over HTTP (embedded default, development provider)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.destroy());

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
