import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createApp, RunningApp } from '../app';
import { AppConfig, loadConfig } from '../config';
import { freePort } from '../bench/app-process';
export { signIn } from '../identity/dev-sign-in-client';
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
    patch: (path: string, body?: object) => {
      const t = withCookie(agent.patch(path));
      return body === undefined ? t : t.send(body);
    },
    delete: (path: string) => withCookie(agent.delete(path)),
  };
}
