import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';

const valid = { relationships: 4, health: 3, purpose: 5, growth: 2, joy: 4 };

describe('ratings over HTTP', () => {
  let app: TestApp;
  let ada: string;
  let bob: string;
  const eventCount = async () => (await app.running.infra.store.headPosition());

  beforeAll(async () => {
    app = await startTestApp();
    ada = await signIn(app.baseUrl, 'ada@example.com', 'Ada');
    bob = await signIn(app.baseUrl, 'bob@example.com', 'Bob');
  });
  afterAll(() => app.destroy());

  it('refuses every ratings route to a signed-out caller', async () => {
    for (const res of [
      await api(app.baseUrl).get('/api/joy-ratings'),
      await api(app.baseUrl).get('/api/joy-ratings/latest'),
      await api(app.baseUrl).post('/api/joy-ratings', valid),
      await api(app.baseUrl).get('/api/subscription-status'),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body.message).toBe('Unauthorized');
    }
  });

  it('answers latest with JSON null and an empty list before the first rating', async () => {
    const latest = await api(app.baseUrl, ada).get('/api/joy-ratings/latest');
    expect(latest.status).toBe(200);
    expect(latest.headers['content-type']).toMatch(/application\/json/);
    expect(latest.text).toBe('null');
    expect((await api(app.baseUrl, ada).get('/api/joy-ratings')).body).toEqual([]);
  });

  it('stores a rating with the overall score computed by the server, and shows it at once', async () => {
    const res = await api(app.baseUrl, ada).post('/api/joy-ratings', valid);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), createdAt: expect.any(String), overallScore: 3.6, ...valid, day: res.body.createdAt.slice(0, 10), note: null });
    expect(Date.now() - Date.parse(res.body.createdAt)).toBeLessThan(60_000);

    const latest = await api(app.baseUrl, ada).get('/api/joy-ratings/latest');
    expect(latest.body).toEqual(res.body);
    const list = await api(app.baseUrl, ada).get('/api/joy-ratings');
    expect(list.body).toEqual([res.body]);
  });

  it('lists ratings newest first', async () => {
    const second = await api(app.baseUrl, ada).post('/api/joy-ratings', { ...valid, joy: 5, growth: 5 });
    const third = await api(app.baseUrl, ada).post('/api/joy-ratings', { relationships: 1, health: 1, purpose: 1, growth: 1, joy: 1 });
    const list = await api(app.baseUrl, ada).get('/api/joy-ratings');
    expect(list.body.map((r: { id: string }) => r.id).slice(0, 2)).toEqual([third.body.id, second.body.id]);
    expect(list.body[0].overallScore).toBe(1);
    expect((await api(app.baseUrl, ada).get('/api/joy-ratings/latest')).body.id).toBe(third.body.id);
  });

  it("never shows one user another user's ratings", async () => {
    expect((await api(app.baseUrl, bob).get('/api/joy-ratings')).body).toEqual([]);
    expect((await api(app.baseUrl, bob).get('/api/joy-ratings/latest')).text).toBe('null');
  });

  const bad: [string, object, string][] = [
    ['a missing factor', { relationships: 3, health: 3, purpose: 3, growth: 3 }, 'joy'],
    ['zero', { ...valid, health: 0 }, 'health'],
    ['six', { ...valid, purpose: 6 }, 'purpose'],
    ['a fraction', { ...valid, growth: 2.5 }, 'growth'],
    ['a numeric string', { ...valid, relationships: '3' }, 'relationships'],
    ['null', { ...valid, joy: null }, 'joy'],
    ['a boolean', { ...valid, health: true }, 'health'],
    ['an array', { ...valid, health: [3] }, 'health'],
    ['an object', { ...valid, health: { value: 3 } }, 'health'],
    ['an extra field', { ...valid, mood: 3 }, 'mood'],
    ['a client-sent overall score', { ...valid, overallScore: 5 }, 'overallScore'],
  ];
  it.each(bad)('refuses %s with 400 naming the field, and appends nothing', async (_label, body, field) => {
    const before = await eventCount();
    const res = await api(app.baseUrl, bob).post('/api/joy-ratings', body);
    expect(res.status).toBe(400);
    expect(res.body.statusCode).toBe(400);
    expect(res.body.message).toContain(field);
    expect(await eventCount()).toBe(before);
  });

  it('refuses a body that is not JSON', async () => {
    const before = await eventCount();
    const broken = await api(app.baseUrl, bob).post('/api/joy-ratings').set('Content-Type', 'application/json').send('{"joy": 3,');
    expect(broken.status).toBe(400);
    expect(broken.body.message).toBe('Request body is not valid JSON');
    const form = await api(app.baseUrl, bob).post('/api/joy-ratings').type('form').send('joy=3');
    expect(form.status).toBe(415);
    expect(await eventCount()).toBe(before);
  });

  it('refuses a write from another origin', async () => {
    const res = await api(app.baseUrl, bob).post('/api/joy-ratings', valid).set('Origin', 'https://evil.example');
    expect(res.status).toBe(403);
  });

  it('answers the free plan until billing says otherwise', async () => {
    const res = await api(app.baseUrl, ada).get('/api/subscription-status');
    expect(res.body).toEqual({ isPremium: false, status: 'free', currentPeriodEnd: null, cancelAtPeriodEnd: false });
  });

  it('keeps every rating across a restart', async () => {
    const before = (await api(app.baseUrl, ada).get('/api/joy-ratings')).body;
    expect(before).toHaveLength(3);
    await app.stop();
    await app.restart();
    expect((await api(app.baseUrl, ada).get('/api/joy-ratings')).body).toEqual(before);
  });

  it('answers unknown API routes with a JSON 404', async () => {
    const res = await api(app.baseUrl, ada).get('/api/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body.statusCode).toBe(404);
  });

  describe('Idempotency-Key', () => {
    const save = (cookie: string, key: string, body: object = valid) => api(app.baseUrl, cookie).post('/api/joy-ratings', body).set('Idempotency-Key', key);
    const ratingCount = async (cookie: string) => (await api(app.baseUrl, cookie).get('/api/joy-ratings')).body.length;

    it('answers the same rating to the same key and stores it once, also when the requests race', async () => {
      const cleo = await signIn(app.baseUrl, 'cleo@example.com', 'Cleo');
      const first = await save(cleo, 'save-1');
      expect(first.status).toBe(201);
      const again = await save(cleo, 'save-1');
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      // A double click: five at once with one key.
      const burst = await Promise.all(Array.from({ length: 5 }, () => save(cleo, 'save-2')));
      expect(burst.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
      expect(new Set(burst.map((r) => r.body.id)).size).toBe(1);
      expect(await ratingCount(cleo)).toBe(2);
    });

    it('keeps keys per person: another person with the same key gets a rating of their own', async () => {
      const dan = await signIn(app.baseUrl, 'dan@example.com', 'Dan');
      const eve = await signIn(app.baseUrl, 'eve@example.com', 'Eve');
      const a = await save(dan, 'shared-key');
      const b = await save(eve, 'shared-key');
      expect(b.status).toBe(201);
      expect(b.body.id).not.toBe(a.body.id);
      expect(await ratingCount(eve)).toBe(1);
    });

    it('refuses a key that saved a different rating with 409, storing nothing', async () => {
      const fay = await signIn(app.baseUrl, 'fay@example.com', 'Fay');
      await save(fay, 'save-3');
      const before = await eventCount();
      const other = await save(fay, 'save-3', { ...valid, joy: 1 });
      expect(other.status).toBe(409);
      expect(other.body).toEqual({
        statusCode: 409,
        code: 'rating.idempotency_key_reused',
        message: 'This Idempotency-Key already saved a different rating; send a new key for a new rating',
      });
      expect(await eventCount()).toBe(before);
    });

    it('refuses the same save again after its rating was deleted with 409, storing nothing', async () => {
      const gus = await signIn(app.baseUrl, 'gus@example.com', 'Gus');
      const first = await save(gus, 'save-4');
      expect((await api(app.baseUrl, gus).delete(`/api/joy-ratings/${first.body.id}`)).status).toBe(204);
      const before = await eventCount();
      const again = await save(gus, 'save-4');
      expect(again.status).toBe(409);
      expect(again.body).toEqual({
        statusCode: 409,
        code: 'rating.idempotency_key_withdrawn',
        message: 'The rating this Idempotency-Key saved has been deleted since; send a new key to save a new rating',
      });
      expect(await eventCount()).toBe(before);
      expect(await ratingCount(gus)).toBe(0);
    });

    it('refuses a malformed key with 400 naming the header, storing nothing', async () => {
      const before = await eventCount();
      for (const key of ['x'.repeat(256), 'with space']) {
        const res = await save(ada, key);
        expect(res.status).toBe(400);
        expect(res.body.errors).toEqual([{ field: 'Idempotency-Key', message: 'Idempotency-Key must be 1 to 255 visible ASCII characters' }]);
      }
      expect(await eventCount()).toBe(before);
    });
  });
});
