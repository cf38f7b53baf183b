import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventToAppend } from '../event-store/event-store.port';
import { SqliteEventStore } from '../event-store/sqlite-event-store';
import type { CliIo } from './cli-io';
import { runEvents } from './events-command';
import { waitUntil } from '../testing/wait';

const meta = (i: number) => ({
  eventId: `e${i}`,
  schemaVersion: 1,
  correlationId: 'c',
  causationId: 'c',
  actorUserId: 'u',
  occurredAt: '2026-11-20T08:00:00.000Z',
});
const event = (type: string, i: number): EventToAppend => ({ type, data: { n: i }, metadata: meta(i) });

let dir: string;
let store: SqliteEventStore;
let counter = 0;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'joy-events-cli-'));
  // The app's store stays open (as a running app would) while the CLI reads the same file.
  store = new SqliteEventStore(join(dir, 'events.sqlite'));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function append(...types: string[]): Promise<void> {
  for (const type of types) {
    counter += 1;
    await store.appendToStream(`s-${counter}`, [event(type, counter)], { expectedVersion: 0 });
  }
}

function capture(options: { signal?: AbortSignal; failOnLine?: number } = {}) {
  const lines: string[] = [];
  let err = '';
  const io: CliIo = {
    out: (text) => {
      if (options.failOnLine !== undefined && lines.length + 1 === options.failOnLine) throw new Error('the tail crashed');
      lines.push(...text.split('\n').filter(Boolean));
    },
    err: (text) => (err += text),
    env: { DATA_DIR: dir },
    signal: options.signal,
  };
  return { io, lines, parsed: () => lines.map((l) => JSON.parse(l)), err: () => err };
}

describe('events tail', () => {
  it('prints NDJSON in global order after --from', async () => {
    await append('A', 'B', 'A', 'C');
    const all = capture();
    expect(await runEvents(['tail', '--from', '0'], all.io)).toBe(0);
    const first = (await store.readAll({ from: 0, limit: 1 }))[0];
    expect(all.parsed()[0]).toEqual({
      position: first.position,
      streamId: first.streamId,
      streamVersion: 1,
      type: 'A',
      data: first.data,
      metadata: first.metadata,
    });
    expect(all.parsed().map((e) => e.type)).toEqual(['A', 'B', 'A', 'C']);
    const positions = all.parsed().map((e) => e.position);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));

    const after = capture();
    expect(await runEvents(['tail', '--from', String(positions[1])], after.io)).toBe(0);
    expect(after.parsed().map((e) => e.position)).toEqual(positions.slice(2));
  });

  it('filters by --type (repeated or comma-separated)', async () => {
    await append('A', 'B', 'A', 'C');
    const onlyA = capture();
    await runEvents(['tail', '--from', '0', '--type', 'A'], onlyA.io);
    expect(onlyA.parsed().map((e) => e.type)).toEqual(['A', 'A']);
    const bc = capture();
    await runEvents(['tail', '--from', '0', '--type', 'B,C'], bc.io);
    expect(bc.parsed().map((e) => e.type)).toEqual(['B', 'C']);
    const repeated = capture();
    await runEvents(['tail', '--from', '0', '--type', 'C', '--type', 'A'], repeated.io);
    expect(repeated.parsed().map((e) => e.type)).toEqual(['A', 'A', 'C']);
  });

  it('with --checkpoint, a restarted tail prints nothing twice and skips nothing', async () => {
    await append('A', 'B', 'A', 'B', 'A');
    const file = join(dir, 'tail.checkpoint');
    const all = (await store.readAll({ from: 0, limit: 100 })).map((e) => e.position);

    // The first run dies while printing its third line.
    const crashed = capture({ failOnLine: 3 });
    await expect(runEvents(['tail', '--from', '0', '--checkpoint', file], crashed.io)).rejects.toThrow('crashed');
    expect(crashed.parsed().map((e) => e.position)).toEqual(all.slice(0, 2));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ position: all[1] });

    const resumed = capture();
    expect(await runEvents(['tail', '--from', '0', '--checkpoint', file], resumed.io)).toBe(0);
    expect(resumed.parsed().map((e) => e.position)).toEqual(all.slice(2));

    await append('B', 'A');
    const again = capture();
    await runEvents(['tail', '--from', '0', '--checkpoint', file], again.io);
    expect(again.parsed().map((e) => e.type)).toEqual(['B', 'A']);
    const nothing = capture();
    await runEvents(['tail', '--from', '0', '--checkpoint', file], nothing.io);
    expect(nothing.lines).toEqual([]);
    expect(existsSync(`${file}.${process.pid}.tmp`)).toBe(false);
  });

  it('--follow keeps printing what is appended until stopped', async () => {
    await append('A');
    const stop = new AbortController();
    const follow = capture({ signal: stop.signal });
    const done = runEvents(['tail', '--from', '0', '--follow', '--type', 'A'], follow.io);
    await waitUntil(() => follow.lines.length === 1); // caught up with what was there, now following
    await append('B', 'A', 'A');
    await waitUntil(() => follow.lines.length >= 3, 4000, 20);
    stop.abort();
    expect(await done).toBe(0);
    expect(follow.parsed().map((e) => e.type)).toEqual(['A', 'A', 'A']);
  });

  it('explains its usage and refuses bad arguments', async () => {
    const noFrom = capture();
    expect(await runEvents(['tail'], noFrom.io)).toBe(2);
    expect(noFrom.err()).toMatch(/--from/);
    const bad = capture();
    expect(await runEvents(['tail', '--from', '-1'], bad.io)).toBe(2);
    expect(await runEvents(['tail', '--from', '0', '--bogus'], capture().io)).toBe(2);
    expect(await runEvents(['head'], capture().io)).toBe(2);
    const missing = capture();
    missing.io.env = { DATA_DIR: join(dir, 'nowhere') };
    expect(await runEvents(['tail', '--from', '0'], missing.io)).toBe(1);
    expect(missing.err()).toMatch(/No event store/);
  });
});
