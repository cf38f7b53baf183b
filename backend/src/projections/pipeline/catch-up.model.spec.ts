import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventToAppend } from '../../event-store/event-store.port';
import { SqliteEventStore } from '../../event-store/sqlite-event-store';
import { ratingsDecider, type RatingsCommand, type RatingsState } from '../../ratings/ratings.decider';
import { InMemoryReadModelStore } from '../../read-models/in-memory-read-model-store';
import type { ReadModelStore, StoredDoc } from '../../read-models/read-model-store.port';
import { WriterThread } from '../../read-models/sqlite-commit';
import { SqliteReadModelStore } from '../../read-models/sqlite-read-model-store';
import { PROJECTIONS } from '../projections';
import { eventTypesOf } from '../projector';
import { applyEvent } from './applier';
import { type BatchLimits, catchUpAtStart } from './catch-up';

/*
 * The start-up catch-up (pages, batches, the working set, the SQLite store and its writer thread) against applying
 * the same events one at a time into memory, the plainest path there is, over random histories made by the ratings
 * decider: ratings on random days (several a day, imported days out of order), corrections, withdrawals and account
 * deletions, caught up in random batch sizes with a read cache of a few documents, some in two starts (a restart
 * between), the last events applied live after the start as the relay applies them. Every document the app would
 * serve must be the same. FUZZ_RUNS=n runs more cases.
 */

const projections = PROJECTIONS.filter((p) => ['ratings', 'rating-days', 'group-stats'].includes(p.name));
const collections = projections.flatMap((p) => p.projectors.map((x) => x.collection));
const typesByProjection = new Map(projections.map((p) => [p.name, eventTypesOf(p)]));
const PEOPLE = 6;

type Step =
  | { kind: 'submit'; person: number; daysBack: number; joy: number; note: boolean }
  | { kind: 'correct'; person: number; pick: number; joy: number }
  | { kind: 'withdraw'; person: number; pick: number }
  | { kind: 'delete'; person: number };

const person = fc.nat(PEOPLE - 1);
const score = fc.integer({ min: 1, max: 5 });
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 20, arbitrary: fc.record({ kind: fc.constant('submit' as const), person, daysBack: fc.oneof(fc.constant(0), fc.nat(40)), joy: score, note: fc.boolean() }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('correct' as const), person, pick: fc.nat(), joy: score }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('withdraw' as const), person, pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), person }) },
);
const limits: fc.Arbitrary<BatchLimits> = fc
  .record({ page: fc.integer({ min: 1, max: 30 }), events: fc.integer({ min: 1, max: 60 }), keptDocs: fc.integer({ min: 0, max: 150 }) })
  .map(({ page, events, keptDocs }) => ({ page, events, rewritesPerEvent: 2, maxEvents: events * 4, maxDocs: 400, keptDocs, turnMs: 50 }));

/** The events of the steps, as the app appends them: each command decided on its person's stream so far. */
function historyOf(steps: Step[]): { stream: string; event: EventToAppend }[] {
  const appended: { stream: string; event: EventToAppend }[] = [];
  // A person whose account is deleted comes back as someone new (a new id), as a new sign-up would.
  const generation = Array<number>(PEOPLE).fill(0);
  const states = new Map<string, { state: RatingsState; ids: string[] }>();
  let clock = Date.UTC(2026, 2, 1, 8);
  steps.forEach((s, i) => {
    clock += 37 * 60_000;
    const at = new Date(clock);
    const userId = `person-${s.person}-${generation[s.person]}`;
    const stream = states.get(userId) ?? { state: ratingsDecider.initialState, ids: [] };
    states.set(userId, stream);
    const metadata = { eventId: `e${i}`, schemaVersion: 2, correlationId: `e${i}`, causationId: `e${i}`, actorUserId: userId, occurredAt: at.toISOString() };
    if (s.kind === 'delete') {
      appended.push({ stream: `user-${userId}`, event: { type: 'UserDeleted', data: { userId, deletedAt: at.toISOString() }, metadata } });
      generation[s.person]++;
      return;
    }
    const scores = { relationships: 3, health: 4, purpose: 2, growth: 5, joy: s.kind === 'withdraw' ? 3 : s.joy };
    let command: RatingsCommand;
    if (s.kind === 'submit') {
      const day = new Date(clock - s.daysBack * 86_400_000).toISOString().slice(0, 10);
      command = { ratingId: `r${i}`, userId, scores, at, day, note: s.note ? `note ${i}` : null };
      stream.ids.push(`r${i}`);
    } else {
      if (stream.ids.length === 0) return;
      command = { kind: s.kind, ratingId: stream.ids[s.pick % stream.ids.length], userId, scores, at };
    }
    let events;
    try {
      events = ratingsDecider.decide(command, stream.state);
    } catch {
      return; // Refused (a rating already withdrawn): nothing is appended, as in the app.
    }
    for (const event of events) {
      stream.state = ratingsDecider.evolve(stream.state, event);
      appended.push({ stream: `ratings-${userId}`, event: { ...event, metadata } as EventToAppend });
    }
  });
  return appended;
}

/** Every document of the collections, each as `get` answers it. */
async function everything(store: ReadModelStore): Promise<Record<string, StoredDoc[]>> {
  const all: Record<string, StoredDoc[]> = {};
  for (const c of collections) {
    const found = (await store.find(c, {})).sort((a, b) => (a._id < b._id ? -1 : 1));
    all[c] = await Promise.all(found.map(async (d) => (await store.get(c, d._id))!));
  }
  return all;
}

async function run(steps: Step[], batch: BatchLimits, cacheSize: number, restartAt: number | null, liveFor: number, slowWriter: boolean): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'joy-catch-up-model-'));
  const store = new SqliteEventStore(join(dir, 'events.sqlite'));
  const writerDone = slowWriter ? jest.spyOn(WriterThread.prototype, 'written').mockReturnValue(false) : null;
  try {
    const history = historyOf(steps);
    const versions = new Map<string, number>();
    const append = async (from: number, to: number) => {
      for (const { stream, event } of history.slice(from, to)) {
        const version = versions.get(stream) ?? 0;
        await store.appendToStream(stream, [event], { expectedVersion: version });
        versions.set(stream, version + 1);
      }
    };
    const openReadModels = async () => {
      const readModels = new SqliteReadModelStore(join(dir, 'read-models.sqlite'), { cacheSize });
      for (const projector of projections.flatMap((p) => p.projectors)) {
        for (const field of projector.indexes ?? []) await readModels.ensureIndex(projector.collection, field);
      }
      return readModels;
    };
    const catchUp = (readModels: ReadModelStore) => catchUpAtStart({ store, readModels, projections, typesByProjection, reactors: [], batch });
    // Some of the history, a start that catches up with it and stops; then the rest, and the next start.
    const split = restartAt === null ? 0 : Math.min(restartAt, history.length);
    if (split > 0) {
      await append(0, split);
      const first = await openReadModels();
      await catchUp(first);
      await first.close();
    }
    // The last `liveFor` events come after the second start: each applied as the relay applies it, checkpoint after.
    const liveStart = Math.max(split, history.length - liveFor);
    await append(split, liveStart);
    const readModels = await openReadModels();
    await catchUp(readModels);
    for (let i = liveStart; i < history.length; i++) {
      await append(i, i + 1);
      const [event] = await store.readAll({ from: (await store.headPosition()) - 1, limit: 1 });
      for (const p of projections) {
        await applyEvent(readModels, p, event);
        await readModels.setCheckpoint(p.name, event.position);
      }
      // Now and then the timed commit comes between two events.
      if (i % 3 === 0) readModels.flush();
    }

    const live = new InMemoryReadModelStore();
    for (const event of await store.readAll({ from: 0, limit: history.length + 1 })) for (const p of projections) await applyEvent(live, p, event);
    const expected = await everything(live);
    expect(await everything(readModels)).toEqual(expected);
    await readModels.close();
    const reopened = await openReadModels();
    expect(await everything(reopened)).toEqual(expected);
    const head = await store.headPosition();
    expect(await Promise.all(projections.map((p) => reopened.getCheckpoint(p.name)))).toEqual(projections.map(() => head));
    await reopened.close();
  } finally {
    writerDone?.mockRestore();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the start-up catch-up against applying each event in memory', () => {
  it('builds the same documents from any history of ratings, corrections, withdrawals and deletions, in any batches, then live', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 200, size: 'max' }), limits, fc.integer({ min: 1, max: 40 }), fc.option(fc.nat({ max: 200 })), fc.nat({ max: 60 }), fc.boolean(), run),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 40) },
    );
  }, 180_000);
});
