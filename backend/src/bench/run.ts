import { overallScore } from '@joy/domain';
import autocannon, { Result } from 'autocannon';
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import type { EventToAppend } from '../event-store/event-store.port';
import { SqliteEventStore } from '../event-store/sqlite-event-store';
import { signIn } from '../identity/dev-sign-in-client';
import { ProjectionPipeline } from '../projections/projection-pipeline';
import { PROJECTIONS } from '../projections/projections';
import { InProcessQueue } from '../queue/in-process-queue';
import { InMemoryReadModelStore } from '../read-models/in-memory-read-model-store';
import { freePort, startAppProcess } from './app-process';
import { burstFigure, connectionsFigure, PRODUCTION_SHEDDING } from './faults';
import { lighthouseFigures } from './lighthouse';
import { manyEventsFigures } from './restart';
import { ratingPageFigures } from './rating-pages';
import { manyRatingsBody } from './rating-bodies';

/**
 * `npm run bench`: Joy on the embedded default against bare-minimum baselines on the same stack.
 * Figures are printed, never asserted. BENCH_SECONDS (default 5) sets each HTTP run's length, BENCH_ROUNDS
 * (default 3) how many paired runs make each HTTP figure,
 * BENCH_REBUILD_EVENTS (default 100000) the size of the rebuild; BENCH_BURST (300), BENCH_SIMULTANEOUS (1000) and
 * BENCH_REQUESTS_PER_CONNECTION (5) the abuse figures (bench/faults.ts); LIGHTHOUSE_RUNS (3) and CHROME_PATH the
 * Lighthouse figures of / and /help and what they transfer (bench/lighthouse.ts, bench/page-weight.ts);
 * BENCH_RATINGS (50000) the rating list's pages of one person (bench/rating-pages.ts). BENCH_ONLY (a comma list of
 * http, lag, rebuild, many, pages, abuse, lighthouse) runs those parts alone.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const REBUILD_EVENTS = Number(process.env.BENCH_REBUILD_EVENTS ?? 100_000);

interface Figure {
  name: string;
  value: number;
  unit: string;
  p50?: number;
  p99?: number;
  baseline?: { name: string; value: number; p50?: number; p99?: number };
  higherIsBetter: boolean;
  /** When measured in paired rounds: the median of the rounds' ratios (else computed from the two values). */
  ratio?: number;
}

const figures: Figure[] = [];

async function cannon(options: autocannon.Options): Promise<Result> {
  const result = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options });
  if (result.non2xx || result.errors) {
    console.warn(`  ! ${options.url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  }
  return result;
}

let ratingsMade = 0;
/**
 * A rating as the bench's writers send it: each on another day of the past year, as a person's history is spread
 * (a day holds at most RATINGS_PER_DAY_MAX: ten writers saving 1,500 ratings each in one day were refused).
 */
const rating = () => manyRatingsBody(ratingsMade++);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

interface Baseline {
  url: string;
  /** Serves these JSON texts from memory at /doc0, /doc1... */
  serve(documents: string[]): Promise<void>;
  stop(): void;
}

async function startBaseline(dir: string): Promise<Baseline> {
  const port = await freePort();
  const child = fork(join(__dirname, 'baseline-server.js'), [String(port), dir], { stdio: 'inherit' });
  await new Promise<void>((resolve) => child.once('message', () => resolve()));
  return {
    url: `http://127.0.0.1:${port}`,
    serve: (documents) =>
      new Promise<void>((resolve) => {
        child.once('message', () => resolve());
        child.send({ documents });
      }),
    stop: () => child.kill(),
  };
}

async function httpFigures(): Promise<void> {
  const app = await startAppProcess({ RATE_LIMIT_WRITES_PER_MIN: '1000000000', RATE_LIMIT_SIGNIN_PER_15_MIN: '1000', ...PRODUCTION_SHEDDING });
  const baselineDir = mkdtempSync(join(tmpdir(), 'joy-bench-baseline-'));
  const baseline = await startBaseline(baselineDir);
  try {
    const writers = await Promise.all(Array.from({ length: CONNECTIONS }, (_, i) => signIn(app.baseUrl, `writer${i}@bench.example`, `Writer${i}`)));
    const reader = await signIn(app.baseUrl, 'reader@bench.example', 'Reader');
    for (let i = 0; i < 30; i++) {
      await fetch(`${app.baseUrl}/api/joy-ratings`, { method: 'POST', headers: { cookie: reader, 'content-type': 'application/json' }, body: JSON.stringify(rating()) });
    }
    await fetch(`${app.baseUrl}/api/groups`, { method: 'POST', headers: { cookie: reader, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Bench club' }) });

    // Warm-up (JIT, caches), not measured.
    await autocannon({ url: `${app.baseUrl}/api/joy-ratings/latest`, headers: { cookie: reader }, connections: CONNECTIONS, duration: 2 });
    await autocannon({ url: `${baseline.url}/doc`, connections: CONNECTIONS, duration: 2 });
    console.log(`HTTP runs: ${ROUNDS} rounds of ${SECONDS} s per figure, each Joy run next to a baseline run, ${CONNECTIONS} connections`);
    let next = 0;
    const writes = () =>
      cannon({
        url: `${app.baseUrl}/api/joy-ratings`,
        requests: [
          {
            method: 'POST',
            setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'content-type': 'application/json', cookie: writers[next++ % writers.length] }, body: JSON.stringify(rating()) }),
          },
        ],
      });
    const inserts = () => cannon({ url: `${baseline.url}/insert`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(rating()) });
    figures.push(await pairedFigure('POST /api/joy-ratings', writes, 'bare SQLite insert', inserts));

    // Each read against the same answer served from memory (its JSON, fetched once): the bare minimum for it.
    const paths = ['/api/joy-ratings/latest', '/api/joy-ratings', '/api/groups', '/api/auth/user'];
    const answers = await Promise.all(paths.map(async (path) => (await fetch(`${app.baseUrl}${path}`, { headers: { cookie: reader } })).text()));
    await baseline.serve(answers);
    for (const [i, path] of paths.entries()) {
      const reads = () => cannon({ url: `${app.baseUrl}${path}`, headers: { cookie: reader } });
      const sameAnswer = () => cannon({ url: `${baseline.url}/doc${i}` });
      const size = Buffer.byteLength(answers[i]).toLocaleString('en');
      figures.push(await pairedFigure(`GET ${path}`, reads, `the same answer (${size} B) from memory`, sameAnswer));
    }
  } finally {
    baseline.stop();
    await app.destroy();
    rmSync(baselineDir, { recursive: true, force: true });
  }
}

/**
 * The machine's speed drifts from minute to minute (other processes, the disk's cache, CPU boost), so each figure
 * is measured in ROUNDS rounds, each running Joy and its baseline back to back (in alternating order); the
 * figure is the median round's, and the ratio is the median of the rounds' ratios.
 */
async function pairedFigure(name: string, joy: () => Promise<Result>, baselineName: string, base: () => Promise<Result>): Promise<Figure> {
  const rounds: { joy: Result; base: Result }[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    if (r % 2 === 0) {
      const j = await joy();
      rounds.push({ joy: j, base: await base() });
    } else {
      const b = await base();
      rounds.push({ joy: await joy(), base: b });
    }
  }
  const median = <T>(items: T[], by: (t: T) => number): T => [...items].sort((a, b) => by(a) - by(b))[Math.floor((items.length - 1) / 2)];
  const figure = httpFigure(name, median(rounds, (r) => r.joy.requests.average).joy, baselineName, median(rounds, (r) => r.base.requests.average).base);
  figure.ratio = median(rounds.map((r) => r.joy.requests.average / r.base.requests.average), (x) => x);
  return figure;
}

function httpFigure(name: string, result: Result, baselineName: string, base: Result): Figure {
  return {
    name,
    value: result.requests.average,
    unit: 'req/s',
    p50: result.latency.p50,
    p99: result.latency.p99,
    higherIsBetter: true,
    baseline: { name: baselineName, value: base.requests.average, p50: base.latency.p50, p99: base.latency.p99 },
  };
}

function ratingEvent(userId: string, at = new Date()): EventToAppend {
  const ratingId = randomUUID();
  // A rating of schemaVersion 1 (before days were kept): its day is its time's.
  const { day: _day, ...scores } = rating();
  const overall = overallScore(scores);
  return {
    type: 'RatingSubmitted',
    data: { ratingId, userId, ...scores, overallScore: overall, submittedAt: at.toISOString() },
    metadata: { eventId: ratingId, schemaVersion: 1, correlationId: ratingId, causationId: ratingId, actorUserId: userId, occurredAt: at.toISOString() },
  };
}

/** Write → visible in the read models, in the embedded pipeline, with CONNECTIONS concurrent writers. */
async function lagFigure(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'joy-bench-lag-'));
  const store = new SqliteEventStore(join(dir, 'events.sqlite'));
  const pipeline = new ProjectionPipeline(store, new InMemoryReadModelStore(), new InProcessQueue(), PROJECTIONS);
  await pipeline.start();
  const lags: number[] = [];
  const versions = new Map<string, number>();
  const writer = async (w: number) => {
    const userId = `lag-user-${w}`;
    for (let i = 0; i < 300; i++) {
      const t0 = performance.now();
      const expectedVersion = versions.get(userId) ?? 0;
      const { position, nextVersion } = await store.appendToStream(`ratings-${userId}`, [ratingEvent(userId)], { expectedVersion });
      versions.set(userId, nextVersion);
      await pipeline.waitFor(position, { eventTypes: ['RatingSubmitted'] });
      lags.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, (_, w) => writer(w)));
  await pipeline.stop();
  await store.close();

  // Baseline: a SQLite insert followed by an in-memory map update, the least a "projection" can do.
  const db = new Database(join(dir, 'baseline.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE rows (position INTEGER PRIMARY KEY AUTOINCREMENT, data TEXT)');
  const insert = db.prepare('INSERT INTO rows (data) VALUES (?)');
  const map = new Map<number, unknown>();
  const baseLags: number[] = [];
  for (let i = 0; i < lags.length; i++) {
    const t0 = performance.now();
    const event = ratingEvent('baseline');
    const { lastInsertRowid } = insert.run(JSON.stringify(event));
    map.set(Number(lastInsertRowid), event.data);
    baseLags.push(performance.now() - t0);
  }
  db.close();
  rmSync(dir, { recursive: true, force: true });
  lags.sort((a, b) => a - b);
  baseLags.sort((a, b) => a - b);
  figures.push({
    name: `projection lag (${lags.length} writes)`,
    value: percentile(lags, 99),
    unit: 'ms p99',
    p50: percentile(lags, 50),
    p99: percentile(lags, 99),
    higherIsBetter: false,
    baseline: { name: 'insert + map update', value: percentile(baseLags, 99), p50: percentile(baseLags, 50), p99: percentile(baseLags, 99) },
  });
}

/** Replaying REBUILD_EVENTS events into fresh read models, against reading and parsing them into a map. */
async function rebuildFigure(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'joy-bench-rebuild-'));
  const file = join(dir, 'events.sqlite');
  const seed = new SqliteEventStore(file, { synchronous: 'NORMAL' });
  const users = 200;
  const perBatch = 50;
  const versions = new Array<number>(users).fill(0);
  for (let written = 0, u = 0; written < REBUILD_EVENTS; written += perBatch, u = (u + 1) % users) {
    // A rating a day for each person, their last today: a history the app can hold (at most 100 ratings a day; the
    // seed put all of a person's 500 on one day before, which the app refuses).
    const day = (n: number) => new Date(Date.now() - (Math.ceil(REBUILD_EVENTS / users) - 1 - n) * 86_400_000);
    const events = Array.from({ length: Math.min(perBatch, REBUILD_EVENTS - written) }, (_, i) => ratingEvent(`user-${u}`, day(versions[u] + i)));
    await seed.appendToStream(`ratings-user-${u}`, events, { expectedVersion: versions[u] });
    versions[u] += events.length;
  }
  await seed.close();

  const store = new SqliteEventStore(file);
  const pipeline = new ProjectionPipeline(store, new InMemoryReadModelStore(), new InProcessQueue(), PROJECTIONS);
  let t0 = performance.now();
  await pipeline.start();
  await pipeline.waitUntilCaughtUp();
  const seconds = (performance.now() - t0) / 1000;
  await pipeline.stop();

  t0 = performance.now();
  const map = new Map<string, unknown>();
  for (let from = 0; ; ) {
    const page = await store.readAll({ from, limit: 1000 });
    if (page.length === 0) break;
    for (const e of page) map.set(e.data.ratingId as string, e.data);
    from = page[page.length - 1].position;
  }
  const baseSeconds = (performance.now() - t0) / 1000;
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  figures.push({
    name: `rebuild in memory, through the relay (${REBUILD_EVENTS.toLocaleString('en')} events, a rating a day)`,
    value: REBUILD_EVENTS / seconds,
    unit: 'events/s',
    higherIsBetter: true,
    baseline: { name: 'read + parse into a map', value: REBUILD_EVENTS / baseSeconds },
  });
}

function print(): void {
  const fmt = (n: number | undefined, digits = 1) => (n === undefined ? '' : n.toLocaleString('en', { maximumFractionDigits: digits }));
  console.log(`\nMachine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}\n`);
  console.log('| figure | Joy | p50 ms | p99 ms | baseline | baseline figure | p50 ms | p99 ms | ratio |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const f of figures) {
    const b = f.baseline!;
    const ratio = f.ratio ?? (f.higherIsBetter ? f.value / b.value : b.value / f.value);
    console.log(`| ${f.name} | ${fmt(f.value)} ${f.unit} | ${fmt(f.p50, 2)} | ${fmt(f.p99, 2)} | ${b.name} | ${fmt(b.value)} ${f.unit} | ${fmt(b.p50, 2)} | ${fmt(b.p99, 2)} | ${fmt(ratio, 2)} |`);
  }
  console.log('\nratio: Joy ÷ baseline for throughput, baseline ÷ Joy for latency (1 = as fast as the bare minimum).');
}

/** Many events (bench/restart.ts): the start-up rebuild against read + parse, the projectors alone and writing its rows alone, restart time to serving and RSS. */
async function manyEventsLines(): Promise<string[]> {
  const sizes = (process.env.BENCH_MANY_EVENTS ?? '100000,1000000').split(',').map(Number);
  const { rebuild, restart, rebuildDayByDay } = await manyEventsFigures(sizes);
  const fmt = (n: number, digits = 1) => n.toLocaleString('en', { maximumFractionDigits: digits });
  return [
    '| events (seeded through the event store) | rebuild at start | read + parse of the same file | read, parse and the projectors alone (documents in plain maps) | its rows (documents + index keys) written alone | first start to serving (rebuild) | peak RSS of the first start | restart to serving | RSS after restart | first start, day by day (everyone rates every day) | its peak RSS |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rebuild.map((r, i) => {
      const s = restart[i];
      const d = rebuildDayByDay[i];
      return `| ${fmt(r.events, 0)} | ${fmt(r.rebuildPerSecond, 0)} events/s | ${fmt(r.readParsePerSecond, 0)} events/s | ${fmt(r.foldFloorPerSecond, 0)} events/s | ${fmt(r.writeFloorPerSecond, 0)} events/s (${fmt(r.docRows, 0)} + ${fmt(r.keyRows, 0)} rows) | ${fmt(s.firstStartSeconds)} s | ${fmt(s.firstStartPeakRssMb, 0)} MB | ${fmt(s.restartSeconds, 2)} s | ${fmt(s.rssMb, 0)} MB | ${fmt(d.firstStartSeconds)} s (${fmt(r.events / d.firstStartSeconds, 0)} events/s) | ${fmt(d.firstStartPeakRssMb, 0)} MB |`;
    }),
  ];
}

const ONLY = process.env.BENCH_ONLY?.split(',').map((part) => part.trim());
const runs = (part: string) => !ONLY || ONLY.includes(part);

async function main(): Promise<void> {
  if (runs('http')) await httpFigures();
  if (runs('lag')) await lagFigure();
  if (runs('rebuild')) await rebuildFigure();
  const many = runs('many') ? await manyEventsLines() : [];
  // Abuse: how the app holds up, not how fast it is (each on a fresh app process).
  const abuse = runs('abuse') ? [...(await burstFigure()), ...(await connectionsFigure())] : [];
  const pages = runs('pages') ? await ratingPageFigures() : [];
  print();
  if (many.length > 0) {
    console.log('\nMany events (BENCH_MANY_EVENTS, the embedded default with its read models in SQLite):');
    for (const line of many) console.log(line);
  }
  if (pages.length > 0) console.log('');
  for (const line of pages) console.log(line);
  if (abuse.length > 0) console.log('\nUnder abuse:');
  for (const line of abuse) console.log(line);
  // The signed-out pages in a browser (bench/lighthouse.ts), on a fresh app process.
  if (!runs('lighthouse')) return;
  console.log('');
  for (const line of await lighthouseFigures()) console.log(line);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
