import { EventEmitter } from 'node:events';
import type { EventStore, UnreadableEventError } from '../event-store/event-store.port';
import type { ConsumerOptions, JobQueue } from '../queue/queue.port';
import type { ReadModelStore } from '../read-models/read-model-store.port';
import { versionsOf } from '../read-models/versioned-read-model-store';
import { type CatchUpProgress, catchUpAtStart } from './pipeline/catch-up';
import { CheckpointWaiter } from './pipeline/checkpoint-waiter';
import { PipelineConsumers } from './pipeline/consumers';
import { queueName, reactorCheckpoint, reactorQueueName, RELAY_CHECKPOINT, type Route } from './pipeline/jobs';
import type { Reactor } from './pipeline/reactor';
import { type RebuildProgress, Rebuilder } from './pipeline/rebuild';
import { Relay } from './pipeline/relay';
import { type ProjectionStatus, routeStatus } from './pipeline/status';
import { eventTypesOf, type Projection } from './projector';
import type { ReadYourWrites } from './read-your-writes';

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

/**
 * The read side, assembled: the relay (pipeline/relay.ts) puts each event on the queue of every projection and
 * reactor that handles it; the consumers (pipeline/consumers.ts) apply each queue in order (pipeline/applier.ts)
 * and move its checkpoint; the rebuilder (pipeline/rebuild.ts) builds a projection anew while the active version
 * serves; status and read-your-writes (pipeline/status.ts, pipeline/checkpoint-waiter.ts) read the checkpoints.
 * Everything can run in one process (embedded) or in worker processes (production), where the queue makes each
 * consumer and the relay exclusive across replicas.
 */
export class ProjectionPipeline implements ReadYourWrites {
  readonly reactors: readonly Reactor[];
  private readonly progress = new EventEmitter();
  private readonly consumers: PipelineConsumers;
  private readonly relay: Relay;
  private readonly rebuilder: Rebuilder;
  private readonly waiter: CheckpointWaiter;
  private readonly typesByProjection: ReadonlyMap<string, ReadonlySet<string>>;

  constructor(
    private readonly store: EventStore,
    private readonly readModels: ReadModelStore,
    private readonly queue: JobQueue,
    readonly projections: readonly Projection[],
    options: PipelineOptions = {},
  ) {
    this.progress.setMaxListeners(0);
    const settings = { watermarkMs: 200, rebuildPollMs: 1000, dropOldVersionAfterMs: 30_000, relayRetryMs: 1000, reactors: [], ...options };
    this.reactors = settings.reactors;
    const names = new Set<string>();
    for (const reactor of this.reactors) {
      if (names.has(reactor.name)) throw new Error(`Two reactors named ${reactor.name}`);
      names.add(reactor.name);
    }
    const typesByProjection = new Map(projections.map((p) => [p.name, eventTypesOf(p)]));
    this.typesByProjection = typesByProjection;
    const routes: Route[] = [
      ...projections.map((p) => ({ queue: queueName(p.name), checkpoint: p.name, jobPrefix: p.name, types: typesByProjection.get(p.name)! })),
      ...this.reactors.map((r) => ({
        queue: reactorQueueName(r.name),
        checkpoint: reactorCheckpoint(r.name),
        jobPrefix: reactorQueueName(r.name),
        types: new Set(r.eventTypes),
      })),
    ];
    this.relay = new Relay({ store, readModels, queue, routes, watermarkMs: settings.watermarkMs, relayRetryMs: settings.relayRetryMs });
    this.consumers = new PipelineConsumers({
      store,
      readModels,
      queue,
      progress: this.progress,
      consumer: settings.consumer,
      onLostJobs: (jobId) => this.relay.resyncIfCurrent(jobId),
      // Another replica may have switched a projection to a new version while it owned it; and the read models
      // may have been built by an older version of the projection's code.
      onOwned: async (projection) => {
        await versionsOf(readModels)?.refresh();
        await this.rebuilder.checkCodeVersion(projection);
      },
    });
    this.rebuilder = new Rebuilder({
      store,
      readModels,
      projections,
      typesByProjection,
      consumers: this.consumers,
      progress: this.progress,
      rebuildPollMs: settings.rebuildPollMs,
      dropOldVersionAfterMs: settings.dropOldVersionAfterMs,
    });
    this.waiter = new CheckpointWaiter(readModels, projections, typesByProjection, this.progress);
  }

  async start(): Promise<void> {
    await this.ensureIndexes();
    this.consumers.start(this.projections, this.reactors);
    this.relay.start();
    this.rebuilder.start();
  }

  /**
   * Brings every projection and reactor to the head straight from the event store, before `start` (see
   * pipeline/catch-up.ts): only where this process is the one pipeline (the embedded default).
   */
  async catchUpAtStart(onProgress?: (p: CatchUpProgress) => void): Promise<CatchUpProgress> {
    await this.ensureIndexes();
    return catchUpAtStart(
      { store: this.store, readModels: this.readModels, projections: this.projections, typesByProjection: this.typesByProjection, reactors: this.reactors },
      onProgress,
    );
  }

  private async ensureIndexes(): Promise<void> {
    for (const projection of this.projections) {
      for (const projector of projection.projectors) {
        for (const field of projector.indexes ?? []) await this.readModels.ensureIndex(projector.collection, field);
      }
    }
  }

  async stop(): Promise<void> {
    const rebuildsEnded = this.rebuilder.stop();
    await this.relay.close();
    await rebuildsEnded;
    await this.consumers.close();
  }

  /** Read-your-writes: see ReadYourWrites. */
  waitFor(position: number, options?: { eventTypes?: readonly string[]; timeoutMs?: number }): Promise<void> {
    return this.waiter.waitFor(position, options);
  }

  /** Where the relay (re)starts: the minimum of its own checkpoint and every projection's and reactor's. */
  relayStart(): Promise<number> {
    return this.relay.relayStart();
  }

  /** Resolves once the relay has passed the current head and every projection queue is empty. */
  async waitUntilCaughtUp(): Promise<void> {
    const head = await this.store.headPosition();
    for (;;) {
      const relayed = await this.readModels.getCheckpoint(RELAY_CHECKPOINT);
      const backlogs = await Promise.all(this.projections.map((p) => this.queue.backlog(queueName(p.name))));
      if (relayed >= head && backlogs.every((n) => n === 0)) return;
      const stopped = this.consumers.stoppedProjection();
      if (stopped) throw new Error(`Projection ${stopped} stopped while catching up`);
      // Retrying cannot get past a damaged event: refuse (the message names the file, position and repair).
      const unreadable = this.relay.unreadableEvent();
      if (unreadable) throw unreadable;
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** The event the relay stopped on because it cannot be read, if any. */
  unreadableEvent(): UnreadableEventError | null {
    return this.relay.unreadableEvent();
  }

  status(): Promise<ProjectionStatus[]> {
    return routeStatus(
      { store: this.store, readModels: this.readModels, queue: this.queue },
      this.projections.map((p) => ({ name: p.name, queue: queueName(p.name), checkpoint: p.name, consumer: this.consumers.projection(p.name) })),
      this.relay.refusedReason(),
    );
  }

  /** The reactors' checkpoints, lag and consumer state, in the shape of a projection's status. */
  reactorStatus(): Promise<ProjectionStatus[]> {
    return routeStatus(
      { store: this.store, readModels: this.readModels, queue: this.queue },
      this.reactors.map((r) => ({
        name: reactorQueueName(r.name),
        queue: reactorQueueName(r.name),
        checkpoint: reactorCheckpoint(r.name),
        consumer: this.consumers.reactor(r.name),
      })),
      this.relay.refusedReason(),
    );
  }

  /** Rebuilds a projection this process owns into a new version (see Rebuilder.rebuild). */
  rebuild(name: string, options: { version?: number; onProgress?: (p: RebuildProgress) => void } = {}): Promise<number> {
    return this.rebuilder.rebuild(name, options);
  }
}
