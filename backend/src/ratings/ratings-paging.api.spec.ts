import { FACTOR_NAMES, type RatingView } from '@joy/domain';
import { metadataFor } from '../event-store/decider';
import type { EventToAppend } from '../event-store/event-store.port';
import { api, signIn, startTestApp, type TestApp } from '../testing/app-harness';

jest.setTimeout(120_000);

const HOUR_MS = 3600 * 1000;
/** More than two rating-index chunks (500 each): pages cross chunk borders. */
const SEEDED = 1_234;
const scores = { relationships: 4, health: 3, purpose: 5, growth: 2, joy: 4 };

/** RatingSubmitted events of `count` ratings, one an hour from `start`, as the app stores them. */
function ratingEvents(userId: string, start: number, count: number, tag: string): EventToAppend[] {
  return Array.from({ length: count }, (_, i) => {
    const s = FACTOR_NAMES.map((_f, k) => 1 + ((i + k) % 5));
    const factors = Object.fromEntries(FACTOR_NAMES.map((f, k) => [f, s[k]]));
    const overallScore = Math.round((s.reduce((a, b) => a + b, 0) / 5) * 10) / 10;
    const ratingId = `00000000-0000-4000-${tag}-${String(i).padStart(12, '0')}`;
    const data = { ratingId, userId, ...factors, overallScore, submittedAt: new Date(start + i * HOUR_MS).toISOString() };
    return { type: 'RatingSubmitted', data, metadata: metadataFor({ actorUserId: userId }, ratingId) };
  });
}

describe('the rating list in pages (GET /api/joy-ratings?limit=&before=)', () => {
  let app: TestApp;
  let ada: string; // 1,234 seeded ratings, older ones imported, one made today
  let bob: string; // no ratings
  const as = (cookie?: string) => api(app.baseUrl, cookie);
  const ids = (list: RatingView[]) => list.map((r) => r.id);

  /**
   * The whole list as the account export has it (read from the events, not through the pages), newest first: what
   * following the pages must give. The export lists oldest first, ratings made at the same instant in stream order.
   */
  async function wholeList(cookie: string): Promise<RatingView[]> {
    const res = await as(cookie).get('/api/account/export?format=json');
    expect(res.status).toBe(200);
    return (JSON.parse(res.text).ratings as RatingView[]).reverse();
  }

  /** Every page from the first, following X-Next-Before; checks that Link names the same cursor. */
  async function allPages(cookie: string, limit: number): Promise<RatingView[][]> {
    const pages: RatingView[][] = [];
    let url = `/api/joy-ratings?limit=${limit}`;
    for (;;) {
      const res = await as(cookie).get(url);
      expect(res.status).toBe(200);
      expect(Array.isArray(res.body)).toBe(true);
      pages.push(res.body);
      const next = res.headers['x-next-before'] as string | undefined;
      if (!next) {
        expect(res.headers.link).toBeUndefined();
        return pages;
      }
      expect(res.headers.link).toBe(`</api/joy-ratings?limit=${limit}&before=${next}>; rel="next"`);
      url = `/api/joy-ratings?limit=${limit}&before=${next}`;
    }
  }

  beforeAll(async () => {
    app = await startTestApp({ RATE_LIMIT_WRITES_PER_MIN: '10000' });
    ada = await signIn(app.baseUrl, 'ada@paging.example', 'Ada');
    bob = await signIn(app.baseUrl, 'bob@paging.example', 'Bob');
    const adaId = (await as(ada).get('/api/auth/user')).body.id as string;
    // Seeded straight into the store, in time order (a request each would be slow), ending a day ago.
    const start = Date.now() - (SEEDED + 24) * HOUR_MS;
    await app.running.infra.store.appendToStream(`ratings-${adaId}`, ratingEvents(adaId, start, SEEDED, '8000'), { expectedVersion: 0 });
    // Ratings made elsewhere, imported now: some older than all of them, some between them (half-hours).
    const imported = [
      ...Array.from({ length: 30 }, (_, i) => ({ id: `old-${i}`, createdAt: new Date(start - (i + 1) * 24 * HOUR_MS).toISOString(), ...scores })),
      ...Array.from({ length: 20 }, (_, i) => ({ id: `between-${i}`, createdAt: new Date(start + (SEEDED - 10 - i * 60) * HOUR_MS + HOUR_MS / 2).toISOString(), ...scores, joy: 1 })),
    ];
    expect((await as(ada).post('/api/account/import', { formatVersion: 1, ratings: imported })).body).toEqual({ imported: 50, skipped: 0 });
    // And one made today through the API (which also waits for the projections to take the seeded ones).
    expect((await as(ada).post('/api/joy-ratings', scores)).status).toBe(201);
  });
  afterAll(() => app?.destroy());

  it('answers the newest ratings first, as many as asked, with the next page named in X-Next-Before and Link', async () => {
    const whole = await wholeList(ada);
    expect(whole).toHaveLength(SEEDED + 51);
    const first = await as(ada).get('/api/joy-ratings?limit=20');
    expect(first.status).toBe(200);
    expect(first.body).toEqual(whole.slice(0, 20));
    expect(first.headers['x-next-before']).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(first.headers.link).toMatch(/^<\/api\/joy-ratings\?limit=20&before=[A-Za-z0-9_-]+>; rel="next"$/);
  });

  it('gives every rating exactly once, in the order of the whole list, when the pages are followed to the end', async () => {
    const whole = await wholeList(ada);
    for (const limit of [200, 77]) {
      const pages = await allPages(ada, limit);
      expect(pages.length).toBe(Math.ceil(whole.length / limit));
      expect(pages.slice(0, -1).every((p) => p.length === limit)).toBe(true);
      expect(ids(pages.flat())).toEqual(ids(whole));
    }
    // The imported ratings are at their times: between the seeded ones and after them all.
    const flat = (await allPages(ada, 200)).flat();
    expect(flat.slice(-30).every((r) => r.id !== undefined && r.overallScore === 3.6)).toBe(true);
    const times = flat.map((r) => Date.parse(r.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('answers the first page of 50, newest first, with the next page named, when asked with neither limit nor before', async () => {
    const res = await as(ada).get('/api/joy-ratings');
    expect(res.status).toBe(200);
    expect(res.body).toEqual((await wholeList(ada)).slice(0, 50));
    // The one made today through the API comes first.
    expect(Date.parse(res.body[0].createdAt)).toBeGreaterThan(Date.now() - 3_600_000);
    expect(res.headers.link).toBe(`</api/joy-ratings?limit=50&before=${res.headers['x-next-before']}>; rel="next"`);
    expect(ids((await as(ada).get(`/api/joy-ratings?before=${res.headers['x-next-before']}`)).body)).toEqual(ids((await wholeList(ada)).slice(50, 100)));
  });

  it('answers 50 ratings when a page is asked for without a limit, and 200 at most', async () => {
    const first = await as(ada).get('/api/joy-ratings?limit=200');
    expect(first.body).toHaveLength(200);
    const next = first.headers['x-next-before'] as string;
    const page = await as(ada).get(`/api/joy-ratings?before=${next}`);
    expect(page.status).toBe(200);
    expect(page.body).toHaveLength(50);
    expect(page.body[0]).toEqual((await wholeList(ada))[200]);
    expect(page.headers.link).toBe(`</api/joy-ratings?limit=50&before=${page.headers['x-next-before']}>; rel="next"`);
  });

  it('shows a corrected rating with its new values in its place, and a withdrawn one no more', async () => {
    const [top, second, third] = (await as(ada).get('/api/joy-ratings?limit=3')).body as RatingView[];
    expect((await as(ada).put(`/api/joy-ratings/${second.id}`, { relationships: 1, health: 1, purpose: 1, growth: 1, joy: 1 })).status).toBe(200);
    expect((await as(ada).delete(`/api/joy-ratings/${top.id}`)).status).toBe(204);
    const page: RatingView[] = (await as(ada).get('/api/joy-ratings?limit=2')).body;
    expect(ids(page)).toEqual([second.id, third.id]);
    expect(page[0]).toMatchObject({ overallScore: 1, joy: 1 });
    // The next page goes on after the last rating shown.
    const next = (await as(ada).get('/api/joy-ratings?limit=2')).headers['x-next-before'];
    const whole = await wholeList(ada);
    expect(ids((await as(ada).get(`/api/joy-ratings?limit=2&before=${next}`)).body)).toEqual(ids(whole.slice(2, 4)));
  });

  it('answers an empty page without a next one to a person with no ratings, and never shows another person’s', async () => {
    const res = await as(bob).get('/api/joy-ratings?limit=10');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(res.headers['x-next-before']).toBeUndefined();
    expect(res.headers.link).toBeUndefined();
    // Ada's cursor only says where to start: Bob still sees only his own ratings (none).
    const cursor = (await as(ada).get('/api/joy-ratings?limit=1')).headers['x-next-before'];
    expect((await as(bob).get(`/api/joy-ratings?before=${cursor}`)).body).toEqual([]);
  });

  it.each([
    ['limit', 'limit=0'],
    ['limit', 'limit=201'],
    ['limit', 'limit=ten'],
    ['limit', 'limit=1.5'],
    ['limit', 'limit=-3'],
    ['limit', 'limit='],
    ['limit', 'limit=5&limit=6'],
    ['before', 'before=not-a-cursor'],
    ['before', 'before='],
    ['before', `before=${Buffer.from('2026-01-01').toString('base64url')}`],
    ['before', 'limit=10&before=%00'],
  ])('refuses a bad %s (%s) with 400 naming it', async (field, query) => {
    const res = await as(ada).get(`/api/joy-ratings?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('request.invalid');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
  });

  it('refuses a signed-out caller', async () => {
    expect((await as().get('/api/joy-ratings?limit=10')).status).toBe(401);
  });
});
