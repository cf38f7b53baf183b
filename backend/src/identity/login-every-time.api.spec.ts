import { startTestApp, TestApp } from '../testing/app-harness';

jest.setTimeout(60_000);

/** One browser: its cookies by name and path, as a browser keeps and sends them. */
class Browser {
  private readonly jar = new Map<string, string>();

  constructor(private readonly base: string) {}

  async go(path: string, init: RequestInit = {}): Promise<Response> {
    const url = new URL(path, this.base);
    const cookie = [...this.jar].filter(([k]) => url.pathname.startsWith(k.split(';')[1])).map(([k, v]) => `${k.split(';')[0]}=${v}`).join('; ');
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie } });
    for (const header of res.headers.getSetCookie()) {
      const [pair, ...attrs] = header.split(';').map((s) => s.trim());
      const name = pair.slice(0, pair.indexOf('='));
      const value = pair.slice(pair.indexOf('=') + 1);
      const path = (attrs.find((a) => /^path=/i.test(a)) ?? 'path=/').slice(5);
      const gone = value === '' || attrs.some((a) => /^max-age=0$/i.test(a) || (/^expires=/i.test(a) && Date.parse(a.slice(8)) < Date.now()));
      if (gone) this.jar.delete(`${name};${path}`);
      else this.jar.set(`${name};${path}`, value);
    }
    return res;
  }

  /** Follows redirects until `stop` says so (then its Location), or to the end. */
  async follow(res: Response, stop: (location: string) => boolean = () => false): Promise<string | null> {
    for (let hops = 0; res.status >= 300 && res.status < 400 && hops < 10; hops++) {
      const location = res.headers.get('location')!;
      if (stop(location)) return location;
      res = await this.go(location);
    }
    return null;
  }

  async me(): Promise<number> {
    return (await this.go('/api/auth/user')).status;
  }
}

const toForm = (location: string) => location.includes('/oidc/interaction/');

// A review (11-27): the provider's own session signed a browser in again without a password once `prompt=login` was
// taken out of the authorization URL (a shared computer after Sign out; the old holder after a password reset).
describe('the built-in sign-in asks for the password every time', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ AUTH_DEV_LOGIN: '0' });
  });
  afterAll(() => app.destroy());

  it('after Sign out, an authorization request without prompt=login still shows the form, not a session', async () => {
    const browser = new Browser(app.baseUrl);
    const form = await browser.follow(await browser.go('/api/login?signup=1'), toForm);
    const uid = form!.split('/interaction/')[1];
    await browser.go(form!);
    const password = 'Correct-horse-42x';
    const signedUp = await browser.go(`/oidc/interaction/${uid}/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ firstName: 'Vic', email: 'vic.shared@example.com', password, confirm: password }),
    });
    await browser.follow(signedUp);
    expect(await browser.me()).toBe(200);

    await browser.follow(await browser.go('/api/logout'));
    expect(await browser.me()).toBe(401);

    // The next person at this browser edits the authorization URL.
    const auth = new URL((await browser.go('/api/login')).headers.get('location')!);
    expect(auth.searchParams.get('prompt')).toBe('login');
    auth.searchParams.delete('prompt');
    const landing = await browser.follow(await browser.go(auth.toString()), toForm);
    expect(landing).toMatch(/\/oidc\/interaction\//); // the sign-in form
    expect(await browser.me()).toBe(401);
  });
});
