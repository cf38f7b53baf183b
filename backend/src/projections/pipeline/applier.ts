import type { RecordedEvent } from '../../event-store/event-store.port';
import { syncDocsOf, type SyncDocs } from '../../read-models/in-memory-read-model-store';
import type { BulkEntry, ReadModelStore, StoredDoc } from '../../read-models/read-model-store.port';
import { type Lookup, type MaybePromise, type Projection, withFields } from '../projector';

/*
 * Applying events to read models: each projector of a projection folds the event into its documents, guarded by
 * the documents' positions (so applying an event twice changes nothing). Pure of queues and checkpoints.
 */

type SomeProjector = Projection['projectors'][number];

/** Applies one event to every projector of a projection that handles it; the position guard makes it idempotent. */
export async function applyEvent(
  readModels: Pick<ReadModelStore, 'get' | 'put'>,
  projection: Projection,
  event: RecordedEvent,
): Promise<void> {
  const sync = syncDocsOf(readModels);
  if (sync) await applyEventNow(sync, projection, event);
  else await applyEventAsync(readModels, projection, event);
}

export async function applyEventAsync(readModels: Pick<ReadModelStore, 'get' | 'put'>, projection: Projection, event: RecordedEvent): Promise<void> {
  const lookup: Lookup = (collection, id) => readModels.get(collection, id);
  for (const projector of projection.projectors) {
    if (!projector.eventTypes.includes(event.type)) continue;
    const ids = await projector.ids(event, lookup);
    const context = await projector.context?.(event, lookup);
    for (const id of ids) {
      const stored = await readModels.get(projector.collection, id);
      if (stored && stored._position >= event.position) continue;
      const next = projector.evolve(stored ? withoutGuard(stored) : null, event, context);
      await readModels.put(projector.collection, id, next, event.position);
    }
  }
}

/**
 * `applyEvent` on a store with synchronous access: the same steps without an `await` each, unless a
 * projector's `ids` or `context` answers with a promise (an account deletion's); returns a promise only then.
 */
export function applyEventNow(sync: SyncDocs, projection: Projection, event: RecordedEvent, from = 0): Promise<void> | undefined {
  const projectors = projection.projectors;
  for (let i = from; i < projectors.length; i++) {
    const projector = projectors[i];
    if (!projector.eventTypes.includes(event.type)) continue;
    // Synchronous reads, as `evolveNow`'s: a projector's context (a rating's day) then keeps a live event off promises.
    const lookup: Lookup = (collection, id) => sync.getNow(collection, id);
    const ids = projector.ids(event, lookup);
    const context = projector.context?.(event, lookup);
    if (Array.isArray(ids) && !(context instanceof Promise)) {
      evolveNow(sync, projector, ids, event, context);
      continue;
    }
    // Asynchronous ids or context: the rest of this event waits for them (the projectors stay in order).
    return Promise.all([ids, context]).then(([resolved, resolvedContext]) => {
      evolveNow(sync, projector, resolved, event, resolvedContext);
      return applyEventNow(sync, projection, event, i + 1);
    });
  }
  return undefined;
}

function evolveNow(sync: SyncDocs, projector: SomeProjector, ids: readonly string[], event: RecordedEvent, context: unknown): void {
  for (const id of ids) {
    const stored = sync.getNow(projector.collection, id);
    if (stored && stored._position >= event.position) continue;
    const next = projector.evolve(stored ? withoutGuard(stored) : null, event, context);
    sync.putNow(projector.collection, id, next, event.position);
  }
}

/** A slot's document as a lookup answers it (with `_id` and `_position`), made once per change. */
function viewOf<T extends object>(slot: Slot, id: string): (T & StoredDoc) | null {
  if (slot.view === undefined) slot.view = slot.doc && (withFields(slot.doc, { _id: id, _position: slot.position }) as StoredDoc);
  return slot.view as (T & StoredDoc) | null;
}

function withoutGuard<T extends { _id: string; _position: number }>(doc: T): Omit<T, '_id' | '_position'> {
  const { _id, _position, ...rest } = doc;
  return rest;
}

/** A document as a working set holds it: as `evolve` made it (no `_id`, `_position`), null when absent or deleted. */
interface Slot {
  doc: object | null;
  /** The position of the last event applied to it (its deletion's for a tombstone); 0 when it was never written. */
  position: number;
  /** The document as a lookup answers it (with `_id` and `_position`), made on the first lookup after a change. */
  view?: StoredDoc | null;
}

/**
 * The documents a catch-up or a rebuild is folding events into, in memory: read from the store on first touch,
 * then evolved in place of the store, and written with one `bulkPut` per collection by `flush` (with the
 * checkpoints after it, a batch of events is one transaction on SQLite, one bulk write per collection on MongoDB).
 * Same steps and guard as `applyEvent`, without a copy of each document per event: projectors are pure (they never
 * change a document they were given), so a document is kept as `evolve` returned it, and the store serialises or
 * copies what it stores. Reads (lookups) see the documents of the batch. Bounded: after a flush, the set forgets
 * its documents once it holds more than `maxDocs`.
 */
export class WorkingSet {
  private readonly slots = new Map<string, Map<string, Slot>>();
  private size = 0;
  /** The slots changed since the last flush, by collection. */
  private changed = new Map<string, Map<string, Slot>>();
  private changedCount = 0;
  private readonly sync: SyncDocs | null;

  constructor(
    private readonly target: ReadModelStore,
    private readonly maxDocs = 20_000,
  ) {
    this.sync = syncDocsOf(target);
  }

  /** Whether documents changed since the last flush. */
  get dirty(): boolean {
    return this.changed.size > 0;
  }

  /** How many documents changed since the last flush (what it will write). */
  get changedDocs(): number {
    return this.changedCount;
  }

  /**
   * Applies one event to every projector of a projection that handles it; returns a promise only when a
   * projector's `ids` answered with one or a document had to be read asynchronously (the projectors stay in order).
   */
  apply(projection: Projection, event: RecordedEvent, from = 0): Promise<void> | undefined {
    const projectors = projection.projectors;
    for (let i = from; i < projectors.length; i++) {
      const projector = projectors[i];
      if (!projector.eventTypes.includes(event.type)) continue;
      const ids = projector.ids(event, this.lookup);
      const context = projector.context?.(event, this.lookup);
      if (Array.isArray(ids) && !(context instanceof Promise) && this.sync) {
        for (const id of ids) this.evolve(projector, id, this.slotNow(projector.collection, id), event, context);
        continue;
      }
      return (async () => {
        const resolvedContext = await context;
        for (const id of await ids) this.evolve(projector, id, await this.slot(projector.collection, id), event, resolvedContext);
        await this.apply(projection, event, i + 1);
      })();
    }
    return undefined;
  }

  /** Writes the changed documents to the store (one `bulkPut` per collection). */
  async flush(): Promise<void> {
    const changed = this.changed;
    this.changed = new Map();
    this.changedCount = 0;
    for (const [collection, slots] of changed) {
      const entries: BulkEntry[] = [];
      for (const [id, slot] of slots) entries.push({ id, doc: slot.doc, position: slot.position });
      await this.target.bulkPut(collection, entries);
    }
    if (this.size > this.maxDocs) {
      this.slots.clear();
      this.size = 0;
    }
  }

  private evolve(projector: SomeProjector, id: string, slot: Slot, event: RecordedEvent, context: unknown): void {
    if (slot.position >= event.position) return;
    const next = projector.evolve(slot.doc, event, context);
    // A document that carries guard fields of its own gets them from the store, as `put` does.
    slot.doc = next !== null && ('_id' in next || '_position' in next) ? withoutGuard(next as StoredDoc) : next;
    slot.position = event.position;
    slot.view = undefined;
    let changed = this.changed.get(projector.collection);
    if (!changed) this.changed.set(projector.collection, (changed = new Map()));
    if (!changed.has(id)) this.changedCount++;
    changed.set(id, slot);
  }

  /** Answers at once when the store is in this process. */
  private readonly lookup: Lookup = <T extends object>(collection: string, id: string): MaybePromise<(T & StoredDoc) | null> => {
    if (this.sync) return viewOf<T>(this.slotNow(collection, id), id);
    return this.slot(collection, id).then((slot) => viewOf<T>(slot, id));
  };

  private slotNow(collection: string, id: string): Slot {
    return this.cached(collection, id) ?? this.remember(collection, id, this.sync!.getNow(collection, id), this.sync!.positionNow(collection, id));
  }

  private async slot(collection: string, id: string): Promise<Slot> {
    if (this.sync) return this.slotNow(collection, id);
    const cached = this.cached(collection, id);
    if (cached) return cached;
    const stored = await this.target.get(collection, id);
    // (A tombstone reads as absent here: the store's guard still refuses what it would.)
    return this.cached(collection, id) ?? this.remember(collection, id, stored, stored?._position ?? 0);
  }

  private cached(collection: string, id: string): Slot | undefined {
    return this.slots.get(collection)?.get(id);
  }

  private remember(collection: string, id: string, stored: StoredDoc | null, position: number): Slot {
    let slots = this.slots.get(collection);
    if (!slots) this.slots.set(collection, (slots = new Map()));
    const slot: Slot = { doc: stored && withoutGuard(stored), position };
    slots.set(id, slot);
    this.size++;
    return slot;
  }
}
