import { addDays, dayOf, type RatingSummaryView, type RatingView } from '@joy/domain';
import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';

jest.setTimeout(60_000);

const ZONE = 'Pacific/Kiritimati';
const scores = (r: number, h: number, p: number, g: number, j: number) => ({ relationships: r, health: h, purpose: p, growth: g, joy: j });

/** GET /api/joy-ratings/summary over HTTP: the figures of the charts from the per-day sums, never the list. */
describe('the rating summary (GET /api/joy-ratings/summary?from=&to=)', () => {
  let app: TestApp;
  let ada: string;
  let bob: string;
  const as = (cookie?: string) => api(app.baseUrl, cookie);
  const today = () => dayOf(new Date(), ZONE)!;
  const rate = async (cookie: string, body: object): Promise<RatingView> => {
    const res = await as(cookie).post('/api/joy-ratings', body);
    expect(res.status).toBe(201);
    return res.body;
  };
  const summary = async (cookie: string, query = ''): Promise<RatingSummaryView> => {
    const res = await as(cookie).get(`/api/joy-ratings/summary${query}`);
    expect(res.status).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    app = await startTestApp();
    ada = await signIn(app.baseUrl, 'ada@summary.example', 'Ada');
    bob = await signIn(app.baseUrl, 'bob@summary.example', 'Bob');
    expect((await as(ada).patch('/api/settings', { timeZone: ZONE })).status).toBe(200);
  });
  afterAll(() => app.destroy());

  it('answers zero ratings and no averages before the first rating', async () => {
    expect(await summary(bob)).toEqual({
      from: null, to: null, count: 0, daysTracked: 0,
      averages: { overall: null, relationships: null, health: null, purpose: null, growth: null, joy: null },
    });
  });

  it('counts the ratings and the days they rate, with the mean overall score and factor means, and follows edits and deletions', async () => {
    // Two today (overall 3.0 and 4.2), one three days back (2.0) rated now, one ten days back (5.0).
    const a = await rate(ada, scores(5, 4, 3, 2, 1));
    await rate(ada, scores(4, 4, 4, 4, 5));
    await rate(ada, { ...scores(2, 2, 2, 2, 2), day: addDays(today(), -3) });
    const old = await rate(ada, { ...scores(5, 5, 5, 5, 5), day: addDays(today(), -10) });
    // (3.0 + 4.2 + 2.0 + 5.0) / 4 = 3.55 → 3.6; relationships (5+4+2+5)/4 = 4; joy (1+5+2+5)/4 = 3.25 → 3.3
    expect(await summary(ada)).toEqual({
      from: null, to: null, count: 4, daysTracked: 3,
      averages: { overall: 3.6, relationships: 4, health: 3.8, purpose: 3.5, growth: 3.3, joy: 3.3 },
    });
    // The last 7 days (today and the six before): the two of today and the one of three days back.
    const week = await summary(ada, `?from=${addDays(today(), -6)}&to=${today()}`);
    expect(week).toMatchObject({ from: addDays(today(), -6), to: today(), count: 3, daysTracked: 2 });
    expect(week.averages.overall).toBe(3.1); // 9.2 / 3 = 3.07
    expect(await summary(ada, `?from=${today()}&to=${today()}`)).toMatchObject({ count: 2, daysTracked: 1, averages: { overall: 3.6 } });
    expect(await summary(ada, `?to=${addDays(today(), -4)}`)).toMatchObject({ count: 1, daysTracked: 1, averages: { overall: 5, joy: 5 } });
    expect(await summary(ada, `?from=${addDays(today(), 1)}`)).toMatchObject({ count: 0, daysTracked: 0, averages: { overall: null } });

    // An edit changes the sums of its day; a deletion takes its rating (and an emptied day) out.
    expect((await as(ada).put(`/api/joy-ratings/${a.id}`, scores(5, 5, 5, 5, 5))).status).toBe(200);
    expect(await summary(ada, `?from=${today()}&to=${today()}`)).toMatchObject({ count: 2, averages: { overall: 4.6, relationships: 4.5 } });
    // The whole history (kept in one document, rating-totals) follows the edit too: purpose (5+4+2+5)/4, was 3.5.
    expect(await summary(ada)).toMatchObject({ count: 4, daysTracked: 3, averages: { relationships: 4, purpose: 4, growth: 4 } });
    expect((await as(ada).delete(`/api/joy-ratings/${old.id}`)).status).toBe(204);
    expect(await summary(ada)).toMatchObject({ count: 3, daysTracked: 2 });
    // Never another person's.
    expect((await summary(bob)).count).toBe(0);
  });

  it.each([
    ['from', '?from=yesterday'],
    ['from', '?from=2026-02-30'],
    ['to', '?to=2026-1-5'],
    ['to', '?from=2026-03-02&to=2026-03-01'],
    ['from', '?from=2026-01-01&from=2026-01-02'],
    ['from', '?from=1969-12-31'],
    ['to', '?to=0000-01-01'],
  ])('refuses a bad %s with 400 naming it (%s)', async (field, query) => {
    const res = await as(ada).get(`/api/joy-ratings/summary${query}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('request.invalid');
    expect(res.body.errors).toEqual([expect.objectContaining({ field })]);
  });

  it('answers the last days there are (a week that ends past 9999) at once, and goes on answering', async () => {
    // Its week's Mondays were once counted by comparing days as text, which never ended past 9999-12-27.
    const res = await as(ada).get('/api/joy-ratings/summary?from=9999-12-31&to=9999-12-31');
    expect([res.status, res.body.count]).toEqual([200, 0]);
    expect((await as(ada).get('/api/joy-ratings/summary?from=9999-12-20&to=9999-12-31')).body.count).toBe(0);
    expect((await as(ada).get('/api/joy-ratings/summary')).status).toBe(200);
  });

  it('refuses a signed-out caller with 401', async () => {
    expect((await as().get('/api/joy-ratings/summary')).status).toBe(401);
  });
});
