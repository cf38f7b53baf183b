import { overallScore } from '@joy/domain';
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { EventToAppend } from '../event-store/event-store.port';
import { SqliteEventStore } from '../event-store/sqlite-event-store';
import { SqliteKeyStore } from '../identity/key-stores';
import { createReadModels } from '../infrastructure';
import { applyCommit } from '../read-models/sqlite-commit';
import { openReadModelFile } from '../read-models/sqlite-read-model-file';
import { CATCH_UP_BATCH } from '../projections/pipeline/catch-up';
import { type Lookup, withFields } from '../projections/projector';
import type { StoredDoc } from '../read-models/read-model-store.port';
import { ProjectionPipeline } from '../projections/projection-pipeline';
import { PROJECTIONS } from '../projections/projections';
import { InProcessQueue } from '../queue/in-process-queue';
import { encodeRatingEvent } from '../ratings/rating-events';
import type { RatingSubmitted } from '../ratings/ratings.decider';
import { startAppProcess } from './app-process';

/**
 * The embedded default with many events (bench/run.ts prints these): events seeded straight through the event
 * store (people × days of ratings, not HTTP), the start-up rebuild's events/s against reading and parsing the same
 * file, and the time a restart takes until the API answers, with the process's resident memory then.
 */

const DAYS = 100;

/**
 * A rating as the app stores it today (ratings.decider's event through the rating stream's codec: schemaVersion 2,
 * with its day and the Idempotency-Key the app's form sends), one in five with a note, encrypted with the person's key.
 */
function ratingOn(userId: string, key: Buffer, day: number): EventToAppend {
  const ratingId = randomUUID();
  const at = new Date(Date.UTC(2024, 0, 1 + day, 20)).toISOString();
  const scores = { relationships: 1 + (day % 5), health: 4, purpose: 3, growth: 5, joy: 1 + ((day * 7) % 5) };
  const note = day % 5 === 0 ? `Day ${day}: a long walk, then dinner with friends.` : undefined;
  const event: RatingSubmitted = {
    type: 'RatingSubmitted',
    data: { ratingId, userId, ...scores, overallScore: overallScore(scores), submittedAt: at, day: at.slice(0, 10), ...(note ? { note } : {}), idempotencyKey: randomUUID() },
  };
  const { data, schemaVersion } = encodeRatingEvent(event, key);
  return {
    type: event.type,
    data,
    metadata: { eventId: ratingId, schemaVersion, correlationId: ratingId, causationId: ratingId, actorUserId: userId, occurredAt: at },
  };
}

/**
 * `events` ratings: events / 100 people, each a rating a day for 100 days, appended through the event store; each
 * person has their key in keys.sqlite, as people who signed up have (without any, a start looks through every event
 * for personal data encrypted with lost keys: ops/integrity.ts). `person`: one person's 100 days after another's (the
 * kindest order for a rebuild: a person's documents are done with in one batch); `day`: everyone's ratings of a day,
 * then the next day's, as a history where everyone rates every day is (each batch changes every person's documents).
 */
export async function seedRatings(dataDir: string, events: number, order: 'person' | 'day' = 'person'): Promise<void> {
  const store = new SqliteEventStore(join(dataDir, 'events.sqlite'), { synchronous: 'NORMAL' });
  const keys = new SqliteKeyStore(join(dataDir, 'keys.sqlite'));
  const people = Math.max(1, Math.ceil(events / DAYS));
  const userId = (p: number) => `bench-user-${p}`;
  const keyOf: Buffer[] = [];
  for (let p = 0; p < people; p++) keyOf.push((await keys.keyFor(userId(p)))!);
  let written = 0;
  if (order === 'person') {
    for (let p = 0; p < people && written < events; p++) {
      const count = Math.min(DAYS, events - written);
      await store.appendToStream(`ratings-${userId(p)}`, Array.from({ length: count }, (_, day) => ratingOn(userId(p), keyOf[p], day)), { expectedVersion: 0 });
      written += count;
    }
  } else {
    for (let day = 0; day < DAYS && written < events; day++) {
      for (let p = 0; p < people && written < events; p++, written++) {
        await store.appendToStream(`ratings-${userId(p)}`, [ratingOn(userId(p), keyOf[p], day)], { expectedVersion: day });
      }
    }
  }
  await Promise.all([store.close(), keys.close()]);
}

export interface RebuildFigures {
  events: number;
  rebuildPerSecond: number;
  readParsePerSecond: number;
  /** The rows the rebuild wrote, read back and written again into a new file by the store's commit alone (events/s). */
  writeFloorPerSecond: number;
  /** The same file read, parsed and folded by the projectors alone, into documents in plain maps (events/s). */
  foldFloorPerSecond: number;
  /** Rows of the rebuilt file: documents and index keys. */
  docRows: number;
  keyRows: number;
}

/** The start-up rebuild (pipeline/catch-up.ts) into fresh SQLite read models, against read + parse of the same file. */
export async function measureRebuild(dataDir: string, events: number): Promise<RebuildFigures> {
  const store = new SqliteEventStore(join(dataDir, 'events.sqlite'));
  const readModels = createReadModels({ mongoUrl: null, dataDir });
  const pipeline = new ProjectionPipeline(store, readModels, new InProcessQueue(), PROJECTIONS);
  let t0 = performance.now();
  await pipeline.catchUpAtStart();
  await readModels.close();
  const seconds = (performance.now() - t0) / 1000;
  const floor = writeFloor(join(dataDir, 'read-models.sqlite'), events);

  t0 = performance.now();
  const map = new Map<string, unknown>();
  for (let from = 0; ; ) {
    const page = await store.readAll({ from, limit: 5000 });
    if (page.length === 0) break;
    for (const e of page) map.set(e.data.ratingId as string, e.data);
    from = page[page.length - 1].position;
  }
  const baseSeconds = (performance.now() - t0) / 1000;
  const foldSeconds = await foldFloor(store);
  await store.close();
  for (const file of ['read-models.sqlite', 'read-models.sqlite-wal', 'read-models.sqlite-shm']) rmSync(join(dataDir, file), { force: true });
  return { events, rebuildPerSecond: events / seconds, readParsePerSecond: events / baseSeconds, foldFloorPerSecond: events / foldSeconds, ...floor };
}

/**
 * What the projectors alone cost a rebuild: every event read and parsed as the catch-up reads it, then each
 * projector's `ids`, `context` and `evolve`, with its documents in plain maps (no working set, store, copy or
 * serialising). No rebuild with these projectors can go faster on this machine. Returns the seconds it took.
 */
async function foldFloor(store: SqliteEventStore): Promise<number> {
  const docs = new Map<string, Map<string, { doc: object | null; position: number }>>();
  const slotsOf = (collection: string) => docs.get(collection) ?? docs.set(collection, new Map()).get(collection)!;
  const lookup: Lookup = <T extends object>(collection: string, id: string) => {
    const slot = docs.get(collection)?.get(id);
    return (slot?.doc ? withFields(slot.doc, { _id: id, _position: slot.position }) : null) as (T & StoredDoc) | null;
  };
  const t0 = performance.now();
  for (let from = 0; ; ) {
    const page = await store.readAll({ from, limit: 5000 });
    if (page.length === 0) break;
    for (const event of page) {
      for (const projection of PROJECTIONS) {
        for (const projector of projection.projectors) {
          if (!projector.eventTypes.includes(event.type)) continue;
          // (A promise only for an account deletion: awaiting every answer would time the microtasks instead.)
          const maybeIds = projector.ids(event, lookup);
          const ids = maybeIds instanceof Promise ? await maybeIds : maybeIds;
          const maybeContext = projector.context?.(event, lookup);
          const context = maybeContext instanceof Promise ? await maybeContext : maybeContext;
          const slots = slotsOf(projector.collection);
          for (const id of ids) slots.set(id, { doc: projector.evolve(slots.get(id)?.doc ?? null, event, context), position: event.position });
        }
      }
    }
    from = page[page.length - 1].position;
  }
  return (performance.now() - t0) / 1000;
}

/**
 * What writing alone costs a rebuild into SQLite: the rows of a rebuilt read-model file (documents in the order
 * written, index keys in key order) read back and written into a new file by the store's own commit
 * (`applyCommit`), as many rows per transaction as a catch-up's batch wrote; no event read, no projector run.
 */
function writeFloor(rebuilt: string, events: number): Pick<RebuildFigures, 'writeFloorPerSecond' | 'docRows' | 'keyRows'> {
  const copy = `${rebuilt}.floor`;
  const sourceDocs = new Database(rebuilt, { readonly: true });
  const sourceKeys = new Database(rebuilt, { readonly: true });
  const docRows = sourceDocs.prepare('SELECT COUNT(*) FROM docs').pluck().get() as number;
  const keyRows = sourceKeys.prepare('SELECT COUNT(*) FROM idx').pluck().get() as number;
  const commits = Math.max(1, Math.ceil(events / CATCH_UP_BATCH));
  const target = openReadModelFile(copy).db;
  const statements = new Map();
  const t0 = performance.now();
  const docs = sourceDocs.prepare('SELECT c, id, position, doc FROM docs ORDER BY rowid').raw().iterate() as IterableIterator<unknown[]>;
  const keys = sourceKeys.prepare('SELECT c, field, key, id FROM idx').raw().iterate() as IterableIterator<unknown[]>;
  const take = (rows: IterableIterator<unknown[]>, n: number) => {
    const flat: unknown[] = [];
    for (let i = 0; i < n; i++) {
      const next = rows.next();
      if (next.done) break;
      flat.push(...next.value);
    }
    return flat;
  };
  for (let i = 0; i < commits; i++) {
    const rows = { docs: take(docs, Math.ceil(docRows / commits)), removedKeys: [], addedKeys: take(keys, Math.ceil(keyRows / commits)), checkpoints: [] };
    applyCommit(target, rows, statements);
  }
  const seconds = (performance.now() - t0) / 1000;
  docs.return?.();
  keys.return?.();
  for (const db of [sourceDocs, sourceKeys, target]) db.close();
  for (const suffix of ['', '-wal', '-shm']) rmSync(copy + suffix, { force: true });
  return { writeFloorPerSecond: events / seconds, docRows, keyRows };
}

export interface RestartFigures {
  events: number;
  /** The first start (no read models yet: a rebuild) until the API answers, in s. */
  firstStartSeconds: number;
  /** The process's peak resident memory over that first start (its rebuild), in MB. */
  firstStartPeakRssMb: number;
  /** A restart after a clean stop until the API answers, in s. */
  restartSeconds: number;
  /** Resident memory of the process once it answers after the restart, in MB. */
  rssMb: number;
}

/** Resident memory of a process now (VmRSS), or its peak so far (VmHWM), in MB. */
function rssMbOf(pid: number, which: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${which}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
}

/** The built app (dist/main.js) on a data directory with `events` seeded ratings: first start, then a restart. */
export async function measureRestart(dataDir: string, events: number): Promise<RestartFigures> {
  let t0 = performance.now();
  const app = await startAppProcess({ SHED_EVENT_LOOP_DELAY_MS: '0' }, { dataDir, startTimeoutMs: 30 * 60_000 });
  const firstStartSeconds = (performance.now() - t0) / 1000;
  const firstStartPeakRssMb = rssMbOf(app.pid()!, 'VmHWM');
  await app.stop();
  t0 = performance.now();
  await app.start();
  const restartSeconds = (performance.now() - t0) / 1000;
  const rssMb = rssMbOf(app.pid()!);
  await app.stop();
  return { events, firstStartSeconds, firstStartPeakRssMb, restartSeconds, rssMb };
}

/** Every figure at each size, each on a data directory of its own. */
export async function manyEventsFigures(sizes: readonly number[]): Promise<{ rebuild: RebuildFigures[]; restart: RestartFigures[]; rebuildDayByDay: RestartFigures[] }> {
  const rebuild: RebuildFigures[] = [];
  const restart: RestartFigures[] = [];
  const rebuildDayByDay: RestartFigures[] = [];
  for (const events of sizes) {
    for (const order of ['person', 'day'] as const) {
      const dataDir = mkdtempSync(join(tmpdir(), 'joy-bench-many-'));
      try {
        const t0 = performance.now();
        await seedRatings(dataDir, events, order);
        console.log(`  seeded ${events.toLocaleString('en')} events (${order} by ${order}) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
        if (order === 'person') {
          rebuild.push(await measureRebuild(dataDir, events));
          restart.push(await measureRestart(dataDir, events));
        } else {
          rebuildDayByDay.push(await measureRestart(dataDir, events));
        }
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  }
  return { rebuild, restart, rebuildDayByDay };
}

if (require.main === module) {
  const sizes = (process.env.BENCH_MANY_EVENTS ?? '100000').split(',').map(Number);
  manyEventsFigures(sizes).then(
    (figures) => console.log(JSON.stringify(figures, null, 2)),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
