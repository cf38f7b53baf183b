/**
 * The built-in sign-in's pages as a browser meets them (a browser review, 11-28): the way to a forgotten password,
 * Get Started and Sign Up opening Create account, Back after signing in, the form's answers to empty fields and to a
 * password that is the e-mail address, and the way back to Joy, its Privacy Policy and Terms.
 */
import { startTestApp, TestApp } from '../../testing/app-harness';
import { runSignInFlow, signInWithPassword, signUp } from '../dev-sign-in-client';
import { FORGOT_PASSWORD } from './sign-in-pages';

const REAL = { AUTH_DEV_LOGIN: '0', BILLING_SANDBOX: '0' };
const PASSWORD = 'marigold-causeway-lantern-47';
const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

/** A browser's cookies for one person: name=value, sent to every path of the app (enough for these redirects). */
class Browser {
  private readonly cookies = new Map<string, string>();
  constructor(private readonly baseUrl: string) {}

  async go(url: string, init: RequestInit = {}): Promise<Response> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(new URL(url, this.baseUrl), { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie } });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      if (pair.slice(eq + 1) === '') this.cookies.delete(pair.slice(0, eq));
      else this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return res;
  }

  /** Follows redirects from `url` to the provider's page: its address and HTML (or where it went instead). */
  async open(url: string): Promise<{ url: string; status: number; html: string; location: string | null }> {
    let res = await this.go(url);
    let at = url;
    for (let hops = 0; hops < 10 && res.status >= 300 && res.status < 400; hops++) {
      const next = res.headers.get('location')!;
      if (!next.includes('/oidc/')) return { url: at, status: res.status, html: '', location: next };
      at = new URL(next, this.baseUrl).pathname;
      res = await this.go(next);
    }
    return { url: at, status: res.status, html: await res.text(), location: null };
  }

  /** Posts a form and follows the redirects through the callback; where the callback sent the browser. */
  async submit(url: string, fields: Record<string, string>): Promise<{ status: number; html: string; landedAt: string | null }> {
    let res = await this.go(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
    const status = res.status;
    const html = status >= 300 && status < 400 ? '' : await res.text();
    for (let hops = 0; hops < 10 && res.status >= 300 && res.status < 400; hops++) {
      const next = res.headers.get('location')!;
      if (new URL(res.url || url, this.baseUrl).pathname === '/api/callback' || !next.match(/^(\/oidc|\/api|http)/)) return { status, html, landedAt: next };
      res = await this.go(next);
    }
    return { status, html, landedAt: null };
  }

  get signedIn(): boolean {
    return this.cookies.has('joy.sid');
  }
}

/** The attributes of the input with this id. */
const input = (html: string, id: string) => html.match(new RegExp(`<input id="${id}"[^>]*>`))?.[0] ?? '';

describe('the sign-in pages of a real install (no opt-ins)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(REAL);
    await signUp(app.baseUrl, { firstName: 'Saoirse', email: 'saoirse.pages@example.com', password: PASSWORD });
  });
  afterAll(() => app.destroy());

  it('says how to reset a forgotten password, with the password field (read out with it)', async () => {
    const { html } = await new Browser(app.baseUrl).open('/api/login');
    expect(text(html)).toContain('Forgot your password? Ask the person who runs Joy for a reset link.');
    expect(html).toContain(`<div class="help" id="password-help">${FORGOT_PASSWORD}</div>`);
    expect(input(html, 'password')).toContain('aria-describedby="password-help"');
  });

  it('shows that way to a reset with "Too many attempts" too', async () => {
    const email = 'tamsin.forgot@example.com';
    await signUp(app.baseUrl, { firstName: 'Tamsin', email, password: PASSWORD });
    for (let i = 0; i < 5; i++) expect((await signInWithPassword(app.baseUrl, email, `not-it-${i}-at-all`)).status).toBe(401);
    const blocked = await signInWithPassword(app.baseUrl, email, PASSWORD);
    expect(blocked.status).toBe(429);
    expect(text(blocked.html)).toContain('Too many attempts, try again in 15 minutes.');
    expect(text(blocked.html)).toContain(FORGOT_PASSWORD);
  });

  it('opens Create account for Get Started and Sign Up (/api/login?signup=1), and Sign in for Sign In', async () => {
    const signup = await new Browser(app.baseUrl).open('/api/login?signup=1');
    expect(signup.status).toBe(200);
    expect(signup.html).toContain('<h1>Create account</h1>');
    expect(signup.html).toMatch(/<button type="submit" class="primary">Create account<\/button>/);
    // The way to Sign in from there works in the same sign-in.
    const browser = new Browser(app.baseUrl);
    const page = await browser.open('/api/login?signup=1');
    const signin = await browser.go(`${page.url}/signin`);
    expect(await signin.text()).toContain('<h1>Sign in</h1>');

    for (const plain of ['/api/login', '/api/login?signup=0', '/api/login?signup=yes']) {
      const { html } = await new Browser(app.baseUrl).open(plain);
      expect(html).toContain('<h1>Sign in</h1>');
    }
  });

  it('creates an account from Get Started and lands where asked (returnTo is still checked at the callback)', async () => {
    const a = await runSignInFlow(
      app.baseUrl,
      'signup',
      { firstName: 'Ulla', email: 'ulla.getstarted@example.com', password: PASSWORD, confirm: PASSWORD },
      { login: '/api/login?signup=1&returnTo=%2Finsights' },
    );
    expect(a.cookie).not.toBeNull();
    expect(a.callbackLocation).toBe('/insights');
    const b = await runSignInFlow(
      app.baseUrl,
      'signup',
      { firstName: 'Vera', email: 'vera.getstarted@example.com', password: PASSWORD, confirm: PASSWORD },
      { login: '/api/login?signup=1&returnTo=%2F%2Fevil.example' },
    );
    expect(b.callbackLocation).toBe('/');
  });

  it('takes a signed-in person straight into Joy at /api/login: Back to the used sign-in page, then Continue', async () => {
    const browser = new Browser(app.baseUrl);
    const form = await browser.open('/api/login');
    const done = await browser.submit(`${form.url}/signin`, { email: 'saoirse.pages@example.com', password: PASSWORD });
    expect(done.landedAt).toBe('/');
    expect(browser.signedIn).toBe(true);

    // Back: the sign-in page is used up.
    const back = await browser.go(form.url);
    expect(back.status).toBe(400);
    const html = await back.text();
    expect(html).toContain('<h1>This sign-in page has expired</h1>');
    expect(text(html)).toContain('If you have just signed in, Continue takes you into Joy');
    expect(html).toContain('<a class="button primary" href="/api/login">Continue</a>');

    // Continue: into Joy, no form, and no new sign-in flow started.
    const next = await browser.go('/api/login');
    expect(next.status).toBe(302);
    expect(next.headers.get('location')).toBe('/');
    expect(next.headers.getSetCookie().some((c) => c.startsWith('joy.oidc='))).toBe(false);
    expect((await browser.go('/api/login?returnTo=%2Finsights')).headers.get('location')).toBe('/insights');
    expect((await browser.go('/api/login?signup=1&returnTo=%2Fgroups%3Fgroup%3Dg-1')).headers.get('location')).toBe('/groups?group=g-1');
    for (const elsewhere of ['//evil.example/x', 'https://evil.example/', '/api/logout', '/oidc/auth']) {
      expect((await browser.go(`/api/login?returnTo=${encodeURIComponent(elsewhere)}`)).headers.get('location')).toBe('/');
    }

    // Signed out, /api/login asks again.
    await browser.go('/api/logout');
    expect((await browser.go('/api/login')).headers.get('location')).toContain('/oidc/auth');
  });

  it('starts Create account again from an expired Create account page', async () => {
    const browser = new Browser(app.baseUrl);
    const form = await browser.open('/api/login');
    const res = await browser.go(`${form.url.replace(/[^/]+$/, 'no-such-sign-in')}/signup`);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('href="/api/login?signup=1">Continue</a>');
  });

  it.each([
    [{ email: '', password: '' }, { email: 'Enter your e-mail address.', password: 'Enter your password.' }],
    [{ email: '', password: PASSWORD }, { email: 'Enter your e-mail address.' }],
    [{ email: 'saoirse.pages@example.com', password: '' }, { password: 'Enter your password.' }],
    [{ email: 'not-an-address', password: PASSWORD }, { email: 'Enter a valid e-mail address.' }],
  ])('asks for what is missing from the sign-in form (%o), at its field, not "Wrong e-mail or password"', async (fields, expected) => {
    const errors: Partial<Record<'email' | 'password', string>> = expected;
    const browser = new Browser(app.baseUrl);
    const form = await browser.open('/api/login');
    const res = await browser.submit(`${form.url}/signin`, fields);
    expect(res.status).toBe(400);
    expect(res.html).not.toContain('Wrong e-mail or password');
    for (const name of ['email', 'password'] as const) {
      const error = errors[name];
      if (error) {
        expect(res.html).toContain(`<div class="field-error" id="${name}-error">${error}</div>`);
        expect(input(res.html, name)).toContain('aria-invalid="true"');
        expect(input(res.html, name)).toMatch(new RegExp(`aria-describedby="[^"]*${name}-error`));
      } else {
        expect(input(res.html, name)).not.toContain('aria-invalid');
      }
    }
    // The first field to fix has the focus.
    expect(input(res.html, errors.email ? 'email' : 'password')).toContain(' autofocus ');
  });

  it('still answers a wrong password and an unknown e-mail alike (no account is given away)', async () => {
    const wrong = await signInWithPassword(app.baseUrl, 'saoirse.pages@example.com', 'not-her-password-at-all');
    const unknown = await signInWithPassword(app.baseUrl, 'nobody.pages@example.com', 'not-her-password-at-all');
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(text(res.html)).toContain('Wrong e-mail or password.');
      for (const name of ['email', 'password']) expect(input(res.html, name)).not.toContain('aria-invalid');
    }
    expect(text(wrong.html).replace('saoirse.pages@example.com', 'X')).toBe(text(unknown.html).replace('nobody.pages@example.com', 'X'));
    // The answer is read with the password field, where the focus lands (an alert present at load may go unheard).
    expect(wrong.html).toContain('<div class="alert alert-error" id="form-error" role="alert">Wrong e-mail or password.</div>');
    expect(input(wrong.html, 'password')).toContain('aria-describedby="form-error password-help"');
  });

  it('asks for what is missing from Create account by name, as Sign in does', async () => {
    const res = await runSignInFlow(app.baseUrl, 'signup', { firstName: '', email: '', password: '', confirm: '' });
    expect(res.status).toBe(400);
    for (const [field, message] of [
      ['firstName', 'Enter your first name.'],
      ['email', 'Enter your e-mail address.'],
      ['password', 'Enter a password of at least 10 characters.'],
    ]) expect(res.html).toContain(`<div class="field-error" id="${field}-error">${message}</div>`);
  });

  it.each([
    ['the e-mail address', 'wilhelmina.longname@example.com', 'Your password must not be your e-mail address.'],
    ['the e-mail address, in capitals', 'WILHELMINA.LONGNAME@EXAMPLE.COM', 'Your password must not be your e-mail address.'],
    ['its part before the @', 'wilhelmina.longname', 'Your password must not be the part of your e-mail address before the @.'],
  ])('says why a password that is %s is refused at sign-up', async (_what, password, message) => {
    const res = await runSignInFlow(app.baseUrl, 'signup', { firstName: 'Wilhelmina', email: 'wilhelmina.longname@example.com', password, confirm: password });
    expect(res.status).toBe(400);
    expect(res.html).toContain(`<div class="field-error" id="password-error">${message}</div>`);
    expect(res.html).not.toContain('too common');
  });

  it('says a mismatch of the two passwords where retyping starts: at Password, which has the focus', async () => {
    const res = await runSignInFlow(app.baseUrl, 'signup', { firstName: 'Xanthe', email: 'xanthe.mismatch@example.com', password: PASSWORD, confirm: `${PASSWORD}-typo` });
    expect(res.status).toBe(400);
    expect(res.html).toContain('<div class="field-error" id="password-error">The two passwords did not match. Type your password in both fields again.</div>');
    expect(input(res.html, 'password')).toContain('aria-invalid="true"');
    expect(input(res.html, 'password')).toContain(' autofocus ');
    expect(input(res.html, 'password')).toContain('aria-describedby="password-help password-error"');
    // Neither password is sent back; Confirm password is not marked wrong on its own.
    expect(res.html).not.toContain(PASSWORD);
    expect(input(res.html, 'confirm')).not.toContain('aria-invalid');
  });

  it('links every page back to Joy (the wordmark), its Privacy Policy and Terms; one main landmark, one h1', async () => {
    const browser = new Browser(app.baseUrl);
    const signin = await browser.open('/api/login');
    const signup = await browser.go(`${signin.url}/signup`);
    const expired = await new Browser(app.baseUrl).go('/oidc/interaction/no-such-sign-in');
    for (const html of [signin.html, await signup.text(), await expired.text()]) {
      expect(html).toContain('<header><a class="brand" href="/" aria-label="Joy home">Joy</a></header>');
      expect(html).toMatch(/<footer><nav class="site-links" aria-label="Footer"><a href="\/privacy">Privacy Policy<\/a><a href="\/terms">Terms of Service<\/a><\/nav><\/footer>/);
      expect(html.match(/<main[ >]/g)).toHaveLength(1);
      expect(html.match(/<h[1-6][ >]/g)).toEqual(['<h1>']);
      expect(html).not.toContain('aria-hidden');
    }
  });
});

// One app per describe block: passport's strategy is one per process.
describe('Get Started with SIGNUP=closed', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ ...REAL, SIGNUP: 'closed' });
  });
  afterAll(() => app.destroy());

  it('says sign-up is closed, with the way back to Sign in', async () => {
    const { status, html } = await new Browser(app.baseUrl).open('/api/login?signup=1');
    expect(status).toBe(200);
    expect(text(html)).toContain('Sign-up is closed on this install.');
    expect(html).toMatch(/href="\/oidc\/interaction\/[^"]+\/signin">Back to Sign in<\/a>/);
  });
});

describe('Sign Up with the development sign-in on (AUTH_DEV_LOGIN=1)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ AUTH_DEV_LOGIN: '1' });
  });
  afterAll(() => app.destroy());

  it('opens Create account too; Sign In keeps the development form', async () => {
    expect((await new Browser(app.baseUrl).open('/api/login?signup=1')).html).toContain('<h1>Create account</h1>');
    expect((await new Browser(app.baseUrl).open('/api/login')).html).toContain('<h1>Development sign-in</h1>');
  });
});
