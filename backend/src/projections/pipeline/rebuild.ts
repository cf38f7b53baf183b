import type { EventEmitter } from 'node:events';
import { Logger } from '@nestjs/common';
import type { EventStore } from '../../event-store/event-store.port';
import { codeVersionKey, type ReadModelStore } from '../../read-models/read-model-store.port';
import { rebuildKey, versionKey, versionsOf } from '../../read-models/versioned-read-model-store';
import type { Projection } from '../projector';
import { WorkingSet } from './applier';
import type { PipelineConsumers } from './consumers';

/** Events read per page by a rebuild. */
const REBUILD_PAGE = 1000;

export interface RebuildProgress {
  projection: string;
  version: number;
  position: number;
  head: number;
  phase: 'building' | 'switching' | 'done';
}

export interface RebuildDeps {
  store: EventStore;
  readModels: ReadModelStore;
  projections: readonly Projection[];
  typesByProjection: ReadonlyMap<string, ReadonlySet<string>>;
  consumers: PipelineConsumers;
  progress: EventEmitter;
  /** How often a worker looks for rebuild requests of the projections it owns (ms; 0: never). */
  rebuildPollMs: number;
  /** How long an old version's collections are kept after a switch (api replicas may still read them). */
  dropOldVersionAfterMs: number;
}

/** Rebuilds of projections into a new version while the active one keeps serving (versioned read models only). */
export class Rebuilder {
  private readonly logger = new Logger('Projections');
  private readonly rebuilds = new Map<string, Promise<number>>();
  private readonly stopping = new AbortController();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: RebuildDeps) {}

  /** Watches for the rebuilds operators ask for (`projections rebuild`), where the read models are versioned. */
  start(): void {
    if (this.deps.rebuildPollMs > 0 && versionsOf(this.deps.readModels)) {
      this.timer = setInterval(() => void this.pickUpRebuildRequests(), this.deps.rebuildPollMs);
      this.timer.unref();
    }
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    if (this.timer) clearInterval(this.timer);
    await Promise.all([...this.rebuilds.values()].map((r) => r.catch(() => undefined)));
  }

  /**
   * Rebuilds a projection this process owns into a new version from position 0 while the active version
   * keeps serving, then switches. Needs the versioned read-model store. Resolves to the new active version.
   *
   * Why no event is lost or applied out of order around the switch:
   * 1. The build reads the event store (not the queue) page by page into version N, moving N's own checkpoint.
   *    The live consumer keeps applying its queue to the active version meanwhile.
   * 2. The switch runs under the projection's mutex, which the consumer holds for each job: the live
   *    projection is paused between two jobs. The build catches up to the event store's head (so version N's
   *    checkpoint c ≥ the live checkpoint, every event up to c applied in order), and the active version becomes
   *    N in one write. Only the owner of the projection's queue lease does this, so no other replica writes.
   * 3. The consumer resumes on version N with N's checkpoint c: the jobs still queued at or below c are skipped
   *    (they are in N already), the rest are applied in order. Nothing is skipped, because the queue holds (or
   *    the relay will enqueue) every event after the live checkpoint, and c ≥ that checkpoint.
   * 4. api replicas see the switch within their refresh interval; the old version is dropped only later.
   */
  async rebuild(name: string, options: { version?: number; onProgress?: (p: RebuildProgress) => void } = {}): Promise<number> {
    const running = this.rebuilds.get(name);
    if (running) return running;
    const promise = this.doRebuild(name, options).finally(() => this.rebuilds.delete(name));
    this.rebuilds.set(name, promise);
    return promise;
  }

  private async doRebuild(name: string, options: { version?: number; onProgress?: (p: RebuildProgress) => void }): Promise<number> {
    const versioned = versionsOf(this.deps.readModels);
    if (!versioned) throw new Error('Rebuild needs the versioned read-model store');
    const projection = this.deps.projections.find((p) => p.name === name);
    if (!projection) throw new Error(`Unknown projection ${name}`);
    const owns = () => this.deps.consumers.owns(name);
    if (!owns()) throw new Error(`Projection ${name} is not owned by this process`);
    await versioned.refresh();
    const old = versioned.activeVersion(name);
    const version = Math.max(old + 1, options.version ?? 0);
    const target = versioned.atVersion(name, version);
    // A leftover of an interrupted attempt at this version is dropped; the build starts from nothing, with the
    // collection options and indexes of the active version.
    await versioned.prepareVersion(name, version);
    for (const projector of projection.projectors) {
      for (const field of projector.indexes ?? []) await target.ensureIndex(projector.collection, field);
    }
    const types = this.deps.typesByProjection.get(name)!;
    const report = async (phase: RebuildProgress['phase'], position: number) =>
      options.onProgress?.({ projection: name, version, position, head: await this.deps.store.headPosition(), phase });
    let position = 0;
    // The documents being built stay in memory from page to page (bounded); each page's changes are written at once.
    const work = new WorkingSet(target);
    /** Applies every event after `position` up to the head of the moment, a page at a time. */
    const catchUp = async (phase: RebuildProgress['phase']) => {
      for (;;) {
        if (this.stopping.signal.aborted) throw new Error(`Rebuild of ${name} interrupted: the pipeline stopped`);
        if (!owns()) throw new Error(`Rebuild of ${name} abandoned: this process no longer owns the projection`);
        const page = await this.deps.store.readAll({ from: position, limit: REBUILD_PAGE });
        if (page.length === 0) return;
        for (const event of page) {
          if (!types.has(event.type)) continue;
          const pending = work.apply(projection, event);
          if (pending) await pending;
        }
        await work.flush();
        position = page[page.length - 1].position;
        await target.setCheckpoint(name, position);
        await report(phase, position);
      }
    };
    await catchUp('building');
    await this.deps.consumers.lock(name).run(async () => {
      await catchUp('switching');
      if (!owns()) throw new Error(`Rebuild of ${name} abandoned: this process no longer owns the projection`);
      await target.setCheckpoint(name, position);
      await versioned.activate(name, version);
      // Built from the first event by this code: what checkCodeVersion compares with.
      await versioned.inner.setCheckpoint(codeVersionKey(name), projection.version ?? 1);
    });
    this.deps.progress.emit('checkpoint', name, position);
    this.logger.log(`Projection ${name}: version ${version} built up to position ${position} and active`);
    await report('done', position);
    const dropOld = setTimeout(() => {
      void versioned.dropVersion(name, old).catch((err) => this.logger.warn(`Old version not dropped: ${(err as Error).message}`));
    }, this.deps.dropOldVersionAfterMs);
    dropOld.unref();
    return version;
  }

  /**
   * When this process becomes the owner of a projection, before its first job: read models built by an older
   * version of the projection's code (`version` in projections.ts, recorded as `$code:<name>` by the build) are
   * rebuilt as if an operator had asked (`projections rebuild`): a request the rebuild poll picks up, while the
   * active version keeps serving; `projections status` follows it. Read models not built yet are recorded as built
   * by this code. A store from before the code version was recorded counts as version 1, which every projection
   * had until it declared one. A newer version than this code's (a rollback) is left as it is.
   */
  async checkCodeVersion(projection: Projection): Promise<void> {
    const versioned = versionsOf(this.deps.readModels);
    if (!versioned) return;
    const name = projection.name;
    const wanted = projection.version ?? 1;
    const recorded = await versioned.inner.getCheckpoint(codeVersionKey(name));
    if (recorded >= wanted) return;
    if ((await this.deps.readModels.getCheckpoint(name)) === 0) {
      await versioned.inner.setCheckpoint(codeVersionKey(name), wanted);
      return;
    }
    const built = recorded || 1;
    if (built >= wanted) return;
    const [requested, active] = await Promise.all([versioned.inner.getCheckpoint(rebuildKey(name)), versioned.inner.getCheckpoint(versionKey(name))]);
    if (requested > active) return;
    this.logger.log(
      `Projection ${name}: its read models were built by version ${built} of its code, this is version ${wanted}: ` +
        `rebuilding into version ${active + 1} while version ${active} serves`,
    );
    await versioned.inner.setCheckpoint(rebuildKey(name), active + 1);
  }

  /** Starts the rebuilds operators asked for (`projections rebuild`) of the projections owned here. */
  private async pickUpRebuildRequests(): Promise<void> {
    const versioned = versionsOf(this.deps.readModels);
    if (!versioned) return;
    for (const projection of this.deps.projections) {
      const name = projection.name;
      if (this.rebuilds.has(name) || !this.deps.consumers.owns(name)) continue;
      try {
        const [requested, active] = await Promise.all([
          versioned.inner.getCheckpoint(rebuildKey(name)),
          versioned.inner.getCheckpoint(versionKey(name)),
        ]);
        if (requested <= active) continue;
        this.logger.log(`Projection ${name}: rebuilding into version ${requested} (requested)`);
        void this.rebuild(name, { version: requested }).catch((err) =>
          this.logger.error(`Rebuild of ${name} failed: ${(err as Error).message}`),
        );
      } catch (err) {
        this.logger.warn(`Rebuild requests not read: ${(err as Error).message}`);
      }
    }
  }
}
