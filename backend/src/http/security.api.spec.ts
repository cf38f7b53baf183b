import { api, editStoredSession, signIn, startTestApp, TestApp } from '../testing/app-harness';
import request from 'supertest';

const rating = { relationships: 3, health: 3, purpose: 3, growth: 3, joy: 3 };

describe('security of the HTTP edge', () => {
  let app: TestApp;
  let ada: string;
  beforeAll(async () => {
    app = await startTestApp();
    ada = await signIn(app.baseUrl, 'ada@example.com', 'Ada');
  });
  afterAll(() => app.destroy());

  it('sends security headers with a content security policy that admits the payment provider', async () => {
    const res = await api(app.baseUrl).get('/api/auth/user');
    const csp = res.headers['content-security-policy'];
    expect(csp).toMatch(/default-src 'self'/);
    expect(csp).toMatch(/script-src 'self' https:\/\/js\.stripe\.com/);
    expect(csp).toMatch(/frame-src [^;]*https:\/\/js\.stripe\.com/);
    expect(csp).toMatch(/frame-ancestors 'self'/);
    expect(csp).toMatch(/object-src 'none'/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('refuses state changes from another origin, and non-JSON bodies (CSRF)', async () => {
    const before = await app.running.infra.store.headPosition();
    expect((await api(app.baseUrl, ada).post('/api/joy-ratings', rating).set('Origin', 'https://evil.example')).status).toBe(403);
    expect((await api(app.baseUrl, ada).post('/api/joy-ratings').type('form').send('relationships=3')).status).toBe(415);
    expect((await api(app.baseUrl, ada).post('/api/joy-ratings').set('Content-Type', 'text/plain').send(JSON.stringify(rating))).status).toBe(415);
    expect(await app.running.infra.store.headPosition()).toBe(before);
    expect((await api(app.baseUrl, ada).post('/api/joy-ratings', rating).set('Origin', app.baseUrl)).status).toBe(201);
  });

  it('regenerates the session id at sign-in (no session fixation)', async () => {
    // Issue 14: starting a sign-in creates no session at all (its state is in a cookie of its own), so there is no
    // pre-login session id to plant; every sign-in gets a session id of its own.
    const start = await api(app.baseUrl).get('/api/login');
    expect(String(start.headers['set-cookie'])).not.toMatch(/joy\.sid=/);
    const first = await signIn(app.baseUrl, 'ada@example.com', 'Ada');
    const second = await signIn(app.baseUrl, 'ada@example.com', 'Ada');
    expect(second).not.toEqual(first);
  });

  it('ends a session a month after sign-in, however active it was (absolute timeout)', async () => {
    const cookie = await signIn(app.baseUrl, 'old@example.com', 'Old');
    expect((await api(app.baseUrl, cookie).get('/api/auth/user')).status).toBe(200);
    await app.stop(); // flush, then age the session where it is stored (the SQLite file, or Redis)
    const sid = decodeURIComponent(cookie.split('=')[1]).replace(/^s:/, '').split('.')[0];
    await editStoredSession(app, sid, (session) => {
      session.signedInAt = Date.now() - 31 * 24 * 3600 * 1000;
    });
    // The app keeps sessions in memory in front of the store: start it again so it reads the aged one.
    await app.restart();
    expect((await api(app.baseUrl, cookie).get('/api/auth/user')).status).toBe(401);
  });

  it('gives the session cookie an idle expiry of a week, renewed on use', async () => {
    const res = await api(app.baseUrl, ada).get('/api/auth/user');
    const setCookie = String(res.headers['set-cookie']);
    const expires = Date.parse(/Expires=([^;]+)/.exec(setCookie)![1]);
    expect(expires - Date.now()).toBeGreaterThan(6.9 * 24 * 3600 * 1000);
    expect(expires - Date.now()).toBeLessThan(7.1 * 24 * 3600 * 1000);
  });
});

describe('rate limits', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ RATE_LIMIT_SIGNIN_PER_15_MIN: '3', RATE_LIMIT_WRITES_PER_MIN: '5' });
  });
  afterAll(() => app.destroy());

  it('limits sign-in attempts per address', async () => {
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await api(app.baseUrl).get('/api/login')).status);
    expect(statuses).toEqual([302, 302, 302, 429, 429]);
    const limited = await api(app.baseUrl).get('/api/login');
    expect(limited.body.message).toBe('Too many sign-in attempts. Please wait a few minutes and try again.');
    // Pressing Sign In is a page the browser opens: it gets a page to read and a way back (was the JSON as raw text).
    const page = await request(app.baseUrl).get('/api/login').set('Accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8');
    expect([page.status, page.type]).toEqual([429, 'text/html']);
    expect(page.text).toContain('<h1>Please wait a few minutes</h1>');
    expect(page.text).toContain('Too many sign-in attempts. Please wait a few minutes and try again.');
    expect(page.text).toContain('<a class="button primary" href="/">Back to Joy</a>');
    expect(page.headers['retry-after']).toMatch(/^\d+$/);
  });

  // A review (11-27): GET /oidc/auth had no limit, and each request keeps a sign-in form in the provider's store.
  it('limits sign-in forms opened at the built-in provider per address, counted apart from /api/login', async () => {
    const limited = await startTestApp({ RATE_LIMIT_SIGNIN_PER_15_MIN: '3' });
    try {
      const start = new URL((await api(limited.baseUrl).get('/api/login')).headers.location ?? '', limited.baseUrl);
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await fetch(`${limited.baseUrl}/oidc/auth${start.search}`, { redirect: 'manual' })).status);
      expect(statuses).toEqual([303, 303, 303, 429, 429]);
      const page = await fetch(`${limited.baseUrl}/oidc/auth${start.search}`, { redirect: 'manual', headers: { Accept: 'text/html' } });
      expect([page.status, await page.text()]).toEqual([429, expect.stringContaining('Too many sign-in attempts.')]);
      // /api/login counted the one above only.
      expect((await api(limited.baseUrl).get('/api/login')).status).toBe(302);
    } finally {
      await limited.destroy();
    }
  });

  it('limits writes per user, and never reads', async () => {
    const limited = await startTestApp({ RATE_LIMIT_WRITES_PER_MIN: '5' });
    try {
      const cookie = await signIn(limited.baseUrl, 'busy@example.com', 'Busy');
      const statuses = [];
      for (let i = 0; i < 7; i++) statuses.push((await api(limited.baseUrl, cookie).post('/api/joy-ratings', rating)).status);
      expect(statuses).toEqual([201, 201, 201, 201, 201, 429, 429]);
      expect((await api(limited.baseUrl, cookie).get('/api/joy-ratings')).body).toHaveLength(5);
      // Another person is not slowed down by the first.
      const other = await signIn(limited.baseUrl, 'calm@example.com', 'Calm');
      expect((await api(limited.baseUrl, other).post('/api/joy-ratings', rating)).status).toBe(201);
    } finally {
      await limited.destroy();
    }
  });

  it("limits a person's exports and imports per hour (each reads or writes a whole history), before reading the file", async () => {
    const limited = await startTestApp({ RATE_LIMIT_ACCOUNT_FILES_PER_HOUR: '3' });
    try {
      const cookie = await signIn(limited.baseUrl, 'mover@example.com', 'Mover');
      const file = { formatVersion: 1, ratings: [{ id: 'r1', createdAt: '2026-01-05T08:00:00.000Z', relationships: 3, health: 3, purpose: 3, growth: 3, joy: 3 }] };
      // A mistyped export is refused and not counted.
      for (let i = 0; i < 4; i++) expect((await api(limited.baseUrl, cookie).get('/api/account/export?format=xml')).status).toBe(400);
      // So is one asked with HEAD (Express answers it with the GET route).
      const agent = request(limited.baseUrl);
      for (let i = 0; i < 4; i++) expect((await agent.head('/api/account/export?format=xml').set('Cookie', cookie)).status).toBe(400);
      const statuses = [
        (await api(limited.baseUrl, cookie).get('/api/account/export?format=json')).status,
        (await api(limited.baseUrl, cookie).get('/api/account/export?format=csv')).status,
        (await api(limited.baseUrl, cookie).post('/api/account/import', file)).status,
      ];
      expect(statuses).toEqual([200, 200, 200]);
      const head = await limited.running.infra.store.headPosition();
      const refused = await api(limited.baseUrl, cookie).post('/api/account/import', { ...file, ratings: [{ ...file.ratings[0], id: 'r2', joy: 4 }] });
      expect([refused.status, refused.body.code]).toEqual([429, 'request.rate_limited']);
      expect(refused.body.message).toBe('You have downloaded or imported your data many times in the last hour. Please try again later.');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(await limited.running.infra.store.headPosition()).toBe(head);
      expect((await api(limited.baseUrl, cookie).get('/api/account/export?format=json')).status).toBe(429);
      // Everything else still answers, and another person is not limited by the first.
      expect((await api(limited.baseUrl, cookie).get('/api/joy-ratings')).status).toBe(200);
      const other = await signIn(limited.baseUrl, 'stayer@example.com', 'Stayer');
      expect((await api(limited.baseUrl, other).get('/api/account/export?format=json')).status).toBe(200);
    } finally {
      await limited.destroy();
    }
  });
});

describe('rate limits shared through Redis', () => {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

  it('keeps the counts in Redis when REDIS_URL is set: a restarted process (or another api replica) goes on counting', async () => {
    const prefix = `joy-test-rl-${Date.now().toString(36)}`;
    const app = await startTestApp({ REDIS_URL: redisUrl, REDIS_PREFIX: prefix, RATE_LIMIT_WRITES_PER_MIN: '3' });
    try {
      const cookie = await signIn(app.baseUrl, 'counted@example.com', 'Counted');
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await api(app.baseUrl, cookie).post('/api/joy-ratings', rating)).status);
      expect(statuses).toEqual([201, 201, 201]);
      expect(await app.running.infra.redis!.keys(`${prefix}:rl:writes:*`)).toHaveLength(1);
      await app.stop();
      await app.restart();
      // In memory the count would have started again at 0.
      const refused = await api(app.baseUrl, cookie).post('/api/joy-ratings', rating);
      expect([refused.status, refused.body.code]).toEqual([429, 'request.rate_limited']);
    } finally {
      await app.destroy();
    }
  });
});

describe('guessing invite codes', () => {
  it('counts codes that match no group per address, across accounts, and never the codes that work', async () => {
    const app = await startTestApp({ RATE_LIMIT_INVITE_MISSES_PER_15_MIN: '3' });
    try {
      const owner = await signIn(app.baseUrl, 'owner@example.com', 'Owner');
      const group = (await api(app.baseUrl, owner).post('/api/groups', { name: 'Family' })).body as { inviteCode: string };
      const guessers = [await signIn(app.baseUrl, 'g1@example.com', 'G1'), await signIn(app.baseUrl, 'g2@example.com', 'G2')];
      const join = (cookie: string, inviteCode: string) => api(app.baseUrl, cookie).post('/api/groups/join', { inviteCode });
      // A code that works is not counted, however often.
      for (let i = 0; i < 4; i++) expect((await join(owner, group.inviteCode)).status).toBe(409); // already a member
      const statuses = [];
      for (const code of ['ABCD2345', 'ABCD2346', 'ABCD2347', 'ABCD2348']) statuses.push((await join(guessers[statuses.length % 2], code)).status);
      expect(statuses).toEqual([404, 404, 404, 429]);
      const refused = await join(guessers[1], 'ABCD2349');
      expect(refused.body).toEqual({
        statusCode: 429,
        code: 'request.rate_limited',
        message: 'Joining by invite code is paused for 15 minutes: too many codes sent from your network matched no group.',
      });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      // While paused, the right code waits too (checked before the code is looked up).
      expect((await join(guessers[0], group.inviteCode)).status).toBe(429);
      // Other writes from the address are not slowed down.
      expect((await api(app.baseUrl, guessers[0]).post('/api/joy-ratings', rating)).status).toBe(201);
    } finally {
      await app.destroy();
    }
  });
});

describe('cookies over https', () => {
  it('marks the session cookie Secure when the app is served over https', async () => {
    const app = await startTestApp({ PUBLIC_URL: 'https://joy.example', TRUST_PROXY: '1' });
    try {
      // As behind the TLS-terminating proxy such a deployment has.
      const res = await api(`http://127.0.0.1:${app.config.port}`).get('/api/login').set('X-Forwarded-Proto', 'https');
      expect(String(res.headers['set-cookie'])).toMatch(/Secure/);
    } finally {
      await app.destroy();
    }
  });
});
