import { addDays, dayOf, type RatingView } from '@joy/domain';
import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';

jest.setTimeout(60_000);

const scores = (n: number) => ({ relationships: n, health: n, purpose: n, growth: n, joy: n });

/**
 * GET /api/joy-ratings/recent (a review, 11-27): the Dashboard's and the Insights' trend and charts took the list's
 * first page, which goes by the time a rating was made; 50 missed days filled in today hid yesterday's rating.
 */
describe('the latest ratings by day over HTTP', () => {
  let app: TestApp;
  let ada: string;
  let bob: string;
  const as = (cookie?: string) => api(app.baseUrl, cookie);
  const today = () => dayOf(new Date(), 'UTC')!;
  const rate = async (cookie: string, body: object): Promise<RatingView> => {
    const res = await as(cookie).post('/api/joy-ratings', body);
    expect(res.status).toBe(201);
    return res.body;
  };
  const recent = async (cookie: string, query = ''): Promise<RatingView[]> => {
    const res = await as(cookie).get(`/api/joy-ratings/recent${query}`);
    expect(res.status).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    app = await startTestApp();
    ada = await signIn(app.baseUrl, 'ada@example.com', 'Ada');
    bob = await signIn(app.baseUrl, 'bob@example.com', 'Bob');
  });
  afterAll(() => app.destroy());

  it('answers [] before the first rating', async () => {
    expect(await recent(ada)).toEqual([]);
  });

  it('orders by the day rated, then the time made, with the notes: missed days filled in later come after the days they follow', async () => {
    const yesterday = await rate(ada, { ...scores(3), day: addDays(today(), -1), note: 'slept badly' });
    const now = await rate(ada, { ...scores(4), note: 'sunny' });
    const later = await rate(ada, scores(5)); // today again, made last
    // 30 missed days from the summer, made after all of them.
    const missed: RatingView[] = [];
    for (let i = 0; i < 30; i++) missed.push(await rate(ada, { ...scores(1), day: addDays(today(), -100 - i) }));
    // The list's first page goes by the time made: the missed days first.
    expect(((await as(ada).get('/api/joy-ratings?limit=3')).body as RatingView[]).map((r) => r.id)).toEqual(missed.slice(-3).reverse().map((r) => r.id));
    const latest = await recent(ada, '?limit=5');
    expect(latest.map((r) => r.id)).toEqual([later.id, now.id, yesterday.id, missed[0].id, missed[1].id]);
    expect(latest[1]).toEqual(now);
    expect(latest[2]).toMatchObject({ note: 'slept badly', day: addDays(today(), -1), overallScore: 3 });
    // Without a limit: the Dashboard's 14.
    expect(await recent(ada)).toHaveLength(14);
  });

  it('follows corrections and withdrawals', async () => {
    const [first, second] = await recent(ada, '?limit=2');
    expect((await as(ada).put(`/api/joy-ratings/${second.id}`, scores(2))).status).toBe(200);
    expect((await as(ada).delete(`/api/joy-ratings/${first.id}`)).status).toBe(204);
    const [top] = await recent(ada, '?limit=1');
    expect(top).toMatchObject({ id: second.id, overallScore: 2 });
  });

  it('keeps the note of the rating that becomes the latest when the newest is withdrawn (GET /latest too)', async () => {
    const cy = await signIn(app.baseUrl, 'cy@example.com', 'Cy');
    const before = await rate(cy, { ...scores(3), day: addDays(today(), -1), note: 'my private note about yesterday' });
    const newest = await rate(cy, { ...scores(4), note: 'today' });
    expect((await as(cy).delete(`/api/joy-ratings/${newest.id}`)).status).toBe(204);
    expect((await as(cy).get('/api/joy-ratings/latest')).body).toEqual(before);
    expect(await recent(cy)).toEqual([before]);
  });

  it('reaches ratings far apart (a sparse history read beyond its first weeks)', async () => {
    const old = await rate(bob, { ...scores(2), day: addDays(today(), -300) });
    const now = await rate(bob, scores(4));
    expect((await recent(bob, '?limit=10')).map((r) => r.id)).toEqual([now.id, old.id]);
  });

  it('never answers another person’s ratings', async () => {
    const mine = new Set((await recent(bob, '?limit=50')).map((r) => r.id));
    for (const r of await recent(ada, '?limit=50')) expect(mine.has(r.id)).toBe(false);
  });

  it('refuses a limit that is not a whole number from 1 to 50 with 400 naming it', async () => {
    for (const limit of ['0', '51', 'abc', '2.5', '-1', '']) {
      const res = await as(ada).get(`/api/joy-ratings/recent?limit=${limit}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'request.invalid', errors: [{ field: 'limit', message: 'limit must be a whole number from 1 to 50' }] });
    }
    expect((await as().get('/api/joy-ratings/recent')).status).toBe(401);
  });
});
