import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DEFAULT_LOAD_SHEDDING } from '../config';
import { SqliteEventStore } from '../event-store/sqlite-event-store';
import { signIn } from '../identity/dev-sign-in-client';
import { startAppProcess } from './app-process';
import { manyRatingsBody } from './rating-bodies';

/*
 * Abuse figures for `npm run bench` (printed, never asserted): one person's burst of 300 concurrent writes, and
 * 1,000 simultaneous connections to a read. Run alone with `node backend/dist/bench/faults.js`.
 */

const BURST = Number(process.env.BENCH_BURST ?? 300);
const CONNECTIONS = Number(process.env.BENCH_SIMULTANEOUS ?? 1000);
const REQUESTS_PER_CONNECTION = Number(process.env.BENCH_REQUESTS_PER_CONNECTION ?? 5);
/** Load shedding as a fresh install has it (app-process turns it off for tests). */
export const PRODUCTION_SHEDDING = { SHED_EVENT_LOOP_DELAY_MS: String(DEFAULT_LOAD_SHEDDING.maxDelayMs) };
/** A client gives up on an answer after this long (what "timed out" means below). */
const CLIENT_TIMEOUT_MS = 10_000;

interface Answer {
  status: number | 'timeout' | 'error';
  ms: number;
  retryAfter?: string;
  body?: string;
}

function send(agent: Agent, url: URL, options: { method: string; cookie: string; body?: string }): Promise<Answer> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        agent,
        method: options.method,
        headers: { cookie: options.cookie, ...(options.body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(options.body) } : {}) },
        timeout: CLIENT_TIMEOUT_MS,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0, retryAfter: res.headers['retry-after'], body }));
      },
    );
    req.on('timeout', () => {
      req.destroy();
      resolve({ status: 'timeout', ms: performance.now() - t0 });
    });
    req.on('error', () => resolve({ status: 'error', ms: performance.now() - t0 }));
    req.end(options.body);
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function summary(answers: Answer[]): string {
  const counts = new Map<string, number>();
  for (const a of answers) counts.set(String(a.status), (counts.get(String(a.status)) ?? 0) + 1);
  const ms = answers.map((a) => a.ms).sort((x, y) => x - y);
  const slowest = (status: string) => Math.max(...answers.filter((a) => String(a.status) === status).map((a) => a.ms));
  const statuses = [...counts].sort().map(([s, n]) => `${s}: ${n} (slowest ${slowest(s).toFixed(0)} ms)`).join(', ');
  return `${statuses}; latency p50 ${percentile(ms, 50).toFixed(0)} ms, p99 ${percentile(ms, 99).toFixed(0)} ms, max ${ms[ms.length - 1].toFixed(0)} ms`;
}

/** One person sends BURST ratings at once, each on its own connection, with the default write limit. */
export async function burstFigure(): Promise<string[]> {
  const app = await startAppProcess({ RATE_LIMIT_SIGNIN_PER_15_MIN: '1000', ...PRODUCTION_SHEDDING });
  try {
    const cookie = await signIn(app.baseUrl, 'burst@bench.example', 'Burst');
    const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
    const url = new URL('/api/joy-ratings', app.baseUrl);
    const answers = await Promise.all(Array.from({ length: BURST }, (_, i) => send(agent, url, { method: 'POST', cookie, body: JSON.stringify(manyRatingsBody(i)) })));
    const acknowledged = answers.filter((a) => a.status === 201).map((a) => JSON.parse(a.body!).id as string);
    const limited = answers.filter((a) => a.status === 429);
    await app.stop();
    const store = new SqliteEventStore(join(app.dataDir, 'events.sqlite'));
    const stored = (await store.readAll({ from: 0, limit: 1_000_000 })).filter((e) => e.type === 'RatingSubmitted').map((e) => e.data.ratingId as string);
    await store.close();
    const once = acknowledged.every((id) => stored.filter((s) => s === id).length === 1) && stored.length === acknowledged.length;
    return [
      `burst of ${BURST} concurrent writes by one person: ${summary(answers)}`,
      `  429 answers with Retry-After: ${limited.filter((a) => a.retryAfter).length} of ${limited.length}; ` +
        `acknowledged ${acknowledged.length}, stored ${stored.length}, each acknowledged rating stored exactly once: ${once ? 'yes' : 'NO'}`,
    ];
  } finally {
    await app.destroy();
  }
}

/** CONNECTIONS connections opened at once, each sending REQUESTS_PER_CONNECTION reads over keep-alive. */
export async function connectionsFigure(): Promise<string[]> {
  const app = await startAppProcess({ RATE_LIMIT_SIGNIN_PER_15_MIN: '1000', ...PRODUCTION_SHEDDING });
  try {
    const cookie = await signIn(app.baseUrl, 'reader@bench.example', 'Reader');
    const url = new URL('/api/joy-ratings/latest', app.baseUrl);
    const agents = Array.from({ length: CONNECTIONS }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
    const t0 = performance.now();
    const perConnection = await Promise.all(
      agents.map(async (agent) => {
        const answers: Answer[] = [];
        for (let i = 0; i < REQUESTS_PER_CONNECTION; i++) answers.push(await send(agent, url, { method: 'GET', cookie }));
        return answers;
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    for (const agent of agents) agent.destroy();
    const answers = perConnection.flat();
    const shed = answers.filter((a) => a.status === 503);
    return [
      `${CONNECTIONS} simultaneous connections × ${REQUESTS_PER_CONNECTION} keep-alive reads (GET /api/joy-ratings/latest): ${summary(answers)}`,
      `  ${(answers.length / seconds).toFixed(0)} answers/s; shed with 503: ${shed.length} (with Retry-After: ${shed.filter((a) => a.retryAfter).length}); client timeouts (${CLIENT_TIMEOUT_MS / 1000} s): ${answers.filter((a) => a.status === 'timeout').length}`,
    ];
  } finally {
    await app.destroy();
  }
}

if (require.main === module) {
  (async () => {
    for (const line of [...(await burstFigure()), ...(await connectionsFigure())]) console.log(line);
  })().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
