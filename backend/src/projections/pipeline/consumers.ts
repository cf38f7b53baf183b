import type { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { setImmediate as turn } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import type { EventStore } from '../../event-store/event-store.port';
import type { Consumer, ConsumerOptions, Job, JobQueue } from '../../queue/queue.port';
import { syncDocsOf } from '../../read-models/in-memory-read-model-store';
import type { ReadModelStore } from '../../read-models/read-model-store.port';
import { stoppedKey } from '../../read-models/versioned-read-model-store';
import type { Projection } from '../projector';
import { applyEventAsync, applyEventNow } from './applier';
import { chunkOf, Mutex, type ProjectionJob, queueName, reactorCheckpoint, reactorQueueName, RELAY_RESYNC } from './jobs';
import type { Reactor } from './reactor';
import { isStoreOutage } from './outage';

/**
 * How long a projection's job applies events before it lets the event loop turn (ms), as the start-up catch-up
 * does: a job of costly events (an import of thousands of ratings by a member of many groups) then delays other
 * requests by this much at most, instead of holding them (and tripping the load shedder) until the job is done.
 */
export const JOB_TURN_MS = 50;

export interface ConsumersDeps {
  store: EventStore;
  readModels: ReadModelStore;
  queue: JobQueue;
  /** Emits `checkpoint (name, position)` whenever a projection's checkpoint moved. */
  progress: EventEmitter;
  consumer?: Pick<ConsumerOptions, 'maxAttempts' | 'backoffMs'>;
  /** A job's predecessor never arrived (the queue lost it): the relay re-enqueues (see Relay.resyncIfCurrent). */
  onLostJobs: (jobId: string) => void;
  /** Before this process works on a projection's queue (another replica may have changed it meanwhile). */
  onOwned: (projection: Projection) => Promise<void>;
}

/**
 * The consumers: each projection's and each reactor's queue applied in order, one job at a time, moving its
 * checkpoint. Where the queue makes consumers exclusive across replicas, a replica works on the queues it holds
 * the lease of.
 */
export class PipelineConsumers {
  private readonly logger = new Logger('Projections');
  private readonly outageLoggedAt = new Map<string, number>();
  private readonly projectionConsumers = new Map<string, Consumer>();
  private readonly reactorConsumers = new Map<string, Consumer>();
  private readonly locks = new Map<string, Mutex>();
  /** Per projection: the position of the event its consumer is applying (what it stopped on, if it fails). */
  private readonly applying = new Map<string, number>();

  constructor(private readonly deps: ConsumersDeps) {}

  start(projections: readonly Projection[], reactors: readonly Reactor[]): void {
    const { queue, readModels } = this.deps;
    for (const projection of projections) {
      const lock = new Mutex();
      this.locks.set(projection.name, lock);
      this.projectionConsumers.set(
        projection.name,
        queue.consume<ProjectionJob>(queueName(projection.name), (job, signal) => lock.run(() => this.handle(projection, job, signal)), {
          ...this.deps.consumer,
          isOutage: (err) => this.isOutage(`Projection ${projection.name}`, err),
          onOwned: async () => {
            await this.deps.onOwned(projection);
            await readModels.setCheckpoint(stoppedKey(projection.name), 0);
          },
          onStopped: ({ jobId, error }) => {
            this.logger.error(`Projection ${projection.name} stopped on job ${jobId}: ${error}`);
            const position = this.applying.get(projection.name) ?? (Number(jobId.slice(jobId.lastIndexOf(':') + 1)) || 1);
            void readModels.setCheckpoint(stoppedKey(projection.name), position).catch(() => undefined);
          },
        }),
      );
    }
    for (const reactor of reactors) {
      this.reactorConsumers.set(
        reactor.name,
        queue.consume<ProjectionJob>(reactorQueueName(reactor.name), (job, signal) => this.handleReactor(reactor, job, signal), {
          ...this.deps.consumer,
          isOutage: (err) => this.isOutage(`Reactor ${reactor.name}`, err, reactor.isTransient?.bind(reactor)),
          onStopped: ({ jobId, error }) => this.logger.error(`Reactor ${reactor.name} stopped on job ${jobId}: ${error}`),
        }),
      );
    }
  }

  /** The projection's mutex: held per job, and by a rebuild while it switches versions. */
  lock(projection: string): Mutex {
    return this.locks.get(projection)!;
  }

  projection(name: string): Consumer | undefined {
    return this.projectionConsumers.get(name);
  }

  reactor(name: string): Consumer | undefined {
    return this.reactorConsumers.get(name);
  }

  /** Whether this process works on the projection's queue now. */
  owns(projection: string): boolean {
    return this.projectionConsumers.get(projection)?.status().state === 'running';
  }

  /**
   * A store outage (isStoreOutage), or what a reactor says is the outside world down for a while, is waited for;
   * logged once a minute per consumer, not at every try.
   */
  private isOutage(consumer: string, err: unknown, isTransient?: (err: unknown) => boolean): boolean {
    if (!isStoreOutage(err) && !isTransient?.(err)) return false;
    const now = Date.now();
    if (now - (this.outageLoggedAt.get(consumer) ?? 0) >= 60_000) {
      this.outageLoggedAt.set(consumer, now);
      this.logger.warn(`${consumer} waits for an outage to pass, trying again: ${err instanceof Error ? err.message : String(err)}`);
    }
    return true;
  }

  /** The name of a projection whose consumer stopped, if any. */
  stoppedProjection(): string | undefined {
    return [...this.projectionConsumers].find(([, c]) => c.status().state === 'stopped')?.[0];
  }

  async close(): Promise<void> {
    await Promise.all([...this.projectionConsumers.values(), ...this.reactorConsumers.values()].map((c) => c.close()));
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
    const store = this.deps.readModels;
    // Without an await per event where the store is in this process (checkpoints included).
    const sync = syncDocsOf(store);
    let checkpoint = sync ? sync.getCheckpointNow(name) : await store.getCheckpoint(name);
    if (job.upTo <= checkpoint) return;
    if (job.after !== undefined && job.after > checkpoint) return this.dropAfterGap(name, id, job.after, checkpoint);
    let turnedAt = performance.now();
    for (const event of job.events) {
      if (event.position <= checkpoint) continue;
      if (performance.now() - turnedAt >= JOB_TURN_MS) {
        await turn();
        turnedAt = performance.now();
      }
      if (signal.aborted) throw new Error(`Projection ${name} interrupted at ${event.position}`);
      this.applying.set(name, event.position);
      if (sync) {
        const pending = applyEventNow(sync, projection, event);
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
    this.deps.progress.emit('checkpoint', name, job.upTo);
  }

  /** A reactor's job: react once per event past its checkpoint, moving the checkpoint after each. */
  private async handleReactor(reactor: Reactor, { id, payload }: Job<ProjectionJob>, signal: AbortSignal): Promise<void> {
    const { store, readModels } = this.deps;
    const key = reactorCheckpoint(reactor.name);
    const job = chunkOf(payload);
    const checkpoint = await readModels.getCheckpoint(key);
    if (job.upTo <= checkpoint) return;
    if (job.after !== undefined && job.after > checkpoint) return this.dropAfterGap(key, id, job.after, checkpoint);
    for (const event of job.events) {
      if (event.position <= checkpoint) continue;
      if (signal.aborted) throw new Error(`Reactor ${reactor.name} interrupted at ${event.position}`);
      await reactor.react(event, { store, readModels });
      if (event.position < job.upTo) await readModels.setCheckpoint(key, event.position);
    }
    await readModels.setCheckpoint(key, job.upTo);
  }

  /**
   * A job whose predecessor in its relay run never reached the consumer (the queue lost it): applying it would
   * skip that predecessor, so it is dropped and the checkpoint stays. A relay run started after the loss
   * re-enqueues everything after the checkpoint. Such a run starts when the queue reconnects; if the job comes
   * from this process's current relay run (a loss the connection did not notice), that run is restarted, and a
   * relay in another replica restarts on the request written to the store (RELAY_RESYNC).
   */
  private dropAfterGap(checkpointName: string, jobId: string, after: number, checkpoint: number): void {
    this.logger.warn(`${checkpointName}: job ${jobId} dropped: the jobs between ${checkpoint} and ${after} were lost; they are enqueued again`);
    this.deps.onLostJobs(jobId);
    // The relay may run in another worker replica, whose connection saw no loss: ask it through the shared store.
    void this.deps.readModels.setCheckpoint(RELAY_RESYNC, Date.now()).catch(() => undefined);
  }
}
