import type { RecordedEvent } from '../../event-store/event-store.port';
import { syncDocsOf, type SyncDocs } from '../../read-models/in-memory-read-model-store';
import type { ReadModelStore, StoredDoc } from '../../read-models/read-model-store.port';
import type { BulkEntry } from '../../read-models/versioned-read-model-store';
import type { Lookup, Projection } from '../projector';

/*
 * Applying events to read models: each projector of a projection folds the event into its documents, guarded by
 * the documents' positions (so applying an event twice changes nothing). Pure of queues and checkpoints.
 */

/** Applies one event to every projector of a projection that handles it; the position guard makes it idempotent. */
export async function applyEvent(
  readModels: Pick<ReadModelStore, 'get' | 'put'>,
  projection: Projection,
  event: RecordedEvent,
): Promise<void> {
  const sync = syncDocsOf(readModels);
  if (sync) await applyEventNow(sync, readModels, projection, event);
  else await applyEventAsync(readModels, projection, event);
}

export async function applyEventAsync(readModels: Pick<ReadModelStore, 'get' | 'put'>, projection: Projection, event: RecordedEvent): Promise<void> {
  const lookup: Lookup = (collection, id) => readModels.get(collection, id);
  for (const projector of projection.projectors) {
    if (!projector.eventTypes.includes(event.type)) continue;
    for (const id of await projector.ids(event, lookup)) {
      const stored = await readModels.get(projector.collection, id);
      if (stored && stored._position >= event.position) continue;
      const next = projector.evolve(stored ? withoutGuard(stored) : null, event);
      await readModels.put(projector.collection, id, next, event.position);
    }
  }
}

/**
 * `applyEvent` on a store with synchronous access: the same steps without an `await` each, unless a
 * projector's `ids` answers with a promise (it looked a document up); returns a promise only then.
 */
export function applyEventNow(
  sync: SyncDocs,
  readModels: Pick<ReadModelStore, 'get'>,
  projection: Projection,
  event: RecordedEvent,
  from = 0,
): Promise<void> | undefined {
  const projectors = projection.projectors;
  for (let i = from; i < projectors.length; i++) {
    const projector = projectors[i];
    if (!projector.eventTypes.includes(event.type)) continue;
    const ids = projector.ids(event, (collection, id) => readModels.get(collection, id));
    if (Array.isArray(ids)) {
      evolveNow(sync, projector, ids, event);
      continue;
    }
    // Asynchronous ids: the rest of this event waits for them (the projectors stay in order).
    return ids.then((resolved) => {
      evolveNow(sync, projector, resolved, event);
      return applyEventNow(sync, readModels, projection, event, i + 1);
    });
  }
  return undefined;
}

function evolveNow(sync: SyncDocs, projector: Projection['projectors'][number], ids: readonly string[], event: RecordedEvent): void {
  for (const id of ids) {
    const stored = sync.getNow(projector.collection, id);
    if (stored && stored._position >= event.position) continue;
    const next = projector.evolve(stored ? withoutGuard(stored) : null, event);
    sync.putNow(projector.collection, id, next, event.position);
  }
}

function withoutGuard<T extends { _id: string; _position: number }>(doc: T): Omit<T, '_id' | '_position'> {
  const { _id, _position, ...rest } = doc;
  return rest;
}

/**
 * Buffers a rebuild page's writes in memory (reads see them) and writes them with one `bulkPut` per
 * collection: a round trip per page instead of one per document on MongoDB. Documents are kept as `evolve`
 * made them, not copied: projectors are pure (they never change a document they were given), and the target
 * store copies what it stores. Offers synchronous access (SyncDocs), so a page is applied without an `await`
 * per event; checkpoints go to the target.
 */
export class WriteBatch implements Pick<ReadModelStore, 'get' | 'put'> {
  private readonly pending = new Map<string, Map<string, BulkEntry>>();

  constructor(private readonly target: ReadModelStore & { bulkPut?(collection: string, entries: readonly BulkEntry[]): Promise<number> }) {}

  /** Synchronous access when the target has it too (documents not written in this batch are read there). */
  syncDocs(): SyncDocs | null {
    const target = syncDocsOf(this.target);
    if (!target) return null;
    return {
      getNow: <T extends object>(collection: string, id: string) => this.buffered<T>(collection, id) ?? target.getNow<T>(collection, id),
      putNow: (collection, id, doc, position) => this.putNow(collection, id, doc, position),
      getCheckpointNow: () => {
        throw new Error('WriteBatch keeps no checkpoints');
      },
      setCheckpointNow: () => {
        throw new Error('WriteBatch keeps no checkpoints');
      },
    };
  }

  async get<T extends object>(collection: string, id: string): Promise<(T & StoredDoc) | null> {
    const buffered = this.buffered<T>(collection, id);
    return buffered === undefined ? this.target.get<T>(collection, id) : buffered;
  }

  async put(collection: string, id: string, doc: object | null, position: number): Promise<boolean> {
    return this.putNow(collection, id, doc, position);
  }

  async flush(): Promise<void> {
    for (const [collection, entries] of this.pending) {
      const list = [...entries.values()];
      if (this.target.bulkPut) await this.target.bulkPut(collection, list);
      else for (const e of list) await this.target.put(collection, e.id, e.doc, e.position);
    }
    this.pending.clear();
  }

  /** A document written in this batch (null when deleted); undefined when this batch has not written it. */
  private buffered<T extends object>(collection: string, id: string): (T & StoredDoc) | null | undefined {
    const entry = this.pending.get(collection)?.get(id);
    if (!entry) return undefined;
    return entry.doc === null ? null : ({ ...entry.doc, _id: id, _position: entry.position } as T & StoredDoc);
  }

  private putNow(collection: string, id: string, doc: object | null, position: number): boolean {
    let entries = this.pending.get(collection);
    if (!entries) this.pending.set(collection, (entries = new Map()));
    const existing = entries.get(id);
    if (existing && existing.position >= position) return false;
    entries.set(id, { id, doc, position });
    return true;
  }
}
