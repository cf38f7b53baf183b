import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createApp, RunningApp } from '../app';
import { AppConfig, loadConfig } from '../config';
import { freePort } from './app-process';
import { assertEventsMatchContract } from './event-contract';

export interface TestApp {
  baseUrl: string;
  config: AppConfig;
  running: RunningApp;
  /** Stops the app, keeping its data directory (to start it again). */
  stop(): Promise<void>;
  /** Starts the app again on the same data directory and port. */
  restart(): Promise<void>;
  /** Stops the app and removes its data, after checking every event it wrote against docs/events. */
  destroy(): Promise<void>;
}

/** The whole app in embedded mode on a free port with its own data directory, listening over HTTP. */
export async function startTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'joy-test-'));
  const port = await freePort();
  const config = loadConfig({
    PORT: String(port),
    DATA_DIR: dataDir,
    FRONTEND_DIST: join(dataDir, 'no-frontend'),
    // Tests sign many people in from one address; the rate-limit tests set their own limits.
    RATE_LIMIT_SIGNIN_PER_15_MIN: '10000',
    RATE_LIMIT_WRITES_PER_MIN: '10000',
    ...env,
  });
  const start = async () => {
    const running = await createApp(config, { logger: false });
    await running.app.listen(port, '127.0.0.1');
    return running;
  };
  const harness: TestApp = {
    baseUrl: config.publicUrl,
    config,
    running: await start(),
    async stop() {
      await harness.running.close();
    },
    async restart() {
      harness.running = await start();
    },
    async destroy() {
      try {
        await assertEventsMatchContract(harness.running.infra.store);
      } finally {
        await harness.running.close().catch(() => undefined);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}

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

/** supertest bound to the app, optionally as a signed-in user. */
export function api(baseUrl: string, cookie?: string) {
  const withCookie = <T extends request.Test>(t: T) => (cookie ? t.set('Cookie', cookie) : t);
  const agent = request(baseUrl);
  return {
    get: (path: string) => withCookie(agent.get(path)),
    post: (path: string, body?: object) => {
      const t = withCookie(agent.post(path));
      return body === undefined ? t : t.send(body);
    },
    delete: (path: string) => withCookie(agent.delete(path)),
  };
}
