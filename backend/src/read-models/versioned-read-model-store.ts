import { syncDocsOf, type SyncDocs } from './in-memory-read-model-store';
import type { BulkEntry, FindOptions, Query, ReadModelStore, StoredDoc } from './read-model-store.port';

export type { BulkEntry } from './read-model-store.port';

export type BulkCapable = ReadModelStore & {
  /** Gives `to` the collection options and indexes of `from` (MongoDB: collations, TTL and other indexes). */
  copyLayout?(from: string, to: string): Promise<void>;
};

/** Checkpoint holding the active version of a projection's read models (0: the unversioned names). */
export const versionKey = (projection: string) => `$version:${projection}`;
/** Checkpoint holding the version an operator asked to be built (`projections rebuild`); pending while > active. */
export const rebuildKey = (projection: string) => `$rebuild:${projection}`;
/** Checkpoint holding the position of the job a projection stopped on (0 while it runs). */
export const stoppedKey = (projection: string) => `$stopped:${projection}`;

/** The physical name of a logical collection (or checkpoint) at a version: `name` for 0, `name__v<N>` after. */
export function physicalName(name: string, version: number): string {
  return version > 0 ? `${name}__v${version}` : name;
}

export interface VersionedProjection {
  name: string;
  collections: readonly string[];
}

export interface VersionedOptions {
  /** How often the active versions are read again (ms): how soon another process's switch is seen. */
  refreshMs?: number;
}

interface Shared {
  inner: BulkCapable;
  /** logical collection → projection name */
  projectionOf: Map<string, string>;
  projections: Map<string, VersionedProjection>;
  active: Map<string, number>;
  loaded: Promise<void> | null;
  /** Whether the active versions were read (a first `refresh` finished): synchronous access may start. */
  ready: boolean;
  timer: NodeJS.Timeout | null;
  refreshMs: number;
}

/**
 * Versioned physical collections behind the logical names the queries use, so that a projection can be
 * rebuilt into a new version while the active one keeps serving, and then switched in one write.
 *
 * - The active version of each projection is a checkpoint of the inner store (`$version:<projection>`), so it
 *   works on any ReadModelStore; version 0 uses the plain names (a store written before versions existed
 *   keeps working). Version N stores collection `c` as `c__vN`, and the projection's checkpoint as
 *   `<projection>__vN`. A switch is one `setCheckpoint`: atomic.
 * - Reads and writes go to the active version, which every process re-reads every `refreshMs` (api replicas
 *   see a switch within about that long), and which `refresh()` re-reads at once (a worker that becomes the
 *   owner of a projection's queue does, before its first job).
 * - `atVersion(projection, n)` is a view pinned to version n of one projection: what a rebuild writes into.
 * - Names outside every projection (other collections, `$relay`, ...) pass through unchanged.
 */
export class VersionedReadModelStore implements ReadModelStore {
  private readonly shared: Shared;

  constructor(inner: BulkCapable, projections: readonly VersionedProjection[], options?: VersionedOptions);
  constructor(shared: Shared, pinned: ReadonlyMap<string, number>);
  constructor(
    innerOrShared: BulkCapable | Shared,
    projectionsOrPinned: readonly VersionedProjection[] | ReadonlyMap<string, number>,
    options: VersionedOptions = {},
  ) {
    if (projectionsOrPinned instanceof Map) {
      this.shared = innerOrShared as Shared;
      this.pinned = projectionsOrPinned;
      return;
    }
    const projections = projectionsOrPinned as readonly VersionedProjection[];
    this.shared = {
      inner: innerOrShared as BulkCapable,
      projectionOf: new Map(projections.flatMap((p) => p.collections.map((c) => [c, p.name] as const))),
      projections: new Map(projections.map((p) => [p.name, p])),
      active: new Map(),
      loaded: null,
      ready: false,
      timer: null,
      refreshMs: options.refreshMs ?? 1000,
    };
    this.pinned = new Map();
  }

  private readonly pinned: ReadonlyMap<string, number>;

  get inner(): BulkCapable {
    return this.shared.inner;
  }

  /** Re-reads every projection's active version now. */
  async refresh(): Promise<void> {
    const { inner, projections, active } = this.shared;
    const versions = await Promise.all([...projections.keys()].map((name) => inner.getCheckpoint(versionKey(name))));
    [...projections.keys()].forEach((name, i) => active.set(name, versions[i]));
    this.shared.ready = true;
  }

  /**
   * Synchronous access to the active (or pinned) versions when the inner store offers it (in memory) and the
   * active versions have been read; null otherwise (use the async methods).
   */
  syncDocs(): SyncDocs | null {
    const inner = syncDocsOf(this.shared.inner);
    if (!inner || !this.shared.ready) return null;
    return {
      getNow: (collection, id) => inner.getNow(this.physical(collection), id),
      putNow: (collection, id, doc, position) => inner.putNow(this.physical(collection), id, doc, position),
      positionNow: (collection, id) => inner.positionNow(this.physical(collection), id),
      getCheckpointNow: (name) => inner.getCheckpointNow(this.checkpointName(name)),
      setCheckpointNow: (name, position) => inner.setCheckpointNow(this.checkpointName(name), position),
    };
  }

  /** The active version of a projection as this process last read it (0 before the first read). */
  activeVersion(projection: string): number {
    return this.shared.active.get(projection) ?? 0;
  }

  /** The version this store reads and writes for a projection. */
  versionOf(projection: string): number {
    return this.pinned.get(projection) ?? this.activeVersion(projection);
  }

  /** A store that reads and writes version `version` of `projection` (the others stay on their active one). */
  atVersion(projection: string, version: number): VersionedReadModelStore {
    return new VersionedReadModelStore(this.shared, new Map([...this.pinned, [projection, version]]));
  }

  /** Makes `version` the active version of `projection`, for every process (one write). */
  async activate(projection: string, version: number): Promise<void> {
    await this.shared.inner.setCheckpoint(versionKey(projection), version);
    this.shared.active.set(projection, version);
  }

  /** Drops a version's collections and resets its checkpoint (an old version after a switch). */
  async dropVersion(projection: string, version: number): Promise<void> {
    const p = this.shared.projections.get(projection);
    if (!p) throw new Error(`Unknown projection ${projection}`);
    for (const collection of p.collections) await this.shared.inner.dropCollection(physicalName(collection, version));
    await this.shared.inner.setCheckpoint(physicalName(projection, version), 0);
  }

  /**
   * Readies `version` of a projection for a rebuild: what an interrupted attempt left is dropped, and each
   * collection gets the options and indexes of the active version's (a collation or a TTL index an operator
   * added is not lost with the switch) when the inner store can copy them.
   */
  async prepareVersion(projection: string, version: number): Promise<void> {
    await this.dropVersion(projection, version);
    const { inner } = this.shared;
    if (!inner.copyLayout) return;
    const active = this.activeVersion(projection);
    if (active === version) return;
    for (const collection of this.shared.projections.get(projection)!.collections) {
      await inner.copyLayout(physicalName(collection, active), physicalName(collection, version));
    }
  }

  /** The physical collection name for a logical one. */
  physical(collection: string): string {
    const projection = this.shared.projectionOf.get(collection);
    return projection ? physicalName(collection, this.versionOf(projection)) : collection;
  }

  async ensureIndex(collection: string, field: string): Promise<void> {
    await this.loaded();
    await this.shared.inner.ensureIndex(this.physical(collection), field);
  }

  async get<T extends object>(collection: string, id: string): Promise<(T & StoredDoc) | null> {
    await this.loaded();
    return this.shared.inner.get<T>(this.physical(collection), id);
  }

  async find<T extends object>(collection: string, query: Query, options?: FindOptions): Promise<(T & StoredDoc)[]> {
    await this.loaded();
    return this.shared.inner.find<T>(this.physical(collection), query, options);
  }

  async put(collection: string, id: string, doc: object | null, position: number): Promise<boolean> {
    await this.loaded();
    return this.shared.inner.put(this.physical(collection), id, doc, position);
  }

  /** Many guarded writes at once (one round trip on MongoDB). */
  async bulkPut(collection: string, entries: readonly BulkEntry[]): Promise<number> {
    await this.loaded();
    return this.shared.inner.bulkPut(this.physical(collection), entries);
  }

  async getCheckpoint(name: string): Promise<number> {
    await this.loaded();
    return this.shared.inner.getCheckpoint(this.checkpointName(name));
  }

  async setCheckpoint(name: string, position: number): Promise<void> {
    await this.loaded();
    await this.shared.inner.setCheckpoint(this.checkpointName(name), position);
  }

  async dropCollection(collection: string): Promise<void> {
    await this.loaded();
    await this.shared.inner.dropCollection(this.physical(collection));
  }

  /** Stops the refresh timer and closes the inner store (a pinned view closes nothing). */
  async close(): Promise<void> {
    if (this.pinned.size > 0) return;
    if (this.shared.timer) clearInterval(this.shared.timer);
    this.shared.timer = null;
    await this.shared.inner.close();
  }

  private checkpointName(name: string): string {
    return this.shared.projections.has(name) ? physicalName(name, this.versionOf(name)) : name;
  }

  /** Reads the active versions on first use, then every `refreshMs`. */
  private loaded(): Promise<void> {
    const shared = this.shared;
    shared.loaded ??= this.refresh().then(
      () => {
        if (shared.refreshMs > 0) {
          shared.timer = setInterval(() => void this.refresh().catch(() => undefined), shared.refreshMs);
          shared.timer.unref();
        }
      },
      (err: unknown) => {
        shared.loaded = null; // try again on the next call
        throw err;
      },
    );
    return shared.loaded;
  }
}

/** The versioned store behind `store`, if it is one (rebuilds need it): how the pipeline finds the capability. */
export function versionsOf(store: ReadModelStore): VersionedReadModelStore | null {
  return store instanceof VersionedReadModelStore ? store : null;
}
