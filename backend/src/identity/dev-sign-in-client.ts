/**
 * Signs in through the built-in OpenID provider as a browser would, without a browser: used by the API tests and
 * the benchmark to get real sessions (development form, accounts with passwords).
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

/** What a run of the sign-in flow ended with: the session cookie (or null) and the provider's last answer. */
export interface FlowResult {
  cookie: string | null;
  /** The status and HTML of the provider's answer to the form (when it did not redirect onwards). */
  status: number;
  html: string;
  /** Set-Cookie headers of the callback (the session cookie's attributes). */
  callbackSetCookie: string[];
  /** Where the callback sent the browser once signed in (Home, or the page sign-in was asked from). */
  callbackLocation: string | null;
}

/**
 * Runs the sign-in flow as a browser would: /api/login → the provider's page → a form posted to
 * `/oidc/interaction/<uid>/<action>` → the callback. `action` is `login` (development form), `signin` or `signup`.
 */
export async function runSignInFlow(
  baseUrl: string,
  action: 'login' | 'signin' | 'signup',
  fields: Record<string, string>,
  options: {
    beforeCallback?: (cookieHeader: string) => string;
    login?: string;
    /** Runs once the form is answered, before its redirects are followed (a step left for later). */
    afterForm?: () => Promise<void>;
  } = {},
): Promise<FlowResult> {
  const jar = new CookieJar();
  let callbackSetCookie: string[] = [];
  const go = async (url: string, init: RequestInit = {}) => {
    const target = new URL(url, baseUrl);
    const callback = target.pathname === '/api/callback';
    const cookie = callback && options.beforeCallback ? options.beforeCallback(jar.header(target.pathname)) : jar.header(target.pathname);
    const res = await fetch(target, { ...init, redirect: 'manual', headers: { ...(init.headers ?? {}), cookie } });
    jar.store(res.headers.getSetCookie());
    if (callback) {
      callbackSetCookie = res.headers.getSetCookie();
      callbackLocation = res.headers.get('location');
    }
    return res;
  };
  let callbackLocation: string | null = null;
  let res = await go(options.login ?? '/api/login');
  let formUrl: string | null = null;
  for (let hops = 0; hops < 10 && res.status >= 300 && res.status < 400; hops++) {
    const next = res.headers.get('location')!;
    if (next.includes('/oidc/interaction/')) formUrl = next;
    res = await go(next);
  }
  if (!formUrl) throw new Error(`Sign-in did not reach the provider's form (status ${res.status})`);
  const uid = formUrl.split('/interaction/')[1];
  res = await go(`/oidc/interaction/${uid}/${action}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  const status = res.status;
  const html = status >= 300 && status < 400 ? '' : await res.text();
  await options.afterForm?.();
  for (let hops = 0; hops < 10 && res.status >= 300 && res.status < 400 && !callbackLocation; hops++) {
    const next = res.headers.get('location')!;
    if (new URL(next, baseUrl).pathname === '/') break;
    res = await go(next);
  }
  const cookie = jar.header('/api').split('; ').find((c) => c.startsWith('joy.sid=')) ?? null;
  return { cookie, status, html, callbackSetCookie, callbackLocation };
}

/** Signs in through the development form (AUTH_DEV_LOGIN=1) and returns the session cookie. */
export async function signIn(baseUrl: string, email: string, firstName = ''): Promise<string> {
  const { cookie, status } = await runSignInFlow(baseUrl, 'login', { email, firstName });
  if (!cookie) throw new Error(`Sign-in ended without a session cookie (the form answered ${status})`);
  return cookie;
}

/** Creates an account of the built-in sign-in and returns the session cookie it is signed in with. */
export async function signUp(baseUrl: string, account: { firstName: string; email: string; password: string }): Promise<string> {
  const { cookie, status, html } = await runSignInFlow(baseUrl, 'signup', { ...account, confirm: account.password });
  if (!cookie) throw new Error(`Sign-up ended without a session cookie (the form answered ${status}): ${html.replace(/<[^>]+>/g, ' ').slice(-400)}`);
  return cookie;
}

/** Signs in with an e-mail and password (the provider's answer tells why not, when not). */
export function signInWithPassword(baseUrl: string, email: string, password: string): Promise<FlowResult> {
  return runSignInFlow(baseUrl, 'signin', { email, password });
}
