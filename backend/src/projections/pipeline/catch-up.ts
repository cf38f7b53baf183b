import { Logger } from '@nestjs/common';
import type { EventStore } from '../../event-store/event-store.port';
import { codeVersionKey, type ReadModelStore } from '../../read-models/read-model-store.port';
import { versionsOf } from '../../read-models/versioned-read-model-store';
import { collectionsOf, type Projection } from '../projector';
import { WorkingSet } from './applier';
import { reactorCheckpoint, RELAY_CHECKPOINT } from './jobs';
import type { Reactor } from './reactor';

const logger = new Logger('Projections');

/** Events read per page by the start-up catch-up. */
const CATCH_UP_PAGE = 5000;
/**
 * Events folded in memory at least before their documents and the checkpoints are written (SQLite: in one
 * transaction; more where that saves writing documents again: BatchLimits). Two
 * batches are in memory at once on SQLite (one being written by the writer thread while the next is folded): 10,000
 * measured here as fast as 20,000 with a third less peak memory (1M events: 680 MB against 860 MB).
 */
export const CATCH_UP_BATCH = 10_000;
/** When a catch-up's batch ends (it is then written with the checkpoints, in one transaction on SQLite). */
export interface BatchLimits {
  /** Events read at a time: a batch ends between two pages. */
  page: number;
  /** Events a batch folds at least. */
  events: number;
  /**
   * Past `events`, a batch goes on while it has changed more than this many documents per event folded: a rating
   * makes about one new one (its own; its week's once a week), so more are mostly documents of earlier batches written again (a
   * person's totals, rating index, recent ratings: when everyone rates every day, every batch changes every
   * person's). A longer batch writes each of them once for more events.
   */
  rewritesPerEvent: number;
  /** Events and changed documents at which a batch ends whatever it changed (memory, and the work a crash repeats). */
  maxEvents: number;
  maxDocs: number;
  /** Documents the working set keeps in memory over a commit; past this it forgets them and reads them back from the store. */
  keptDocs: number;
  /**
   * How long it folds before it lets the event loop turn (ms): the port meanwhile answers the app's files, 503
   * "starting" and health. A turn per page only (5,000 events, most of a second) made loading the app take 15 s.
   */
  turnMs: number;
}

export const BATCH_LIMITS: BatchLimits = { page: CATCH_UP_PAGE, events: CATCH_UP_BATCH, rewritesPerEvent: 2, maxEvents: 100_000, maxDocs: 250_000, keptDocs: 20_000, turnMs: 50 };

export interface CatchUpProgress {
  /** Where the slowest projection started, where it is, and the head it catches up to. */
  from: number;
  position: number;
  head: number;
  /** Projections built anew because their code version changed. */
  reset: readonly string[];
}

export interface CatchUpDeps {
  store: EventStore;
  readModels: ReadModelStore;
  projections: readonly Projection[];
  typesByProjection: ReadonlyMap<string, ReadonlySet<string>>;
  reactors: readonly Reactor[];
  /** BATCH_LIMITS unless given (tests). */
  batch?: BatchLimits;
}

/**
 * The start-up catch-up of a process that runs the whole pipeline over read models that persist (the embedded
 * default): before the relay starts, every projection and reactor is brought from its checkpoint to the head
 * straight from the event store, a page of events at a time, each event read and parsed once for all of them,
 * folded into documents held in memory (pipeline/applier.ts WorkingSet) and written with the checkpoints at the end
 * of each batch (BATCH_LIMITS). A restart after a clean stop finds nothing to do; the
 * first start after an upgrade (no read models yet) or after a projection's code version changed rebuilds here.
 *
 * A projection whose `version` differs from the one its read models were built with has its collections emptied
 * and its checkpoint reset first, so it is rebuilt from position 0.
 */
export async function catchUpAtStart(deps: CatchUpDeps, onProgress?: (p: CatchUpProgress) => void): Promise<CatchUpProgress> {
  // A store that loads in bulk (SQLite) commits a catch-up's batch (documents and checkpoints) in one
  // transaction, not every few ms.
  const inner: object = versionsOf(deps.readModels)?.inner ?? deps.readModels;
  if (isBulkLoader(inner)) return inner.bulk(() => catchUp(deps, onProgress, inner));
  return catchUp(deps, onProgress);
}

interface BulkLoader {
  bulk<T>(load: () => Promise<T>): Promise<T>;
  /** Commits what is pending now. */
  flush(): void;
  /** Lets go of the last commit's documents once it is written (they are read from the file again): less memory. */
  releaseWritten(): void;
}

type Committer = Pick<BulkLoader, 'flush' | 'releaseWritten'>;

function isBulkLoader(store: object): store is BulkLoader {
  return typeof (store as Partial<BulkLoader>).bulk === 'function';
}

async function catchUp(deps: CatchUpDeps, onProgress?: (p: CatchUpProgress) => void, committer?: Committer): Promise<CatchUpProgress> {
  const { store, readModels, projections, typesByProjection, reactors } = deps;
  const versioned = versionsOf(readModels);
  await versioned?.refresh();
  const reset: string[] = [];
  for (const projection of projections) {
    const wanted = projection.version ?? 1;
    const built = await readModels.getCheckpoint(codeVersionKey(projection.name));
    if (built === wanted) continue;
    if ((await readModels.getCheckpoint(projection.name)) > 0) {
      reset.push(projection.name);
      if (versioned) await versioned.dropVersion(projection.name, versioned.activeVersion(projection.name));
      else {
        for (const collection of collectionsOf(projection)) await readModels.dropCollection(collection);
        await readModels.setCheckpoint(projection.name, 0);
      }
    }
    await readModels.setCheckpoint(codeVersionKey(projection.name), wanted);
  }

  const projectionAt = await Promise.all(projections.map((p) => readModels.getCheckpoint(p.name)));
  const reactorAt = await Promise.all(reactors.map((r) => readModels.getCheckpoint(reactorCheckpoint(r.name))));
  /**
   * Reactors whose side effect failed during the start (a partner down): they react to nothing more here, their
   * checkpoint stays before that event, and their queue's consumer goes on from there once the app serves (it waits
   * out such failures). A partner down must not keep Joy from starting.
   */
  const halted = new Set<number>();
  const reactorTypes = reactors.map((r) => new Set(r.eventTypes));
  const types = projections.map((p) => typesByProjection.get(p.name)!);
  const from = Math.min(...projectionAt, ...reactorAt, await readModels.getCheckpoint(RELAY_CHECKPOINT));
  let head = await store.headPosition();
  const progress = (position: number): CatchUpProgress => ({ from, position, head, reset });
  const limits = deps.batch ?? BATCH_LIMITS;
  // The documents being built, in memory; written with the checkpoints at the end of each batch.
  const work = new WorkingSet(readModels, limits.keptDocs);
  let position = from;
  /** The last event every reactor has seen through (for a reactor that fails on the next one). */
  let previous = from;
  let folded = 0;
  /** Writes the batch's documents, then moves every checkpoint to `position` (the store commits them together). */
  const write = async () => {
    await work.flush();
    for (let i = 0; i < projections.length; i++) {
      if (projectionAt[i] < position) await readModels.setCheckpoint(projections[i].name, (projectionAt[i] = position));
    }
    for (let i = 0; i < reactors.length; i++) {
      if (!halted.has(i) && reactorAt[i] < position) await readModels.setCheckpoint(reactorCheckpoint(reactors[i].name), (reactorAt[i] = position));
    }
    if ((await readModels.getCheckpoint(RELAY_CHECKPOINT)) < position) await readModels.setCheckpoint(RELAY_CHECKPOINT, position);
    committer?.flush();
    folded = 0;
  };
  const batchFull = () => {
    if (folded < limits.events) return false;
    const docs = work.changedDocs;
    return docs <= limits.rewritesPerEvent * folded || folded >= limits.maxEvents || docs >= limits.maxDocs;
  };
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  let turnedAt = performance.now();
  onProgress?.(progress(position));
  while (position < head) {
    const page = await store.readAll({ from: position, limit: limits.page });
    if (page.length === 0) break;
    for (const event of page) {
      if (performance.now() - turnedAt >= limits.turnMs) {
        await turn();
        turnedAt = performance.now();
      }
      for (let i = 0; i < projections.length; i++) {
        if (event.position <= projectionAt[i] || !types[i].has(event.type)) continue;
        const pending = work.apply(projections[i], event);
        if (pending) await pending;
      }
      for (let i = 0; i < reactors.length; i++) {
        if (halted.has(i) || event.position <= reactorAt[i] || !reactorTypes[i].has(event.type)) continue;
        // A reactor may read the read models: they get what is folded so far first.
        if (work.dirty) await work.flush();
        try {
          await reactors[i].react(event, { store, readModels });
        } catch (err) {
          halted.add(i);
          // Everything before this event is done (reactions are idempotent: the last batch's come again at worst).
          const before = Math.max(reactorAt[i], previous);
          await readModels.setCheckpoint(reactorCheckpoint(reactors[i].name), (reactorAt[i] = before));
          logger.warn(`Reactor ${reactors[i].name} failed at position ${event.position} during the start (${(err as Error).message}): it goes on from there once Joy serves`);
        }
      }
      previous = event.position;
    }
    position = page[page.length - 1].position;
    folded += page.length;
    if (position >= head) head = await store.headPosition();
    if (position >= head || batchFull()) await write();
    committer?.releaseWritten();
    onProgress?.(progress(position));
    // And a turn after each page's commit.
    await turn();
    turnedAt = performance.now();
  }
  if (folded > 0) await write();
  return progress(position);
}
