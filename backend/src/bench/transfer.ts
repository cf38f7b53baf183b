import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { StreamAppend } from '../event-store/event-store.port';
import { SqliteEventStore } from '../event-store/sqlite-event-store';

/**
 * `npm run bench:transfer`: `events export`, `events import` (into SQLite) and `backup`, run as people run them (the
 * built CLIs, in processes of their own), on an install of BENCH_TRANSFER_EVENTS events (default 200,000).
 * Each CLI runs with its heap capped at BENCH_TRANSFER_HEAP_MB (default 64 MB), so that finishing at all shows the
 * memory stays bounded whatever the size; the figures are the time, the rate and the peak resident memory.
 * Printed, never asserted.
 */
const EVENTS = Number(process.env.BENCH_TRANSFER_EVENTS ?? 200_000);
const HEAP_MB = Number(process.env.BENCH_TRANSFER_HEAP_MB ?? 64);
const PEOPLE = 5_000;
const OPS = resolve(__dirname, '..', 'ops');

/** Prints the process's peak resident memory on exit (loaded into each CLI with --require). */
const PEAK_RSS = `process.on('exit', () => process.stderr.write('\\npeak-rss-kb ' + process.resourceUsage().maxRSS + '\\n'));`;

async function fill(dataDir: string): Promise<void> {
  const store = new SqliteEventStore(join(dataDir, 'events.sqlite'), { synchronous: 'NORMAL' });
  const versions = new Array<number>(PEOPLE).fill(0);
  const at = new Date().toISOString();
  for (let i = 0; i < EVENTS; i += 5_000) {
    const batch: StreamAppend[] = [];
    for (let j = i; j < Math.min(EVENTS, i + 5_000); j++) {
      const person = j % PEOPLE;
      batch.push({
        streamId: `ratings-p${person}`,
        expectedVersion: versions[person]++,
        events: [
          {
            type: 'RatingSubmitted',
            data: { ratingId: `r${j}`, userId: `p${person}`, relationships: 3, health: 4, purpose: 5, growth: 2, joy: 4, createdAt: at },
            metadata: { eventId: `bench-${j}`, schemaVersion: 1, correlationId: `c${j}`, causationId: `c${j}`, actorUserId: `p${person}`, occurredAt: at },
          },
        ],
      });
    }
    await store.appendBatch(batch);
  }
  await store.close();
}

/** Runs a built CLI with a capped heap; resolves to its duration (s) and peak resident memory (MB). */
async function run(cli: string, args: string[], env: Record<string, string>, preload: string): Promise<{ seconds: number; peakMb: number }> {
  const started = performance.now();
  let stderr = '';
  const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_MB}`, '--require', preload, join(OPS, cli), ...args], {
    env: { ...process.env, ...env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((done) => child.on('exit', done));
  if (code !== 0) throw new Error(`${cli} ${args.join(' ')} failed (${code}):\n${stderr}`);
  const peak = /peak-rss-kb (\d+)/.exec(stderr);
  return { seconds: (performance.now() - started) / 1000, peakMb: peak ? Number(peak[1]) / 1024 : NaN };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'joy-bench-transfer-'));
  try {
    const preload = join(dir, 'peak-rss.js');
    writeFileSync(preload, PEAK_RSS);
    const source = join(dir, 'source');
    const target = join(dir, 'target');
    const file = join(dir, 'events.ndjson');
    console.log(`Filling an install with ${EVENTS.toLocaleString('en')} events of ${PEOPLE.toLocaleString('en')} people...`);
    mkdirSync(source);
    await fill(source);
    const mb = (path: string) => statSync(path).size / 2 ** 20;

    const rows: string[][] = [];
    const figure = (name: string, r: { seconds: number; peakMb: number }, size: string) =>
      rows.push([name, `${r.seconds.toFixed(1)} s`, `${Math.round(EVENTS / r.seconds).toLocaleString('en')} events/s`, `${Math.round(r.peakMb)} MB`, size]);

    figure('events export (SQLite → NDJSON)', await run('events-cli.js', ['export', '--to', file], { DATA_DIR: source }, preload), `${mb(file).toFixed(0)} MB written`);
    figure('events import (NDJSON → SQLite)', await run('events-cli.js', ['import', file], { DATA_DIR: target }, preload), 'checked, then written');
    figure('backup (online, checked)', await run('backup-cli.js', ['--to', join(dir, 'backup')], { DATA_DIR: source }, preload), `${mb(join(source, 'events.sqlite')).toFixed(0)} MB database`);

    console.log(`\nEach CLI with its heap capped at ${HEAP_MB} MB (node --max-old-space-size):\n`);
    const header = ['command', 'time', 'rate', 'peak RSS', ''];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    for (const row of [header, ...rows]) console.log(row.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: Error) => {
  console.error(err.stack ?? err.message);
  process.exit(1);
});
