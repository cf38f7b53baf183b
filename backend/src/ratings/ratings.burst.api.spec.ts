import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';
import { manyRatingsBody as rating } from '../bench/rating-bodies';


/**
 * One person sends 300 ratings at once (a stuck button, a script): every answer is 201 or 429 (never a 500 from
 * a version conflict), each 429 says when to come back, and every acknowledged rating is stored exactly once.
 * (How fast the answers come is a figure of `npm run bench`, not asserted here.)
 */
describe('a burst of 300 concurrent writes by one person', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ RATE_LIMIT_WRITES_PER_MIN: '120' });
  });
  afterAll(() => app.destroy());

  it('answers 201 or 429 with Retry-After, and stores each acknowledged rating once', async () => {
    const cookie = await signIn(app.baseUrl, 'burst@example.com', 'Burst');
    const userId = (await api(app.baseUrl, cookie).get('/api/auth/user')).body.id as string;
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        fetch(`${app.baseUrl}/api/joy-ratings`, {
          method: 'POST',
          headers: { cookie, 'content-type': 'application/json' },
          body: JSON.stringify(rating(i)),
        }).then(async (res) => ({ status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() })),
      ),
    );
    const statuses = new Set(answers.map((a) => a.status));
    expect([...statuses].sort()).toEqual([201, 429]);
    const acknowledged = answers.filter((a) => a.status === 201).map((a) => a.body.id as string);
    expect(acknowledged).toHaveLength(120);
    for (const limited of answers.filter((a) => a.status === 429)) {
      expect(Number(limited.retryAfter)).toBeGreaterThan(0);
      expect(limited.body.message).toBe('Too many requests. Please slow down and try again in a minute.');
    }

    const stored = (await app.running.infra.store.readStream(`ratings-${userId}`)).map((e) => e.data.ratingId as string);
    expect(stored).toHaveLength(acknowledged.length);
    expect(new Set(stored)).toEqual(new Set(acknowledged));
    const listed = (await api(app.baseUrl, cookie).get('/api/joy-ratings?limit=200')).body.map((r: { id: string }) => r.id);
    expect(new Set(listed)).toEqual(new Set(acknowledged));
  });
});
