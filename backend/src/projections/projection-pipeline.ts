import { EventEmitter } from 'node:events';
import { Logger } from '@nestjs/common';
import type { EventStore, RecordedEvent } from '../event-store/event-store.port';
import type { Consumer, ConsumerOptions, ExclusiveRun, JobQueue } from '../queue/queue.port';
import type { ReadModelStore, StoredDoc } from '../read-models/read-model-store.port';
import {
  rebuildKey,
  stoppedKey,
  versionKey,
  VersionedReadModelStore,
  type BulkEntry,
} from '../read-models/versioned-read-model-store';
import { eventTypesOf, Lookup, Projection } from './projector';

export const RELAY_CHECKPOINT = '$relay';
/** The name of the relay's exclusive duty (one relay across every worker replica). */
export const RELAY_DUTY = 'relay';
export const queueName = (projection: string) => `projection.${projection}`;
/** A reactor's queue, and the name of its checkpoint (next to the projections' checkpoints). */
export const reactorQueueName = (reactor: string) => `reactor.${reactor}`;
export const reactorCheckpoint = (reactor: string) => `reactor.${reactor}`;

/** What a reactor may use besides the event it reacts to. */
export interface ReactorContext {
  store: EventStore;
  readModels: ReadModelStore;
}

/**
 * A reactor: a side effect on events (care fulfilment, notifications), not a read model. It is routed by the
 * relay exactly like a projection: its own queue `reactor.<name>` (one at a time, in global order, retried
 * in place, stopped rather than skipped after `maxAttempts`), its own checkpoint `reactor.<name>` (moved after
 * each event and on watermarks), its own lease (the queue's exclusive consumer: one worker replica reacts at a
 * time). Delivery is at least once, so `react` must be idempotent: the same event twice, or again after a crash
 * half-way through, must have the effect once (deterministic event ids, idempotency keys at the outside world).
 * Reactors are not rebuilt and not awaited by `waitFor` (nothing reads them).
 */
export interface Reactor {
  name: string;
  eventTypes: readonly string[];
  react(event: RecordedEvent, ctx: ReactorContext): Promise<void>;
}

/** A destination of the relay: a projection's or a reactor's queue. */
interface Route {
  queue: string;
  /** Where the consumer keeps its position (a projection's name, or `reactor.<name>`). */
  checkpoint: string;
  /** Job ids are `<prefix>:<position>` and `<prefix>:wm:<upTo>`. */
  jobPrefix: string;
  types: ReadonlySet<string>;
}

/** Events read per page by a rebuild. */
const REBUILD_PAGE = 1000;

/**
 * A job of a projection queue: an event to apply, or a watermark. A watermark `upTo` is enqueued by the relay
 * after every event up to `upTo` it routed to this projection, so when the consumer reaches it (one at a time,
 * in order) every event of this projection up to `upTo` has been applied.
 */
type ProjectionJob = RecordedEvent | { watermark: number };

/** Applies one event to every projector of a projection that handles it; the position guard makes it idempotent. */
export async function applyEvent(
  readModels: Pick<ReadModelStore, 'get' | 'put'>,
  projection: Projection,
  event: RecordedEvent,
): Promise<void> {
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

function withoutGuard<T extends { _id: string; _position: number }>(doc: T): Omit<T, '_id' | '_position'> {
  const { _id, _position, ...rest } = doc;
  return rest;
}

export interface ProjectionStatus {
  name: string;
  checkpoint: number;
  head: number;
  lag: number;
  /** standby: another worker replica owns this projection's queue. */
  state: 'running' | 'standby' | 'stopped' | 'not running here';
  error?: string;
}

export interface RebuildProgress {
  projection: string;
  version: number;
  position: number;
  head: number;
  phase: 'building' | 'switching' | 'done';
}

export interface PipelineOptions {
  /** Retries of a failing projector before its projection stops (see the queue port). */
  consumer?: Pick<ConsumerOptions, 'maxAttempts' | 'backoffMs'>;
  /** How soon after the relay went quiet it sends the projections their watermarks (ms). */
  watermarkMs?: number;
  /** How often a worker looks for rebuild requests of the projections it owns (ms; 0: never). */
  rebuildPollMs?: number;
  /** How long an old version's collections are kept after a switch (api replicas may still read them). */
  dropOldVersionAfterMs?: number;
  /** Delay before the relay runs again after an error (ms). */
  relayRetryMs?: number;
  /** Reactors the relay feeds besides the projections (started and stopped with the pipeline). */
  reactors?: readonly Reactor[];
}

/** A FIFO mutex: the consumer holds it per job, a rebuild holds it while switching (between two jobs). */
class Mutex {
  private tail: Promise<void> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

/**
 * relay: subscribes to the event store and puts each event on the queue of every projection and reactor that
 * handles it (at least once). workers: apply each projection's queue in order and move its checkpoint. Both can run in
 * one process (embedded) or in worker processes (production), where the queue makes each projection's
 * consumer and the relay exclusive across replicas (a replica works on what it holds the lease of).
 */
export class ProjectionPipeline {
  private readonly logger = new Logger('Projections');
  private readonly progress = new EventEmitter();
  private readonly consumers = new Map<string, Consumer>();
  private readonly locks = new Map<string, Mutex>();
  private readonly rebuilds = new Map<string, Promise<number>>();
  private readonly stopping = new AbortController();
  private relayRun: ExclusiveRun | null = null;
  private rebuildTimer: NodeJS.Timeout | null = null;
  private readonly typesByProjection: Map<string, Set<string>>;
  private readonly options: Required<Omit<PipelineOptions, 'consumer'>> & Pick<PipelineOptions, 'consumer'>;
  readonly reactors: readonly Reactor[];
  private readonly reactorConsumers = new Map<string, Consumer>();
  private readonly routes: readonly Route[];

  constructor(
    private readonly store: EventStore,
    private readonly readModels: ReadModelStore,
    private readonly queue: JobQueue,
    readonly projections: readonly Projection[],
    options: PipelineOptions = {},
  ) {
    this.progress.setMaxListeners(0);
    this.typesByProjection = new Map(projections.map((p) => [p.name, eventTypesOf(p)]));
    this.options = {
      watermarkMs: 200,
      rebuildPollMs: 1000,
      dropOldVersionAfterMs: 30_000,
      relayRetryMs: 1000,
      reactors: [],
      ...options,
    };
    this.reactors = this.options.reactors;
    const names = new Set<string>();
    for (const reactor of this.reactors) {
      if (names.has(reactor.name)) throw new Error(`Two reactors named ${reactor.name}`);
      names.add(reactor.name);
    }
    this.routes = [
      ...projections.map((p) => ({ queue: queueName(p.name), checkpoint: p.name, jobPrefix: p.name, types: this.typesByProjection.get(p.name)! })),
      ...this.reactors.map((r) => ({
        queue: reactorQueueName(r.name),
        checkpoint: reactorCheckpoint(r.name),
        jobPrefix: reactorQueueName(r.name),
        types: new Set(r.eventTypes),
      })),
    ];
  }

  async start(): Promise<void> {
    for (const projection of this.projections) {
      for (const projector of projection.projectors) {
        for (const field of projector.indexes ?? []) await this.readModels.ensureIndex(projector.collection, field);
      }
      const lock = new Mutex();
      this.locks.set(projection.name, lock);
      this.consumers.set(
        projection.name,
        this.queue.consume<ProjectionJob>(queueName(projection.name), ({ payload }) => lock.run(() => this.handle(projection, payload)), {
          ...this.options.consumer,
          onOwned: async () => {
            // Another replica may have switched this projection to a new version while it owned it.
            if (this.readModels instanceof VersionedReadModelStore) await this.readModels.refresh();
            await this.readModels.setCheckpoint(stoppedKey(projection.name), 0);
          },
          onStopped: ({ jobId }) => {
            this.logger.error(`Projection ${projection.name} stopped on job ${jobId}`);
            const position = Number(jobId.slice(jobId.lastIndexOf(':') + 1)) || 1;
            void this.readModels.setCheckpoint(stoppedKey(projection.name), position).catch(() => undefined);
          },
        }),
      );
    }
    for (const reactor of this.reactors) {
      this.reactorConsumers.set(
        reactor.name,
        this.queue.consume<ProjectionJob>(reactorQueueName(reactor.name), ({ payload }) => this.handleReactor(reactor, payload), {
          ...this.options.consumer,
          onStopped: ({ jobId }) => this.logger.error(`Reactor ${reactor.name} stopped on job ${jobId}`),
        }),
      );
    }
    this.relayRun = this.queue.runExclusive(RELAY_DUTY, (signal) => this.relay(signal), {
      retryMs: this.options.relayRetryMs,
      onError: (err) => this.logger.error(`Relay stopped: ${(err as Error).message}; restarting`),
    });
    if (this.options.rebuildPollMs > 0 && this.readModels instanceof VersionedReadModelStore) {
      this.rebuildTimer = setInterval(() => void this.pickUpRebuildRequests(), this.options.rebuildPollMs);
      this.rebuildTimer.unref();
    }
  }

  private async handle(projection: Projection, job: ProjectionJob): Promise<void> {
    const checkpoint = await this.readModels.getCheckpoint(projection.name);
    if ('watermark' in job) {
      if (job.watermark <= checkpoint) return;
      await this.readModels.setCheckpoint(projection.name, job.watermark);
      this.progress.emit('checkpoint', projection.name, job.watermark);
      return;
    }
    if (job.position <= checkpoint) return;
    await applyEvent(this.readModels, projection, job);
    await this.readModels.setCheckpoint(projection.name, job.position);
    this.progress.emit('checkpoint', projection.name, job.position);
  }

  /** A reactor's job: react once per event past its checkpoint, then move the checkpoint. */
  private async handleReactor(reactor: Reactor, job: ProjectionJob): Promise<void> {
    const key = reactorCheckpoint(reactor.name);
    const checkpoint = await this.readModels.getCheckpoint(key);
    const position = 'watermark' in job ? job.watermark : job.position;
    if (position <= checkpoint) return;
    if (!('watermark' in job)) await reactor.react(job, { store: this.store, readModels: this.readModels });
    await this.readModels.setCheckpoint(key, position);
  }

  /**
   * Where the relay (re)starts: the minimum of its own checkpoint and every projection's.
   *
   * Why the minimum: the relay checkpoint says "enqueued", not "applied". If the queue lost jobs (Redis restarted
   * without its data) events between a projection's checkpoint and the relay's would be skipped forever.
   * Starting at the minimum re-enqueues them; re-delivery is harmless (the consumer skips positions at or below
   * its checkpoint, and every document's position guard skips what it already has).
   *
   * Why that is not a huge replay for a projection with rare event types: a checkpoint moves on the events a
   * projection handles, and also on watermarks. The relay sends each projection a watermark (a job in its queue,
   * so after everything routed before it) when it went quiet; reaching it, the consumer moves the checkpoint to
   * the watermark: every event of this projection up to there is applied. So every checkpoint trails the relay
   * by at most the events of the last moments, whatever the projection's event types.
   */
  async relayStart(): Promise<number> {
    const names = [RELAY_CHECKPOINT, ...this.routes.map((r) => r.checkpoint)];
    const positions = await Promise.all(names.map((name) => this.readModels.getCheckpoint(name)));
    return Math.min(...positions);
  }

  /** The relay duty: runs until aborted, starting again from `relayStart()` when the queue reconnected. */
  private async relay(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const run = new AbortController();
      const stop = () => run.abort();
      signal.addEventListener('abort', stop);
      const off = this.queue.onReconnect(() => {
        this.logger.warn('Queue reconnected: restarting the relay from the lowest checkpoint (queued jobs may be lost)');
        run.abort();
      });
      try {
        await this.relayOnce(run.signal);
      } finally {
        off();
        signal.removeEventListener('abort', stop);
      }
    }
  }

  private async relayOnce(signal: AbortSignal): Promise<void> {
    const from = await this.relayStart();
    let relayed = from;
    /** Per route (projection or reactor queue): the position its last job (event or watermark) was enqueued for. */
    const routed = new Map(this.routes.map((r) => [r.queue, from]));
    let lastEventAt = Date.now();
    let watermarking: Promise<void> | null = null;
    const sendWatermarks = async () => {
      const upTo = relayed;
      for (const route of this.routes) {
        if (routed.get(route.queue)! >= upTo) continue;
        const job = { id: `${route.jobPrefix}:wm:${upTo}`, payload: { watermark: upTo } satisfies ProjectionJob };
        await this.queue.add(route.queue, [job]);
        routed.set(route.queue, upTo);
      }
    };
    // Watermarks go out once the relay has been quiet for watermarkMs (and at least that often while busy).
    const timer = setInterval(() => {
      if (watermarking || Date.now() - lastEventAt < this.options.watermarkMs) return;
      watermarking = sendWatermarks()
        .catch((err) => this.logger.warn(`Watermarks not sent: ${(err as Error).message}`))
        .finally(() => (watermarking = null));
    }, this.options.watermarkMs);
    timer.unref();
    let lastWatermarkAt = Date.now();
    try {
      for await (const event of this.store.subscribe({ from, signal })) {
        for (const route of this.routes) {
          if (route.types.has(event.type)) {
            await this.queue.add(route.queue, [{ id: `${route.jobPrefix}:${event.position}`, payload: event }]);
            routed.set(route.queue, event.position);
          }
        }
        await this.readModels.setCheckpoint(RELAY_CHECKPOINT, event.position);
        relayed = event.position;
        lastEventAt = Date.now();
        if (lastEventAt - lastWatermarkAt >= this.options.watermarkMs * 5 && !watermarking) {
          lastWatermarkAt = lastEventAt;
          await sendWatermarks();
        }
      }
    } catch (err) {
      if (!signal.aborted) throw err;
    } finally {
      clearInterval(timer);
      await watermarking;
    }
  }

  /**
   * Resolves once every projection that handles one of `eventTypes` has applied `position`, so a read right
   * after a write shows it. Rejects after `timeoutMs` (the write itself is durable either way).
   */
  async waitFor(eventTypes: readonly string[], position: number, timeoutMs = 5000): Promise<void> {
    const names = this.projections
      .filter((p) => eventTypes.some((t) => this.typesByProjection.get(p.name)!.has(t)))
      .map((p) => p.name);
    const pending = new Set<string>();
    for (const name of names) if ((await this.readModels.getCheckpoint(name)) < position) pending.add(name);
    if (pending.size === 0) return;
    await new Promise<void>((resolve, reject) => {
      const cleanup = () => {
        clearInterval(poll);
        clearTimeout(timer);
        this.progress.off('checkpoint', onProgress);
      };
      const onProgress = (name: string, reached: number) => {
        if (reached >= position && pending.delete(name) && pending.size === 0) {
          cleanup();
          resolve();
        }
      };
      // Another process (the production worker) moves the checkpoints: look at them now and then too.
      const poll = setInterval(async () => {
        for (const name of [...pending]) onProgress(name, await this.readModels.getCheckpoint(name));
      }, 50);
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`Projections ${[...pending].join(', ')} did not reach position ${position} in ${timeoutMs} ms`));
      }, timeoutMs);
      this.progress.on('checkpoint', onProgress);
    });
  }

  /** Resolves once the relay has passed the current head and every projection queue is empty. */
  async waitUntilCaughtUp(): Promise<void> {
    const head = await this.store.headPosition();
    for (;;) {
      const relayed = await this.readModels.getCheckpoint(RELAY_CHECKPOINT);
      const backlogs = await Promise.all(this.projections.map((p) => this.queue.backlog(queueName(p.name))));
      if (relayed >= head && backlogs.every((n) => n === 0)) return;
      const stopped = [...this.consumers].find(([, c]) => c.status().state === 'stopped');
      if (stopped) throw new Error(`Projection ${stopped[0]} stopped while catching up`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  async status(): Promise<ProjectionStatus[]> {
    const head = await this.store.headPosition();
    return Promise.all(
      this.projections.map(async (p) => {
        const checkpoint = await this.readModels.getCheckpoint(p.name);
        const consumer = this.consumers.get(p.name)?.status();
        // A projection is caught up when nothing it handles is waiting; its checkpoint only moves on its own events.
        const backlog = await this.queue.backlog(queueName(p.name));
        const relayed = await this.readModels.getCheckpoint(RELAY_CHECKPOINT);
        return {
          name: p.name,
          checkpoint,
          head,
          lag: backlog + Math.max(0, head - relayed),
          state: consumer ? consumer.state : 'not running here',
          ...(consumer?.state === 'stopped' ? { error: `${consumer.error} (job ${consumer.jobId})` } : {}),
        } satisfies ProjectionStatus;
      }),
    );
  }

  /** The reactors' checkpoints, lag and consumer state, in the shape of a projection's status. */
  async reactorStatus(): Promise<ProjectionStatus[]> {
    const head = await this.store.headPosition();
    const relayed = await this.readModels.getCheckpoint(RELAY_CHECKPOINT);
    return Promise.all(
      this.reactors.map(async (r) => {
        const consumer = this.reactorConsumers.get(r.name)?.status();
        const backlog = await this.queue.backlog(reactorQueueName(r.name));
        return {
          name: reactorQueueName(r.name),
          checkpoint: await this.readModels.getCheckpoint(reactorCheckpoint(r.name)),
          head,
          lag: backlog + Math.max(0, head - relayed),
          state: consumer ? consumer.state : 'not running here',
          ...(consumer?.state === 'stopped' ? { error: `${consumer.error} (job ${consumer.jobId})` } : {}),
        } satisfies ProjectionStatus;
      }),
    );
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
    const versioned = this.readModels;
    if (!(versioned instanceof VersionedReadModelStore)) throw new Error('Rebuild needs the versioned read-model store');
    const projection = this.projections.find((p) => p.name === name);
    if (!projection) throw new Error(`Unknown projection ${name}`);
    const owns = () => this.consumers.get(name)?.status().state === 'running';
    if (!owns()) throw new Error(`Projection ${name} is not owned by this process`);
    await versioned.refresh();
    const old = versioned.activeVersion(name);
    const version = Math.max(old + 1, options.version ?? 0);
    const target = versioned.atVersion(name, version);
    // A leftover of an interrupted attempt at this version is dropped; the build starts from nothing.
    await versioned.dropVersion(name, version);
    for (const projector of projection.projectors) {
      for (const field of projector.indexes ?? []) await target.ensureIndex(projector.collection, field);
    }
    const types = this.typesByProjection.get(name)!;
    const report = async (phase: RebuildProgress['phase'], position: number) =>
      options.onProgress?.({ projection: name, version, position, head: await this.store.headPosition(), phase });
    let position = 0;
    /** Applies every event after `position` up to the head of the moment, a page at a time. */
    const catchUp = async (phase: RebuildProgress['phase']) => {
      for (;;) {
        if (this.stopping.signal.aborted) throw new Error(`Rebuild of ${name} interrupted: the pipeline stopped`);
        if (!owns()) throw new Error(`Rebuild of ${name} abandoned: this process no longer owns the projection`);
        const page = await this.store.readAll({ from: position, limit: REBUILD_PAGE });
        if (page.length === 0) return;
        const batch = new WriteBatch(target);
        for (const event of page) if (types.has(event.type)) await applyEvent(batch, projection, event);
        await batch.flush();
        position = page[page.length - 1].position;
        await target.setCheckpoint(name, position);
        await report(phase, position);
      }
    };
    await catchUp('building');
    await this.locks.get(name)!.run(async () => {
      await catchUp('switching');
      if (!owns()) throw new Error(`Rebuild of ${name} abandoned: this process no longer owns the projection`);
      await target.setCheckpoint(name, position);
      await versioned.activate(name, version);
    });
    this.progress.emit('checkpoint', name, position);
    this.logger.log(`Projection ${name}: version ${version} built up to position ${position} and active`);
    await report('done', position);
    const dropOld = setTimeout(() => {
      void versioned.dropVersion(name, old).catch((err) => this.logger.warn(`Old version not dropped: ${(err as Error).message}`));
    }, this.options.dropOldVersionAfterMs);
    dropOld.unref();
    return version;
  }

  /** Starts the rebuilds operators asked for (`projections rebuild`) of the projections owned here. */
  private async pickUpRebuildRequests(): Promise<void> {
    const versioned = this.readModels as VersionedReadModelStore;
    for (const projection of this.projections) {
      const name = projection.name;
      if (this.rebuilds.has(name) || this.consumers.get(name)?.status().state !== 'running') continue;
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

  async stop(): Promise<void> {
    this.stopping.abort();
    if (this.rebuildTimer) clearInterval(this.rebuildTimer);
    await this.relayRun?.close();
    await Promise.all([...this.rebuilds.values()].map((r) => r.catch(() => undefined)));
    await Promise.all([...this.consumers.values(), ...this.reactorConsumers.values()].map((c) => c.close()));
  }
}

/**
 * Buffers a rebuild page's writes in memory (reads see them) and writes them with one `bulkPut` per
 * collection: a round trip per page instead of one per document on MongoDB.
 */
export class WriteBatch implements Pick<ReadModelStore, 'get' | 'put'> {
  private readonly pending = new Map<string, Map<string, BulkEntry>>();

  constructor(private readonly target: ReadModelStore & { bulkPut?(collection: string, entries: readonly BulkEntry[]): Promise<number> }) {}

  async get<T extends object>(collection: string, id: string): Promise<(T & StoredDoc) | null> {
    const entry = this.pending.get(collection)?.get(id);
    if (!entry) return this.target.get<T>(collection, id);
    return entry.doc === null ? null : (structuredClone({ ...entry.doc, _id: id, _position: entry.position }) as T & StoredDoc);
  }

  async put(collection: string, id: string, doc: object | null, position: number): Promise<boolean> {
    let entries = this.pending.get(collection);
    if (!entries) this.pending.set(collection, (entries = new Map()));
    const existing = entries.get(id);
    if (existing && existing.position >= position) return false;
    entries.set(id, { id, doc: doc === null ? null : structuredClone(doc), position });
    return true;
  }

  async flush(): Promise<void> {
    for (const [collection, entries] of this.pending) {
      const list = [...entries.values()];
      if (this.target.bulkPut) await this.target.bulkPut(collection, list);
      else for (const e of list) await this.target.put(collection, e.id, e.doc, e.position);
    }
    this.pending.clear();
  }
}
