import RedisStore from 'connect-redis';
import type { SessionData } from 'express-session';
import { Redis } from 'ioredis';
import { runUsers } from '../ops/users-command';
import { api, startTestApp } from '../testing/app-harness';
import { deleteRedisKeys, redisAnswers } from '../testing/wait';
import { signInWithPassword, signUp } from './dev-sign-in-client';
import { indexedRedisSessions } from './redis-session-store';
import { ABSOLUTE_TIMEOUT_MS } from './session';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const available = redisAnswers(redisUrl);
if (!available) console.warn(`Redis does not answer at ${redisUrl}: the Redis session store's tests are skipped`);
const describeRedis = available ? describe : describe.skip;

const signedIn = (user: string): SessionData => ({ cookie: { originalMaxAge: 60_000, expires: new Date(Date.now() + 60_000) }, passport: { user } }) as unknown as SessionData;
const promised = (run: (cb: (err?: unknown) => void) => void) => new Promise<void>((resolve, reject) => run((err) => (err ? reject(err) : resolve())));

describeRedis('the Redis session store ends every session of one person', () => {
  const prefix = `joytest-sess-${process.pid}-${Date.now().toString(36)}`;
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    await deleteRedisKeys(redisUrl, prefix);
    redis.disconnect();
  });

  it("ends Ada's two sessions, and only hers", async () => {
    const store = indexedRedisSessions(RedisStore, redis, prefix);
    await promised((cb) => store.set('ada-phone', signedIn('ada'), cb));
    await promised((cb) => store.set('ada-laptop', signedIn('ada'), cb));
    await promised((cb) => store.set('bob-phone', signedIn('bob'), cb));
    // A visitor's session (the sign-in flow's state) is not anyone's.
    await promised((cb) => store.set('visitor', { cookie: signedIn('x').cookie } as SessionData, cb));

    expect(await store.destroyAllOf('ada')).toBe(2);
    expect(await redis.exists(`${prefix}:sess:ada-phone`, `${prefix}:sess:ada-laptop`)).toBe(0);
    expect(await redis.exists(`${prefix}:sess:bob-phone`, `${prefix}:sess:visitor`)).toBe(2);
    expect(await store.destroyAllOf('ada')).toBe(0);
    expect(await store.destroyAllOf('bob')).toBe(1);
  });

  it('keeps the index no longer than a session can live after its sign-in', async () => {
    const store = indexedRedisSessions(RedisStore, redis, prefix);
    await promised((cb) => store.set('cleo-phone', signedIn('cleo'), cb));
    const ttl = await redis.ttl(`${prefix}:sess-of:cleo`);
    expect(ttl).toBeGreaterThan(ABSOLUTE_TIMEOUT_MS / 1000 - 60);
    expect(ttl).toBeLessThanOrEqual(ABSOLUTE_TIMEOUT_MS / 1000);
  });

  it('a password reset on an install with REDIS_URL signs out whoever held the account', async () => {
    const appPrefix = `${prefix}-app`;
    const app = await startTestApp({ AUTH_DEV_LOGIN: '0', BILLING_SANDBOX: '0', REDIS_URL: redisUrl, REDIS_PREFIX: appPrefix });
    try {
      const email = 'sunniva.redisholm@example.com';
      const squatter = await signUp(app.baseUrl, { firstName: 'Sunniva', email, password: 'lantern-orchard-meadow-7' });
      expect((await api(app.baseUrl, squatter).get('/api/auth/user')).status).toBe(200);
      expect((await redis.keys(`${appPrefix}:sess:*`)).length).toBeGreaterThan(0);

      let out = '';
      const io = { out: (t: string) => void (out += t), err: () => undefined, env: { DATA_DIR: app.config.dataDir, PUBLIC_URL: app.baseUrl } };
      expect(await runUsers(['reset-password', email], io)).toBe(0);
      const link = out.match(/http\S+\/oidc\/reset\/\S+/)![0];
      const body = new URLSearchParams({ password: 'copper-willow-station-41', confirm: 'copper-willow-station-41' }).toString();
      const done = await fetch(link, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
      expect(await done.text()).toContain('Password changed');

      expect((await api(app.baseUrl, squatter).get('/api/auth/user')).status).toBe(401);
      const owner = await signInWithPassword(app.baseUrl, email, 'copper-willow-station-41');
      expect((await api(app.baseUrl, owner.cookie!).get('/api/auth/user')).status).toBe(200);
    } finally {
      await app.destroy();
      await deleteRedisKeys(redisUrl, appPrefix);
    }
  });
});
