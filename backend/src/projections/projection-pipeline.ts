import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { Logger } from '@nestjs/common';
import { EventStoreRefusedError, type EventStore, type RecordedEvent, UnreadableEventError } from '../event-store/event-store.port';
import type { Consumer, ConsumerOptions, ExclusiveRun, Job, JobQueue } from '../queue/queue.port';
import { syncDocsOf, type SyncDocs } from '../read-models/in-memory-read-model-store';
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
  /** Job ids are `<prefix>:<epoch>:<upTo>` (see ChunkJob). */
  jobPrefix: string;
  types: ReadonlySet<string>;
}

const newEpoch = () => randomBytes(4).toString('hex');
/** What a relay batch's race against the next turn of the event loop resolves to when the turn came first. */
const TURN = Symbol('turn');

/** Events read per page by a rebuild. */
const REBUILD_PAGE = 1000;

/**
 * A job of a projection's or reactor's queue: a chunk of the relay's chain on that queue. It holds every event
 * of the route with a position in (`after`, `upTo`], in order (none, for a watermark: the relay went past
 * `upTo` with nothing for this route). `after` is the `upTo` of the job the same relay run enqueued before on
 * this queue, or the run's start for its first one. So once a consumer has applied a chunk (one job at a time,
 * in order), every event of its route up to `upTo` is applied; and a consumer whose checkpoint is below
 * `after` knows that a job before this one was lost (see `ProjectionPipeline.relayOnce`).
 */
interface ChunkJob {
  after: number;
  upTo: number;
  events: RecordedEvent[];
}
/** Jobs enqueued by an older version: one event, or a watermark; without `after`, handled as they were. */
type LegacyJob = RecordedEvent | { watermark: number };
type ProjectionJob = ChunkJob | LegacyJob;

function chunkOf(job: ProjectionJob): { after?: number; upTo: number; events: readonly RecordedEvent[] } {
  if ('events' in job) return job;
  if ('watermark' in job) return { upTo: job.watermark, events: [] };
  return { upTo: job.position, events: [job] };
}

/**
 * A route's lag in events. Caught up when nothing is queued for it and the relay is at the head (its
 * checkpoint moves on its own events and on watermarks, so it may trail a little then). With jobs queued
 * (chunks of up to RELAY_BATCH events), the events after its checkpoint: an upper bound.
 */
function lagOf(head: number, checkpoint: number, relayed: number, backlog: number): number {
  return backlog > 0 ? Math.max(0, head - checkpoint) : Math.max(0, head - relayed);
}

/** Events a relay batch takes at most (what the store has at hand in one turn of the event loop). */
const RELAY_BATCH = 500;

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

async function applyEventAsync(readModels: Pick<ReadModelStore, 'get' | 'put'>, projection: Projection, event: RecordedEvent): Promise<void> {
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
function applyEventNow(
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
 * handles it (at least once), in chunks: one job per queue for what the store had at hand (see ChunkJob), so a
 * catch-up costs a job per few hundred events and live traffic a job per event. workers: apply each
 * projection's queue in order and move its checkpoint. Both can run in
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
  /** Why the relay stopped for good here (the event store refused it), shown in every status; null while it runs. */
  private relayRefused: string | null = null;
  /** The event the relay could not read (a damaged store): reported by health, refused at start. */
  private unreadable: UnreadableEventError | null = null;
  private rebuildTimer: NodeJS.Timeout | null = null;
  /** The relay's queue epoch (in its job ids): renewed whenever queued jobs may have been lost. */
  private epoch = newEpoch();
  /** Per projection: the position of the event its consumer is applying (what it stopped on, if it fails). */
  private readonly applying = new Map<string, number>();
  /** Restarts the current relay run, while the relay runs in this process. */
  private resync: (() => void) | null = null;
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
        this.queue.consume<ProjectionJob>(queueName(projection.name), (job, signal) => lock.run(() => this.handle(projection, job, signal)), {
          ...this.options.consumer,
          onOwned: async () => {
            // Another replica may have switched this projection to a new version while it owned it.
            if (this.readModels instanceof VersionedReadModelStore) await this.readModels.refresh();
            await this.readModels.setCheckpoint(stoppedKey(projection.name), 0);
          },
          onStopped: ({ jobId }) => {
            this.logger.error(`Projection ${projection.name} stopped on job ${jobId}`);
            const position = this.applying.get(projection.name) ?? (Number(jobId.slice(jobId.lastIndexOf(':') + 1)) || 1);
            void this.readModels.setCheckpoint(stoppedKey(projection.name), position).catch(() => undefined);
          },
        }),
      );
    }
    for (const reactor of this.reactors) {
      this.reactorConsumers.set(
        reactor.name,
        this.queue.consume<ProjectionJob>(reactorQueueName(reactor.name), (job, signal) => this.handleReactor(reactor, job, signal), {
          ...this.options.consumer,
          onStopped: ({ jobId }) => this.logger.error(`Reactor ${reactor.name} stopped on job ${jobId}`),
        }),
      );
    }
    this.relayRun = this.queue.runExclusive(RELAY_DUTY, (signal) => this.relay(signal), {
      retryMs: this.options.relayRetryMs,
      onError: (err) => {
        if (err instanceof UnreadableEventError) this.unreadable = err;
        this.logger.error(`Relay stopped: ${(err as Error).message}; restarting`);
      },
    });
    if (this.options.rebuildPollMs > 0 && this.readModels instanceof VersionedReadModelStore) {
      this.rebuildTimer = setInterval(() => void this.pickUpRebuildRequests(), this.options.rebuildPollMs);
      this.rebuildTimer.unref();
    }
  }

  /**
   * A projection's job: applies its events past the checkpoint in order, moving the checkpoint after each
   * (as durable as the documents: a crash replays at most the event in flight), then to the chunk's end.
   * When the consumer closes or loses the queue meanwhile, it stops between two events: the job goes back to
   * the head of the queue, and whoever handles it next skips what is applied.
   */
  private async handle(projection: Projection, { id, payload }: Job<ProjectionJob>, signal: AbortSignal): Promise<void> {
    const name = projection.name;
    const job = chunkOf(payload);
    const store = this.readModels;
    // Without an await per event where the store is in this process (checkpoints included).
    const sync = syncDocsOf(store);
    let checkpoint = sync ? sync.getCheckpointNow(name) : await store.getCheckpoint(name);
    if (job.upTo <= checkpoint) return;
    if (job.after !== undefined && job.after > checkpoint) return this.dropAfterGap(name, id, job.after, checkpoint);
    for (const event of job.events) {
      if (event.position <= checkpoint) continue;
      if (signal.aborted) throw new Error(`Projection ${name} interrupted at ${event.position}`);
      this.applying.set(name, event.position);
      if (sync) {
        const pending = applyEventNow(sync, store, projection, event);
        if (pending) await pending;
        if (event.position < job.upTo) sync.setCheckpointNow(name, event.position);
      } else {
        await applyEventAsync(store, projection, event);
        if (event.position < job.upTo) await store.setCheckpoint(name, event.position);
      }
      checkpoint = event.position;
    }
    if (sync) sync.setCheckpointNow(name, job.upTo);
    else await store.setCheckpoint(name, job.upTo);
    this.applying.delete(name);
    this.progress.emit('checkpoint', name, job.upTo);
  }

  /** A reactor's job: react once per event past its checkpoint, moving the checkpoint after each. */
  private async handleReactor(reactor: Reactor, { id, payload }: Job<ProjectionJob>, signal: AbortSignal): Promise<void> {
    const key = reactorCheckpoint(reactor.name);
    const job = chunkOf(payload);
    const checkpoint = await this.readModels.getCheckpoint(key);
    if (job.upTo <= checkpoint) return;
    if (job.after !== undefined && job.after > checkpoint) return this.dropAfterGap(key, id, job.after, checkpoint);
    for (const event of job.events) {
      if (event.position <= checkpoint) continue;
      if (signal.aborted) throw new Error(`Reactor ${reactor.name} interrupted at ${event.position}`);
      await reactor.react(event, { store: this.store, readModels: this.readModels });
      if (event.position < job.upTo) await this.readModels.setCheckpoint(key, event.position);
    }
    await this.readModels.setCheckpoint(key, job.upTo);
  }

  /**
   * A job whose predecessor in its relay run never reached the consumer (the queue lost it): applying it would
   * skip that predecessor, so it is dropped and the checkpoint stays. A relay run started after the loss
   * re-enqueues everything after the checkpoint. Such a run starts when the queue reconnects; if the job comes
   * from this process's current relay run (a loss the connection did not notice), that run is restarted here.
   */
  private dropAfterGap(checkpointName: string, jobId: string, after: number, checkpoint: number): void {
    this.logger.warn(`${checkpointName}: job ${jobId} dropped: the jobs between ${checkpoint} and ${after} were lost; they are enqueued again`);
    if (jobId.includes(`:${this.epoch}:`)) this.resync?.();
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
      const restart = (reason: string) => {
        if (run.signal.aborted) return;
        this.logger.warn(`${reason}: restarting the relay from the lowest checkpoint (queued jobs may be lost)`);
        // Jobs enqueued from now on belong to a new epoch: their ids differ from any stale job still around.
        this.epoch = newEpoch();
        run.abort();
      };
      const stop = () => run.abort();
      signal.addEventListener('abort', stop);
      const off = this.queue.onReconnect(() => restart('Queue reconnected'));
      this.resync = () => restart('A consumer found lost jobs');
      try {
        await this.relayOnce(run.signal);
      } catch (err) {
        if (!(err instanceof EventStoreRefusedError)) throw err;
        // Retrying cannot help (the credentials lack the rights): the relay stops, and says so in every status,
        // rather than subscribe again and again. It tries again only when it runs anew (a restart, a new lease).
        this.relayRefused = err.reason;
        this.logger.error(`Relay stopped: ${err.reason}`);
        await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
        return;
      } finally {
        run.abort();
        this.resync = null;
        off();
        signal.removeEventListener('abort', stop);
      }
      this.relayRefused = null;
    }
  }

  /**
   * One relay run: from `relayStart()` until aborted. It takes the events the store has at hand (up to
   * RELAY_BATCH; one event when they come one at a time) and enqueues one chunk per route that handles some of
   * them, then moves the relay checkpoint.
   *
   * Why a Redis restart cannot make a projection skip an event. The queue may lose jobs (Redis without
   * persistence), and jobs of an older run may still arrive afterwards: an `add` that was waiting for the
   * connection during the outage is sent to the new, empty Redis when it comes back (before this run ends and
   * the next one starts), and so may a watermark. Such a job can be ahead of the events the next run
   * re-enqueues, with the lost ones missing before it; applied, it would move the checkpoint past them for
   * good (the next runs start at the minimum checkpoint). Hence:
   * - Each job carries `after`, its predecessor in this run's chain on its queue (see ChunkJob), and a consumer
   *   moves its checkpoint only along an unbroken chain: a job whose `after` is above the checkpoint is
   *   dropped. Every new run starts at or below every checkpoint, so its chain continues from wherever the
   *   consumer stands, whatever stale jobs come before, between or after its own.
   * - Job ids carry the relay's epoch, renewed on every reconnect (and on a local resync), so a dropped stale
   *   job never deduplicates away the same chunk re-enqueued after the loss. Within an epoch nothing is lost,
   *   so deduplication across runs (a relay restarted after an error) still applies.
   * - The adds of a run to one queue (chunks and the timer's watermarks alike) are made one after the other,
   *   so each queue receives the run's jobs in the order their `after` links were made; the run waits for its
   *   adds and its timer before it returns, so nothing of an aborted run is enqueued after the next one started.
   */
  private async relayOnce(signal: AbortSignal): Promise<void> {
    const from = await this.relayStart();
    let relayed = from;
    /** Per route (projection or reactor queue): the `upTo` of the last job of this run. */
    const routed = new Map(this.routes.map((r) => [r.queue, from]));
    const epoch = this.epoch;
    /** Per queue: the last add of this run (settled or not). */
    const adding = new Map<string, Promise<void>>();
    /** Enqueues the chunk of `route` up to `upTo`, after every earlier add of this run to that queue. */
    const enqueue = (route: Route, upTo: number, events: RecordedEvent[]): Promise<void> => {
      const job: Job<ChunkJob> = { id: `${route.jobPrefix}:${epoch}:${upTo}`, payload: { after: routed.get(route.queue)!, upTo, events } };
      routed.set(route.queue, upTo);
      const previous = adding.get(route.queue) ?? Promise.resolve();
      const added = previous.then(() => this.queue.add(route.queue, [job]));
      adding.set(route.queue, added.catch(() => undefined));
      return added;
    };
    let lastEventAt = Date.now();
    let watermarking: Promise<void> | null = null;
    const sendWatermarks = async () => {
      const upTo = relayed;
      const sends: Promise<void>[] = [];
      for (const route of this.routes) {
        if (signal.aborted) break;
        if (routed.get(route.queue)! < upTo) sends.push(enqueue(route, upTo, []));
      }
      await Promise.all(sends);
    };
    // Watermarks go out once the relay has been quiet for watermarkMs (and at least that often while busy).
    const timer = setInterval(() => {
      if (signal.aborted || watermarking || Date.now() - lastEventAt < this.options.watermarkMs) return;
      watermarking = sendWatermarks()
        .catch((err) => this.logger.warn(`Watermarks not sent: ${(err as Error).message}`))
        .finally(() => (watermarking = null));
    }, this.options.watermarkMs);
    timer.unref();
    let lastWatermarkAt = Date.now();
    const batches = this.store.subscribe({ from, signal })[Symbol.asyncIterator]();
    let next = batches.next();
    try {
      for (;;) {
        const first = await next;
        if (first.done) break;
        const batch = [first.value];
        next = batches.next();
        // Whatever else the store yields before the next turn of the event loop joins this batch.
        const turn = new Promise<typeof TURN>((resolve) => setImmediate(resolve, TURN));
        let ended = false;
        while (batch.length < RELAY_BATCH) {
          const more = await Promise.race([next, turn]);
          if (more === TURN) break;
          if (more.done) {
            ended = true;
            break;
          }
          batch.push(more.value);
          next = batches.next();
        }
        const upTo = batch[batch.length - 1].position;
        const sends: Promise<void>[] = [];
        for (const route of this.routes) {
          const events = batch.filter((event) => route.types.has(event.type));
          if (events.length > 0) sends.push(enqueue(route, upTo, events));
        }
        await Promise.all(sends);
        await this.readModels.setCheckpoint(RELAY_CHECKPOINT, upTo);
        relayed = upTo;
        lastEventAt = Date.now();
        if (lastEventAt - lastWatermarkAt >= this.options.watermarkMs * 5 && !watermarking) {
          lastWatermarkAt = lastEventAt;
          await sendWatermarks();
        }
        if (ended) break;
        // A full batch: let I/O (requests, timers) in before the next one.
        if (batch.length >= RELAY_BATCH) await new Promise((resolve) => setImmediate(resolve));
      }
    } catch (err) {
      if (!signal.aborted) throw err;
    } finally {
      clearInterval(timer);
      await watermarking;
      await Promise.all(adding.values());
      // A read may still be pending (the loop ended on an error): it ends with the run's signal, unobserved.
      next.catch(() => undefined);
      void batches.return?.(undefined)?.catch(() => undefined);
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
      // Retrying cannot get past a damaged event: refuse (the message names the file, position and repair).
      if (this.unreadable) throw this.unreadable;
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** The event the relay stopped on because it cannot be read, if any. */
  unreadableEvent(): UnreadableEventError | null {
    return this.unreadable;
  }

  async status(): Promise<ProjectionStatus[]> {
    const head = await this.store.headPosition();
    return Promise.all(
      this.projections.map(async (p) => {
        const checkpoint = await this.readModels.getCheckpoint(p.name);
        const consumer = this.consumers.get(p.name)?.status();
        const backlog = await this.queue.backlog(queueName(p.name));
        const relayed = await this.readModels.getCheckpoint(RELAY_CHECKPOINT);
        return {
          name: p.name,
          checkpoint,
          head,
          lag: lagOf(head, checkpoint, relayed, backlog),
          ...this.stateOf(consumer),
        } satisfies ProjectionStatus;
      }),
    );
  }

  /** A consumer's state and error for a status; every one here is stopped while the relay is (nothing reaches it). */
  private stateOf(consumer: ReturnType<Consumer['status']> | undefined): Pick<ProjectionStatus, 'state' | 'error'> {
    if (!consumer) return { state: 'not running here' };
    if (this.relayRefused !== null) return { state: 'stopped', error: `The relay stopped: ${this.relayRefused}` };
    return consumer.state === 'stopped' ? { state: 'stopped', error: `${consumer.error} (job ${consumer.jobId})` } : { state: consumer.state };
  }

  /** The reactors' checkpoints, lag and consumer state, in the shape of a projection's status. */
  async reactorStatus(): Promise<ProjectionStatus[]> {
    const head = await this.store.headPosition();
    const relayed = await this.readModels.getCheckpoint(RELAY_CHECKPOINT);
    return Promise.all(
      this.reactors.map(async (r) => {
        const consumer = this.reactorConsumers.get(r.name)?.status();
        const backlog = await this.queue.backlog(reactorQueueName(r.name));
        const checkpoint = await this.readModels.getCheckpoint(reactorCheckpoint(r.name));
        return {
          name: reactorQueueName(r.name),
          checkpoint,
          head,
          lag: lagOf(head, checkpoint, relayed, backlog),
          ...this.stateOf(consumer),
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
    // A leftover of an interrupted attempt at this version is dropped; the build starts from nothing, with the
    // collection options and indexes of the active version.
    await versioned.prepareVersion(name, version);
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
