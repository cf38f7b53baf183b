import { randomUUID } from 'node:crypto';
import { decideAndAppend } from '../event-store/decider';
import type { FactorScores } from '@joy/domain';
import { ratingStreamCodec } from '../ratings/rating-events';
import { ratingsDecider } from '../ratings/ratings.decider';
import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';
import { ADVANCED_INSIGHTS_PREMIUM_ONLY } from './insights.handlers';

jest.setTimeout(30_000);

const DAY = 86_400_000;

describe('advanced insights over HTTP', () => {
  let app: TestApp;
  let ada: string; // premium, ten days of ratings in January plus one today (too few recent days for a forecast)
  let bob: string; // free, low ratings on the same days
  let cy: string; // premium, no ratings
  const ids: Record<string, string> = {};
  const as = (cookie?: string) => api(app.baseUrl, cookie);
  const subscribe = async (cookie: string) => {
    const { clientSecret } = (await as(cookie).post('/api/create-subscription')).body;
    const paid = await as(cookie).post('/api/billing/sandbox/confirm', { clientSecret, cardNumber: '4242424242424242' });
    expect(paid.status).toBe(200);
    expect((await as(cookie).get('/api/subscription-status')).body.isPremium).toBe(true);
  };
  /** A rating submitted at a past instant, through the ratings decider as the API would (but back-dated). */
  const rateAt = async (userId: string, at: Date, scores: FactorScores) => {
    const { append } = await decideAndAppend(
      app.running.infra.store,
      `ratings-${userId}`,
      ratingsDecider,
      { ratingId: randomUUID(), userId, scores, at },
      { actorUserId: userId },
      { eventIds: (events) => events.map((e) => (e.data as { ratingId: string }).ratingId), ...ratingStreamCodec(null) },
    );
    await app.running.infra.pipeline.waitFor(append!.position, { eventTypes: ['RatingSubmitted'] });
  };
  const ADA_SCORES = { relationships: 5, health: 3, purpose: 4, growth: 4, joy: 4 }; // overall 4

  beforeAll(async () => {
    app = await startTestApp();
    ada = await signIn(app.baseUrl, 'ada@example.com', 'Ada');
    bob = await signIn(app.baseUrl, 'bob@example.com', 'Bob');
    cy = await signIn(app.baseUrl, 'cy@example.com', 'Cy');
    for (const [name, cookie] of Object.entries({ ada, bob, cy })) ids[name] = (await as(cookie).get('/api/auth/user')).body.id;
    // Monday 5 January 2026 (ISO week 2) to Wednesday 14 January (week 3), one rating a day at noon UTC.
    for (let i = 0; i < 10; i++) {
      const at = new Date(Date.parse('2026-01-05T12:00:00Z') + i * DAY);
      await rateAt(ids.ada, at, ADA_SCORES);
      await rateAt(ids.bob, at, { relationships: 1, health: 1, purpose: 1, growth: 1, joy: 1 });
    }
    for (const cookie of [ada, cy]) await subscribe(cookie);
  });
  afterAll(() => app.destroy());

  it('refuses a signed-out caller with 401', async () => {
    const res = await as().get('/api/insights/advanced');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ statusCode: 401, code: 'auth.unauthorized', message: 'Unauthorized' });
  });

  it('refuses a free user with 403 and the upgrade message', async () => {
    const res = await as(bob).get('/api/insights/advanced');
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      statusCode: 403,
      code: 'plan.premium_required',
      message: 'Advanced analytics are a Joy Premium feature. Upgrade to see your full history, trends and forecast.',
    });
    expect(ADVANCED_INSIGHTS_PREMIUM_ONLY).toBe(res.body.message);
  });

  it('gives a premium user weekly factor means and the weekday pattern over the whole history, only their own, and no forecast from January', async () => {
    expect((await as(ada).post('/api/joy-ratings', { relationships: 4, health: 4, purpose: 4, growth: 4, joy: 4 })).status).toBe(201);
    const res = await as(ada).get('/api/insights/advanced');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['firstDay', 'forecast', 'since', 'weekdayPattern', 'weeklyFactors']);
    expect(res.body.since).toBe('2026-01-05T12:00:00.000Z');
    expect(res.body.firstDay).toBe('2026-01-05');

    const weeks = res.body.weeklyFactors;
    expect(weeks.slice(0, 2)).toEqual([
      { week: '2026-W02', weekStart: '2026-01-05', count: 7, ...ADA_SCORES, overall: 4 },
      { week: '2026-W03', weekStart: '2026-01-12', count: 3, ...ADA_SCORES, overall: 4 },
    ]);
    expect(weeks).toHaveLength(3); // and this week's rating
    expect(weeks[2]).toMatchObject({ count: 1, relationships: 4, health: 4, overall: 4 });

    // Bob's 1s on the same days would pull every mean below 4.
    const pattern = res.body.weekdayPattern as { weekday: string; count: number; mean: number | null }[];
    expect(pattern.map((d) => d.weekday)).toEqual(['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']);
    expect(pattern.reduce((n, d) => n + d.count, 0)).toBe(11);
    const today = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'][(new Date().getUTCDay() + 6) % 7];
    for (const d of pattern) {
      const january = ['Mon', 'Tue', 'Wed'].includes(d.weekday) ? 2 : 1;
      expect(d).toEqual({ weekday: d.weekday, count: january + (d.weekday === today ? 1 : 0), mean: 4 });
    }

    // Ten days in January and today: one rated day in the 8 weeks up to today, no trend to carry into next week.
    expect(res.body.forecast).toBeNull();
  });

  it('forecasts the 7 days after today for a premium user who rated on 7 of the days up to today', async () => {
    const dee = await signIn(app.baseUrl, 'dee@example.com', 'Dee');
    await subscribe(dee);
    const deeId = (await as(dee).get('/api/auth/user')).body.id;
    for (let i = 6; i >= 1; i--) await rateAt(deeId, new Date(Date.now() - i * DAY), ADA_SCORES);
    expect((await as(dee).post('/api/joy-ratings', ADA_SCORES)).status).toBe(201);
    // Every day's mean is 4: a flat forecast with no spread.
    const tomorrow = Math.floor(Date.now() / DAY) + 1;
    expect((await as(dee).get('/api/insights/advanced')).body.forecast).toEqual(
      Array.from({ length: 7 }, (_, i) => ({ date: new Date((tomorrow + i) * DAY).toISOString().slice(0, 10), expected: 4, low: 4, high: 4 })),
    );
  });

  it('shows an average at an exact half rounded up: 12 ratings of mean 4.15 average 4.2 in the summary and on the calendar day', async () => {
    const eve = await signIn(app.baseUrl, 'eve@example.com', 'Eve');
    for (let i = 0; i < 11; i++) expect((await as(eve).post('/api/joy-ratings', { relationships: 5, health: 4, purpose: 4, growth: 4, joy: 4 })).status).toBe(201);
    const last = await as(eve).post('/api/joy-ratings', { relationships: 4, health: 4, purpose: 3, growth: 4, joy: 3 });
    expect(last.body.overallScore).toBe(3.6);
    expect((await as(eve).get('/api/joy-ratings/summary')).body.averages.overall).toBe(4.2);
    const calendar = (await as(eve).get(`/api/joy-ratings/calendar?year=${last.body.day.slice(0, 4)}`)).body;
    expect(calendar.days).toEqual([{ day: last.body.day, overallScore: 4.2, count: 12 }]);
  });

  it('answers a premium user without ratings with empty analytics', async () => {
    const res = await as(cy).get('/api/insights/advanced');
    expect(res.status).toBe(200);
    expect(res.body.weeklyFactors).toEqual([]);
    expect(res.body.forecast).toBeNull();
    expect(res.body.since).toBeNull();
    expect(res.body.firstDay).toBeNull();
    expect(res.body.weekdayPattern.every((d: { count: number; mean: null }) => d.count === 0 && d.mean === null)).toBe(true);
  });
});
