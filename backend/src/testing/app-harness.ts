import { Redis } from 'ioredis';
import Database from 'better-sqlite3';
import { MongoClient } from 'mongodb';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { listenOnEdge } from '../http/server-edge';
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

/**
 * The production backends a test app runs on when `TEST_APP_BACKENDS=env` (the GitHub workflow's API suite): the
 * servers of MONGO_URL, EVENTSTORE_URL and REDIS_URL, each app with a database of its own on MongoDB and a key
 * prefix of its own on Redis. On EventStoreDB the apps share the log: their people never meet, because an account
 * is found by the identity provider's issuer, which names the app's port. Else: the embedded default.
 */
export function serverBackends(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  if (source.TEST_APP_BACKENDS !== 'env') return {};
  const own = `joy_api_${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  return {
    ...(source.MONGO_URL ? { MONGO_URL: withDatabase(source.MONGO_URL, own) } : {}),
    ...(source.EVENTSTORE_URL ? { EVENTSTORE_URL: source.EVENTSTORE_URL } : {}),
    ...(source.REDIS_URL ? { REDIS_URL: source.REDIS_URL, REDIS_PREFIX: own } : {}),
  };
}

/** Deletes the keys of one prefix (a test app's queues, leases and sessions). */
async function deleteRedisKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    for await (const keys of redis.scanStream({ match: `${prefix}:*`, count: 500 })) {
      if ((keys as string[]).length > 0) await redis.del(...(keys as string[]));
    }
  } finally {
    redis.disconnect();
  }
}

/** A MongoDB connection string naming another database (hosts and options kept). */
export function withDatabase(url: string, db: string): string {
  const m = /^(mongodb(?:\+srv)?:\/\/[^/?]+)(?:\/[^?]*)?(\?.*)?$/.exec(url);
  if (!m) throw new Error(`MONGO_URL is not a MongoDB connection string: ${url}`);
  return `${m[1]}/${db}${m[2] ?? ''}`;
}

/** The whole app on a free port with its own data directory, listening over HTTP (embedded unless serverBackends). */
export async function startTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'joy-test-'));
  const port = await freePort();
  const backends = serverBackends();
  /** The MongoDB database made for this app (dropped with it). */
  const ownMongo = backends.MONGO_URL && !env.MONGO_URL ? backends.MONGO_URL : null;
  const config = loadConfig({
    PORT: String(port),
    DATA_DIR: dataDir,
    FRONTEND_DIST: join(dataDir, 'no-frontend'),
    // Development conveniences, opted into explicitly: most tests sign people in with the password-less form and
    // pay in the sandbox. Tests of a real install pass AUTH_DEV_LOGIN: '0' / BILLING_SANDBOX: '0'.
    AUTH_DEV_LOGIN: '1',
    ...(env.STRIPE_SECRET_KEY ? {} : { BILLING_SANDBOX: '1' }),
    // Tests sign many people in from one address; the rate-limit tests set their own limits.
    RATE_LIMIT_SIGNIN_PER_15_MIN: '10000',
    RATE_LIMIT_WRITES_PER_MIN: '10000',
    RATE_LIMIT_ACCOUNT_FILES_PER_HOUR: '10000',
    RATE_LIMIT_INVITE_MISSES_PER_15_MIN: '10000',
    // The app shares its event loop with Jest, the test's clients and its seeding here, so its lateness is not the
    // app's: no load shedding (the shedding test, http/server-edge.api.spec.ts, turns it on with its own threshold).
    SHED_EVENT_LOOP_DELAY_MS: '0',
    ...backends,
    ...env,
  });
  const start = async () => {
    const running = await createApp(config, { logger: false });
    await listenOnEdge(running.app, config.port, '127.0.0.1');
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
      if (ownMongo) {
        const client = new MongoClient(ownMongo);
        await client.db().dropDatabase().finally(() => client.close());
      }
      if (backends.REDIS_PREFIX && !env.REDIS_URL) await deleteRedisKeys(backends.REDIS_URL, backends.REDIS_PREFIX);
    },
  };
  return harness;
}

/**
 * Rewrites a stored session where the app keeps it (the SQLite file, or Redis when REDIS_URL is set), as an
 * operator or an attacker with access to the store could: call it while the app is stopped, then restart it.
 */
export async function editStoredSession(app: TestApp, sid: string, edit: (session: Record<string, unknown>) => void): Promise<void> {
  const { redisUrl, redisPrefix, dataDir } = app.config;
  if (redisUrl) {
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
    try {
      const key = `${redisPrefix}:sess:${sid}`;
      const session = JSON.parse((await redis.get(key)) ?? 'null');
      if (!session) throw new Error(`No session ${sid} in Redis`);
      edit(session);
      await redis.set(key, JSON.stringify(session), 'KEEPTTL');
    } finally {
      redis.disconnect();
    }
    return;
  }
  const db = new Database(join(dataDir, 'sessions.sqlite'));
  try {
    const row = db.prepare<[string], { data: string }>('SELECT data FROM sessions WHERE sid = ?').get(sid);
    if (!row) throw new Error(`No session ${sid} in sessions.sqlite`);
    const session = JSON.parse(row.data);
    edit(session);
    db.prepare('UPDATE sessions SET data = ? WHERE sid = ?').run(JSON.stringify(session), sid);
  } finally {
    db.close();
  }
}

/** How many sessions the app has stored (rows of sessions.sqlite, or its session keys in Redis). */
export async function storedSessionCount(app: TestApp): Promise<number> {
  const { redisUrl, redisPrefix, dataDir } = app.config;
  if (redisUrl) {
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
    try {
      let count = 0;
      for await (const keys of redis.scanStream({ match: `${redisPrefix}:sess:*`, count: 500 })) count += (keys as string[]).length;
      return count;
    } finally {
      redis.disconnect();
    }
  }
  const db = new Database(join(dataDir, 'sessions.sqlite'), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n;
  } finally {
    db.close();
  }
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
    put: (path: string, body?: object) => {
      const t = withCookie(agent.put(path));
      return body === undefined ? t : t.send(body);
    },
    delete: (path: string) => withCookie(agent.delete(path)),
  };
}

/**
 * A person's whole rating list, newest first, page after page (GET /api/joy-ratings answers one page at a time;
 * X-Next-Before names the next). Fails the test on any answer other than 200.
 */
export async function allRatingsOf<T = { id: string }>(baseUrl: string, cookie: string): Promise<T[]> {
  const all: T[] = [];
  for (let url = '/api/joy-ratings?limit=200'; ; ) {
    const res = await api(baseUrl, cookie).get(url);
    if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${JSON.stringify(res.body)}`);
    all.push(...(res.body as T[]));
    const next = res.headers['x-next-before'] as string | undefined;
    if (!next) return all;
    url = `/api/joy-ratings?limit=200&before=${encodeURIComponent(next)}`;
  }
}
