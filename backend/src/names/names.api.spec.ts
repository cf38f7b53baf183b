import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';

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

describe('names over HTTP: one rule (NFC, no control, direction-changing or invisible characters)', () => {
  let app: TestApp;
  let ada: string;
  const head = () => app.running.infra.store.headPosition();

  beforeAll(async () => {
    app = await startTestApp();
    ada = await signIn(app.baseUrl, 'ada@example.com', 'Ada');
  });
  afterAll(() => app.destroy());

  it.each([
    ['a right-to-left override', 'Family\u202Eylimaf'],
    ['a zero-width space', 'Fam\u200Bily'],
    ['a control character', 'Family\u0007'],
  ])('refuses a group name with %s: 400 naming the field, nothing stored', async (_label, name) => {
    const before = await head();
    const res = await api(app.baseUrl, ada).post('/api/groups', { name });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('name must not contain control, direction-changing or invisible characters');
    expect(res.body.errors).toEqual([{ field: 'name', message: res.body.message }]);
    expect(await head()).toBe(before);
  });

  it('refuses an invisible character in a group description, naming it', async () => {
    const res = await api(app.baseUrl, ada).post('/api/groups', { name: 'Readers', description: 'We read\u2066 books' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('description must not contain control, direction-changing or invisible characters');
  });

  it('stores a group name in NFC, so that look-alike spellings are one name', async () => {
    const res = await api(app.baseUrl, ada).post('/api/groups', { name: '  Zoe\u0308 & friends \u{1F468}\u200D\u{1F469}\u200D\u{1F467} ', description: 'Line one\nline two' });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('Zo\u00EB & friends \u{1F468}\u200D\u{1F469}\u200D\u{1F467}');
    expect(res.body.description).toBe('Line one\nline two');
  });

  it('refuses a direction override in the first name on the development sign-in form, naming the field', async () => {
    const form = await openSignInForm(app.baseUrl);
    const res = await fetch(new URL(form.url, app.baseUrl), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: form.cookie },
      body: new URLSearchParams({ email: 'eve@example.com', firstName: 'Ada\u202E' }).toString(),
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('First name must not contain control, direction-changing or invisible characters');
  });

  it('answers a huge field on the development sign-in form with 413 and the form, never 500 or an echo', async () => {
    const form = await openSignInForm(app.baseUrl);
    const huge = 'x'.repeat(50 * 1024);
    const res = await fetch(new URL(form.url, app.baseUrl), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: form.cookie },
      body: new URLSearchParams({ email: 'eve@example.com', firstName: huge }).toString(),
    });
    expect(res.status).toBe(413);
    const page = await res.text();
    expect(page).toContain('The form was too large');
    expect(page).not.toContain('xxxxxxxxxx');
  });

  it('refuses a first name over 80 characters without echoing it whole', async () => {
    const form = await openSignInForm(app.baseUrl);
    const res = await fetch(new URL(form.url, app.baseUrl), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: form.cookie },
      body: new URLSearchParams({ email: 'eve@example.com', firstName: 'y'.repeat(5000) }).toString(),
    });
    expect(res.status).toBe(400);
    const page = await res.text();
    expect(page).toContain('First name can be at most 80 characters.');
    expect(page).not.toContain('y'.repeat(81));
  });
});
