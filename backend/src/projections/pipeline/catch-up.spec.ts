import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventToAppend } from '../../event-store/event-store.port';
import { SqliteEventStore } from '../../event-store/sqlite-event-store';
import { InMemoryReadModelStore } from '../../read-models/in-memory-read-model-store';
import { codeVersionKey, type ReadModelStore, type StoredDoc } from '../../read-models/read-model-store.port';
import { WriterThread } from '../../read-models/sqlite-commit';
import { SqliteReadModelStore } from '../../read-models/sqlite-read-model-store';
import { PROJECTIONS } from '../projections';
import type { RatingWeekDoc } from '../rating-days.projector';
import { eventTypesOf } from '../projector';
import { applyEvent } from './applier';
import { type BatchLimits, catchUpAtStart } from './catch-up';

jest.setTimeout(60_000);

const PEOPLE = 30;
const DAYS = 40;
const projections = PROJECTIONS.filter((p) => ['ratings', 'rating-days', 'group-stats'].includes(p.name));
const collections = projections.flatMap((p) => p.projectors.map((x) => x.collection));
// Small limits, so that a history of 1,200 ratings spans batches: pages of 20 events, batches of at least 100, at most 1,000;
// the working set forgets its documents at commits past 200, and reads them back from the store (as at scale).
const limits: BatchLimits = { page: 20, events: 100, rewritesPerEvent: 2, maxEvents: 1000, maxDocs: 5000, keptDocs: 200, turnMs: 50 };

function rating(person: number, day: number): EventToAppend {
  const ratingId = `r-${person}-${day}`;
  const userId = `person-${person}`;
  const at = new Date(Date.UTC(2026, 0, 1 + day, 20)).toISOString();
  const joy = 1 + ((person + day) % 5);
  return {
    type: 'RatingSubmitted',
    data: { ratingId, userId, relationships: 3, health: 4, purpose: 3, growth: 2, joy, overallScore: (12 + joy) / 5, submittedAt: at },
    metadata: { eventId: ratingId, schemaVersion: 1, correlationId: ratingId, causationId: ratingId, actorUserId: userId, occurredAt: at },
  };
}

/** Every document of the collections, by collection and id; `byId`: each as `get` answers it (its cache). */
async function everything(store: ReadModelStore, byId = false): Promise<Record<string, StoredDoc[]>> {
  const all: Record<string, StoredDoc[]> = {};
  for (const c of collections) {
    const found = (await store.find(c, {})).sort((a, b) => (a._id < b._id ? -1 : 1));
    all[c] = byId ? await Promise.all(found.map(async (d) => (await store.get(c, d._id))!)) : found;
  }
  return all;
}

describe('the start-up catch-up into SQLite read models', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'joy-catch-up-'))));
  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Appends the ratings in the order given, catches up a fresh read-model file, and compares it with applying them live. */
  async function catchUp(order: [person: number, day: number][]) {
    const store = new SqliteEventStore(join(dir, 'events.sqlite'));
    for (const [person, day] of order) await store.appendToStream(`ratings-person-${person}`, [rating(person, day)], { expectedVersion: day });
    const live = new InMemoryReadModelStore();
    for (const event of await store.readAll({ from: 0, limit: order.length })) for (const p of projections) await applyEvent(live, p, event);

    const readModels = new SqliteReadModelStore(join(dir, 'read-models.sqlite'));
    for (const projector of projections.flatMap((p) => p.projectors)) {
      for (const field of projector.indexes ?? []) await readModels.ensureIndex(projector.collection, field);
    }
    const commits = jest.spyOn(readModels, 'flush');
    const typesByProjection = new Map(projections.map((p) => [p.name, eventTypesOf(p)]));
    await catchUpAtStart({ store, readModels, projections, typesByProjection, reactors: [], batch: limits });
    // A commit per batch, and the load's own at its end (nothing is left for it).
    const batches = commits.mock.calls.length - 1;
    // What the same store answers once the load is done (the app serves from it), and then in the file.
    const served = await everything(readModels, true);
    await readModels.close();
    // What the file holds, read after a restart.
    const reopened = new SqliteReadModelStore(join(dir, 'read-models.sqlite'));
    const built = await everything(reopened);
    const head = await store.headPosition();
    const checkpoints = await Promise.all(projections.map((p) => reopened.getCheckpoint(p.name)));
    await Promise.all([reopened.close(), store.close()]);
    return { batches, built, served, expected: await everything(live), head, checkpoints };
  }

  it('writes the same documents whichever order the history is in, and batches of 100 events one person after another', async () => {
    const personByPerson = Array.from({ length: PEOPLE * DAYS }, (_, i): [number, number] => [Math.floor(i / DAYS), i % DAYS]);
    const { batches, built, served, expected, head, checkpoints } = await catchUp(personByPerson);
    expect(built).toEqual(expected);
    expect(served).toEqual(expected);
    expect(built['ratings']).toHaveLength(PEOPLE * DAYS);
    expect(built['rating-totals'].find((d) => d._id === 'person-7')).toMatchObject({ count: DAYS, daysTracked: DAYS });
    expect(checkpoints).toEqual(projections.map(() => head));
    // About one new document a rating: a batch ends at its 100th event.
    expect(batches).toBe((PEOPLE * DAYS) / limits.events);
  });

  it("folds longer batches when everyone rates every day, so that each person's documents are written fewer times", async () => {
    const dayByDay = Array.from({ length: PEOPLE * DAYS }, (_, i): [number, number] => [i % PEOPLE, Math.floor(i / PEOPLE)]);
    const { batches, built, served, expected, head, checkpoints } = await catchUp(dayByDay);
    expect(built).toEqual(expected);
    expect(served).toEqual(expected);
    expect(built['rating-totals'].find((d) => d._id === 'person-7')).toMatchObject({ count: DAYS, daysTracked: DAYS });
    expect(checkpoints).toEqual(projections.map(() => head));
    // 100 ratings here change about 400 documents (each of the 30 people's own): a batch goes on to about 200 events,
    // and never past 1,000.
    expect(batches).toBeLessThanOrEqual(6);
    expect(batches).toBeGreaterThanOrEqual(Math.ceil((PEOPLE * DAYS) / limits.maxEvents));
  });

  it('answers what it wrote when the writer thread is slower than the fold', async () => {
    // Each commit is still being written when the next batch is folded and handed over (a large batch on a busy
    // disk): documents read back from the store meanwhile must not outlive their newer versions.
    jest.spyOn(WriterThread.prototype, 'written').mockReturnValue(false);
    const dayByDay = Array.from({ length: PEOPLE * DAYS }, (_, i): [number, number] => [i % PEOPLE, Math.floor(i / PEOPLE)]);
    const { built, served, expected } = await catchUp(dayByDay);
    expect(built).toEqual(expected);
    expect(served).toEqual(expected);
  });

  it('rebuilds a projection whose code version changed, and drops the collections it no longer fills', async () => {
    const store = new SqliteEventStore(join(dir, 'events.sqlite'));
    for (let day = 0; day < 20; day++) await store.appendToStream('ratings-person-0', [rating(0, day)], { expectedVersion: day });
    const file = join(dir, 'read-models.sqlite');
    const typesByProjection = new Map(projections.map((p) => [p.name, eventTypesOf(p)]));
    // A file built by the version before: its day documents, and its weeks as they were then.
    const before = new SqliteReadModelStore(file);
    await catchUpAtStart({ store, readModels: before, projections, typesByProjection, reactors: [], batch: limits });
    await before.put('rating-days', 'person-0:2026-01-01', { userId: 'person-0', day: '2026-01-01', count: 1 }, 1);
    await before.put('rating-weeks', 'person-0:2025-12-29', { userId: 'person-0', weekStart: '2025-12-29', days: [] }, 1e9);
    await before.setCheckpoint(codeVersionKey('rating-days'), 2);
    await before.close();

    const after = new SqliteReadModelStore(file);
    const { reset } = await catchUpAtStart({ store, readModels: after, projections, typesByProjection, reactors: [], batch: limits });
    expect(reset).toEqual(['rating-days']);
    expect(await after.find('rating-days', {})).toEqual([]);
    expect(await after.getCheckpoint(codeVersionKey('rating-days'))).toBe(projections.find((p) => p.name === 'rating-days')!.version);
    // Built again from the events: the week of January 1st holds its rated days (the 1st to the 4th).
    const week = await after.get<RatingWeekDoc>('rating-weeks', 'person-0:2025-12-29');
    expect(week?.days.map((d) => [d.day, d.count, d.ratings.length])).toEqual([
      ['2026-01-01', 1, 1],
      ['2026-01-02', 1, 1],
      ['2026-01-03', 1, 1],
      ['2026-01-04', 1, 1],
    ]);
    await Promise.all([after.close(), store.close()]);
  });

  it('lets the event loop turn while it folds a page, so that the port answers meanwhile', async () => {
    const store = new SqliteEventStore(join(dir, 'events.sqlite'));
    for (let day = 0; day < 200; day++) await store.appendToStream('ratings-person-0', [rating(0, day)], { expectedVersion: day });
    const readModels = new SqliteReadModelStore(join(dir, 'read-models.sqlite'));
    const typesByProjection = new Map(projections.map((p) => [p.name, eventTypesOf(p)]));
    // One page of 200 events; a turn whenever any time has passed: the callbacks queued meanwhile run between events.
    let turns = 0;
    let counting = true;
    const count = () => {
      turns++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    await catchUpAtStart({ store, readModels, projections, typesByProjection, reactors: [], batch: { ...limits, page: 200, turnMs: 0 } });
    counting = false;
    // A turn per event (200), where a turn per page gave fewer than 100.
    expect(turns).toBeGreaterThanOrEqual(200);
    await Promise.all([readModels.close(), store.close()]);
  });
});
