/**
 * Signs in through the development OpenID provider as a browser would, without a browser: used by the API
 * tests and the benchmark to get real sessions.
 */

/** A minimal cookie jar: name=value per path, enough for the sign-in redirects. */
class CookieJar {
  private readonly cookies = new Map<string, { value: string; path: string }>();

  store(setCookie: string[]): void {
    for (const header of setCookie) {
      const [pair, ...attrs] = header.split(';').map((s) => s.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const path = attrs.find((a) => a.toLowerCase().startsWith('path='))?.slice(5) || '/';
      const expired = attrs.some((a) => /^expires=/i.test(a) && new Date(a.slice(8)).getTime() < Date.now()) || value === '';
      if (expired) this.cookies.delete(`${name};${path}`);
      else this.cookies.set(`${name};${path}`, { value, path });
    }
  }

  header(pathname: string): string {
    return [...this.cookies.entries()]
      .filter(([, c]) => pathname.startsWith(c.path))
      .map(([key, c]) => `${key.split(';')[0]}=${c.value}`)
      .join('; ');
  }
}

/**
 * Signs in through the development OpenID provider exactly as a browser would (login → provider form →
 * callback) and returns the session cookie.
 */
export async function signIn(baseUrl: string, email: string, firstName = ''): Promise<string> {
  const jar = new CookieJar();
  const go = async (url: string, init: RequestInit = {}) => {
    const target = new URL(url, baseUrl);
    const res = await fetch(target, { ...init, redirect: 'manual', headers: { ...(init.headers ?? {}), cookie: jar.header(target.pathname) } });
    jar.store(res.headers.getSetCookie());
    return res;
  };
  let res = await go('/api/login');
  let formUrl: string | null = null;
  for (let hops = 0; hops < 10 && res.status >= 300 && res.status < 400; hops++) {
    const next = res.headers.get('location')!;
    if (next.includes('/oidc/interaction/')) formUrl = next;
    res = await go(next);
  }
  if (!formUrl) throw new Error(`Sign-in did not reach the provider's form (status ${res.status})`);
  const uid = formUrl.split('/interaction/')[1];
  res = await go(`/oidc/interaction/${uid}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, firstName }).toString(),
  });
  for (let hops = 0; hops < 10 && res.status >= 300 && res.status < 400; hops++) {
    const next = res.headers.get('location')!;
    if (new URL(next, baseUrl).pathname === '/') break;
    res = await go(next);
  }
  const cookie = jar.header('/api').split('; ').find((c) => c.startsWith('joy.sid='));
  if (!cookie) throw new Error('Sign-in ended without a session cookie');
  return cookie;
}
