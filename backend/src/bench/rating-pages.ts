import { addDays, type AdvancedInsights, overallScore, type RatingCalendarView, type RatingSummaryView } from '@joy/domain';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { EventToAppend } from '../event-store/event-store.port';
import { SqliteEventStore } from '../event-store/sqlite-event-store';
import { signIn } from '../identity/dev-sign-in-client';
import { startAppProcess } from './app-process';

/*
 * The rating list of a person with a long history, for `npm run bench` (printed, never asserted): BENCH_RATINGS
 * (default 50,000) ratings of one person, two an hour up to now, seeded into the built app's event store (not
 * through HTTP), then GET /api/joy-ratings (the first page, 50 by default), ?limit=50&before= (a page deep in the
 * list) and the figures of the charts, GET /api/joy-ratings/summary (over the whole history, and over the last 30
 * days), the premium analytics (GET /api/insights/advanced, the person made premium in the sandbox) and this year's
 * calendar (GET /api/joy-ratings/calendar), each BENCH_PAGE_REQUESTS (default 50) times one after another over HTTP, with their median and 99th
 * percentile. Run alone with `node backend/dist/bench/rating-pages.js`.
 */

const RATINGS = Number(process.env.BENCH_RATINGS ?? 50_000);
const REQUESTS = Number(process.env.BENCH_PAGE_REQUESTS ?? 50);

function ratingEvent(userId: string, at: Date, i: number): EventToAppend {
  const ratingId = randomUUID();
  const scores = { relationships: 1 + (i % 5), health: 1 + ((i + 1) % 5), purpose: 1 + ((i + 2) % 5), growth: 4, joy: 3 };
  return {
    type: 'RatingSubmitted',
    data: { ratingId, userId, ...scores, overallScore: overallScore(scores), submittedAt: at.toISOString() },
    metadata: { eventId: ratingId, schemaVersion: 1, correlationId: ratingId, causationId: ratingId, actorUserId: userId, occurredAt: at.toISOString() },
  };
}

/** Joy Premium through the sandbox's checkout (the bench's app runs with BILLING_SANDBOX=1). */
async function becomePremium(baseUrl: string, cookie: string): Promise<void> {
  const post = (path: string, body: object) =>
    fetch(`${baseUrl}${path}`, { method: 'POST', headers: { Cookie: cookie, 'Content-Type': 'application/json', Origin: baseUrl }, body: JSON.stringify(body) });
  const checkout = await post('/api/create-subscription', {});
  const { clientSecret } = (await checkout.json()) as { clientSecret: string };
  const paid = await post('/api/billing/sandbox/confirm', { clientSecret, cardNumber: '4242424242424242' });
  if (paid.status !== 200) throw new Error(`sandbox checkout: ${paid.status} ${await paid.text()}`);
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const fmt = (ms: number) => ms.toLocaleString('en', { maximumFractionDigits: 1 });

async function timed(url: string, cookie: string): Promise<{ p50: number; p99: number; bytes: number; count: number; next: string | null; body: unknown }> {
  const times: number[] = [];
  let bytes = 0;
  let count = 0;
  let next: string | null = null;
  let body: unknown = null;
  for (let i = 0; i < REQUESTS; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { headers: { Cookie: cookie, 'Accept-Encoding': 'identity' } });
    const text = await res.text();
    times.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${text}`);
    bytes = text.length;
    body = JSON.parse(text);
    count = Array.isArray(body) ? body.length : 1;
    next = res.headers.get('x-next-before');
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), bytes, count, next, body };
}

export async function ratingPageFigures(): Promise<string[]> {
  const app = await startAppProcess();
  try {
    const email = 'long-history@bench.example';
    let cookie = await signIn(app.baseUrl, email, 'Long');
    const userId = ((await (await fetch(`${app.baseUrl}/api/auth/user`, { headers: { Cookie: cookie } })).json()) as { id: string }).id;
    await app.stop();

    // Seeded into the stopped app's event store: two ratings an hour, the newest a minute ago.
    const store = new SqliteEventStore(join(app.dataDir, 'events.sqlite'), { synchronous: 'NORMAL' });
    const start = Date.now() - 60_000 - RATINGS * 30 * 60_000;
    for (let written = 0; written < RATINGS; written += 1000) {
      const events = Array.from({ length: Math.min(1000, RATINGS - written) }, (_, k) => ratingEvent(userId, new Date(start + (written + k + 1) * 30 * 60_000), written + k));
      await store.appendToStream(`ratings-${userId}`, events, { expectedVersion: written });
    }
    await store.close();

    await app.start();
    cookie = await signIn(app.baseUrl, email, 'Long');
    await becomePremium(app.baseUrl, cookie);
    const first = await timed(`${app.baseUrl}/api/joy-ratings`, cookie);
    const summary = await timed(`${app.baseUrl}/api/joy-ratings/summary`, cookie);
    const total = (summary.body as RatingSummaryView).count;
    if (total !== RATINGS) throw new Error(`the summary counts ${total} ratings, not ${RATINGS}`);
    const today = new Date().toISOString().slice(0, 10);
    const month = await timed(`${app.baseUrl}/api/joy-ratings/summary?from=${addDays(today, -30)}&to=${today}`, cookie);
    // A page in the middle of the list: follow the cursors of 200-rating pages to half way.
    let before = '';
    for (let seen = 0; seen < RATINGS / 2; seen += 200) {
      const res = await fetch(`${app.baseUrl}/api/joy-ratings?limit=200${before ? `&before=${before}` : ''}`, { headers: { Cookie: cookie } });
      before = res.headers.get('x-next-before')!;
    }
    const deep = await timed(`${app.baseUrl}/api/joy-ratings?limit=50&before=${before}`, cookie);
    const insights = await timed(`${app.baseUrl}/api/insights/advanced`, cookie);
    const weeks = (insights.body as AdvancedInsights).weeklyFactors.length;
    const calendar = await timed(`${app.baseUrl}/api/joy-ratings/calendar?year=${today.slice(0, 4)}`, cookie);
    const calendarDays = (calendar.body as RatingCalendarView).days.length;
    // A day of a year ago, as History opens it from its calendar.
    const aDay = await timed(`${app.baseUrl}/api/joy-ratings/days/${addDays(today, -365)}`, cookie);
    const n = RATINGS.toLocaleString('en');
    return [
      `Rating list of a person with ${n} ratings (${REQUESTS} requests each, one after another, over HTTP):`,
      `- first page, GET /api/joy-ratings: p50 ${fmt(first.p50)} ms, p99 ${fmt(first.p99)} ms (${first.count} ratings, ${first.bytes.toLocaleString('en')} B)`,
      `- a page half way down (?limit=50&before=…): p50 ${fmt(deep.p50)} ms, p99 ${fmt(deep.p99)} ms (${deep.count} ratings)`,
      `- the figures of the whole history, GET /api/joy-ratings/summary: p50 ${fmt(summary.p50)} ms, p99 ${fmt(summary.p99)} ms (${summary.bytes.toLocaleString('en')} B, ${(summary.body as RatingSummaryView).daysTracked.toLocaleString('en')} days)`,
      `- the figures of the last 30 days, ?from=&to=: p50 ${fmt(month.p50)} ms, p99 ${fmt(month.p99)} ms`,
      `- the premium analytics of the whole history, GET /api/insights/advanced: p50 ${fmt(insights.p50)} ms, p99 ${fmt(insights.p99)} ms (${weeks} weeks, ${insights.bytes.toLocaleString('en')} B)`,
      `- this year's calendar and the streaks, GET /api/joy-ratings/calendar: p50 ${fmt(calendar.p50)} ms, p99 ${fmt(calendar.p99)} ms (${calendarDays} days, ${calendar.bytes.toLocaleString('en')} B)`,
      `- a day's ratings a year ago, GET /api/joy-ratings/days/YYYY-MM-DD: p50 ${fmt(aDay.p50)} ms, p99 ${fmt(aDay.p99)} ms (${aDay.count} ratings, ${aDay.bytes.toLocaleString('en')} B)`,
    ];
  } finally {
    await app.destroy();
  }
}

if (require.main === module) {
  ratingPageFigures().then(
    (lines) => lines.forEach((line) => console.log(line)),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
