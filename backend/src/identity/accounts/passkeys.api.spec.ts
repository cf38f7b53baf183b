import { api, signIn, startTestApp, TestApp } from '../../testing/app-harness';
import { signUp } from '../dev-sign-in-client';

/** The provider's interaction of a fresh sign-in, with its cookies (as the Sign in page's script has them). */
async function interaction(app: TestApp): Promise<{ base: string; cookie: string }> {
  const jar: string[] = [];
  let res = await fetch(`${app.baseUrl}/api/login`, { redirect: 'manual' });
  let location = res.headers.get('location')!;
  while (!location.includes('/interaction/')) {
    jar.push(...res.headers.getSetCookie().map((c) => c.split(';')[0]));
    res = await fetch(new URL(location, app.baseUrl), { redirect: 'manual', headers: { cookie: jar.join('; ') } });
    location = res.headers.get('location')!;
  }
  jar.push(...res.headers.getSetCookie().map((c) => c.split(';')[0]));
  return { base: new URL(location, app.baseUrl).toString(), cookie: jar.join('; ') };
}

describe('passkeys over HTTP (the ceremony itself runs in the browser journey with a virtual authenticator)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.destroy());

  it('are for accounts of the built-in sign-in: a development sign-in has none (409 passkey.unavailable)', async () => {
    const dev = await signIn(app.baseUrl, 'dev.only@example.com', 'Dev');
    expect((await api(app.baseUrl, dev).get('/api/account/passkeys')).body).toEqual({ available: false, passkeys: [] });
    const res = await api(app.baseUrl, dev).post('/api/account/passkeys/options');
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('passkey.unavailable');
  });

  it('offers registration options for the account (this site, a discoverable credential, the e-mail as its name, the first name shown)', async () => {
    const cookie = await signUp(app.baseUrl, { firstName: 'Rune', email: 'rune.keys@example.com', password: 'marble-thistle-harbor-64' });
    expect((await api(app.baseUrl, cookie).get('/api/account/passkeys')).body).toEqual({ available: true, passkeys: [] });
    const res = await api(app.baseUrl, cookie).post('/api/account/passkeys/options');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ rp: { id: 'localhost', name: 'Joy' }, user: { name: 'rune.keys@example.com', displayName: 'Rune' }, authenticatorSelection: { residentKey: 'required' } });
    expect(res.body.challenge).toMatch(/^[\w-]{20,}$/);
  });

  it('refuses a registration that does not verify (400 naming response), without one, and a removal of an unknown passkey (404)', async () => {
    const cookie = await signUp(app.baseUrl, { firstName: 'Sif', email: 'sif.keys@example.com', password: 'marble-thistle-harbor-64' });
    await api(app.baseUrl, cookie).post('/api/account/passkeys/options');
    const forged = await api(app.baseUrl, cookie).post('/api/account/passkeys', { response: { id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: {} } });
    expect(forged.status).toBe(400);
    expect(forged.body).toMatchObject({ code: 'passkey.not_verified', errors: [{ field: 'response' }] });
    const missing = await api(app.baseUrl, cookie).post('/api/account/passkeys', {});
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].field).toBe('response');
    expect((await api(app.baseUrl, cookie).delete('/api/account/passkeys/nope')).status).toBe(404);
    expect((await api(app.baseUrl, cookie).get('/api/account/passkeys')).body.passkeys).toEqual([]);
    expect((await api(app.baseUrl).get('/api/account/passkeys')).status).toBe(401);
  });

  it('signs nobody in with an unknown passkey at the provider (401)', async () => {
    const { base, cookie } = await interaction(app);
    const options = await fetch(`${base}/passkey/options`, { headers: { cookie } });
    expect(options.status).toBe(200);
    expect(await options.json()).toMatchObject({ rpId: 'localhost', challenge: expect.any(String) });
    const answer = await fetch(`${base}/passkey`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'unknown', rawId: 'unknown', type: 'public-key', response: {}, clientExtensionResults: {} }),
    });
    expect(answer.status).toBe(401);
    expect((await answer.json()).message).toContain('This passkey could not sign you in.');
    // Without the interaction's cookie nothing is offered, nor with it for another (made-up) interaction.
    expect((await fetch(`${base}/passkey/options`)).status).toBe(400);
    const madeUp = base.replace(/\/interaction\/[^/]+$/, '/interaction/made-up-uid');
    expect((await fetch(`${madeUp}/passkey/options`, { headers: { cookie } })).status).toBe(400);
  });

  it('answers a passkey body it cannot read with JSON saying so (the page\'s script reads JSON), never an HTML page', async () => {
    const { base, cookie } = await interaction(app);
    for (const [body, status, message] of [
      ['{bad json', 400, 'The passkey answer could not be read: it must be a JSON object.'],
      ['null', 400, 'The passkey answer could not be read: it must be a JSON object.'],
      [`{"id":"${'x'.repeat(21_000)}"}`, 413, 'The passkey answer was too large.'],
    ] as const) {
      const res = await fetch(`${base}/passkey`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body });
      expect([res.status, res.headers.get('content-type'), await res.json()]).toEqual([status, expect.stringMatching(/^application\/json/), { message }]);
    }
  });
});
