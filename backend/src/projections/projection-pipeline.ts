import { EventEmitter } from 'node:events';
import { Logger } from '@nestjs/common';
import type { EventStore, RecordedEvent } from '../event-store/event-store.port';
import type { Consumer, JobQueue } from '../queue/queue.port';
import type { ReadModelStore } from '../read-models/read-model-store.port';
import { eventTypesOf, Lookup, Projection } from './projector';

const RELAY_CHECKPOINT = '$relay';
const queueName = (projection: string) => `projection.${projection}`;

/** Applies one event to every projector of a projection that handles it; the position guard makes it idempotent. */
export async function applyEvent(readModels: ReadModelStore, projection: Projection, event: RecordedEvent): Promise<void> {
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
  state: 'running' | 'stopped' | 'not running here';
  error?: string;
}

/**
 * relay: subscribes to the event store from its checkpoint and puts each event on the queue of every
 * projection that handles it (at least once). workers: apply each projection's queue in order and move its
 * checkpoint. Both can run in one process (embedded) or in the worker process (production).
 */
export class ProjectionPipeline {
  private readonly logger = new Logger('Projections');
  private readonly progress = new EventEmitter();
  private readonly consumers = new Map<string, Consumer>();
  private readonly abort = new AbortController();
  private relayDone: Promise<void> | null = null;
  private readonly typesByProjection: Map<string, Set<string>>;

  constructor(
    private readonly store: EventStore,
    private readonly readModels: ReadModelStore,
    private readonly queue: JobQueue,
    readonly projections: readonly Projection[],
  ) {
    this.progress.setMaxListeners(0);
    this.typesByProjection = new Map(projections.map((p) => [p.name, eventTypesOf(p)]));
  }

  async start(): Promise<void> {
    for (const projection of this.projections) {
      for (const projector of projection.projectors) {
        for (const field of projector.indexes ?? []) await this.readModels.ensureIndex(projector.collection, field);
      }
      this.consumers.set(
        projection.name,
        this.queue.consume<RecordedEvent>(queueName(projection.name), async ({ payload: event }) => {
          if (event.position <= (await this.readModels.getCheckpoint(projection.name))) return;
          await applyEvent(this.readModels, projection, event);
          await this.readModels.setCheckpoint(projection.name, event.position);
          this.progress.emit('checkpoint', projection.name, event.position);
        }),
      );
    }
    this.relayDone = this.relay();
  }

  private async relay(): Promise<void> {
    const from = await this.readModels.getCheckpoint(RELAY_CHECKPOINT);
    try {
      for await (const event of this.store.subscribe({ from, signal: this.abort.signal })) {
        for (const projection of this.projections) {
          if (this.typesByProjection.get(projection.name)!.has(event.type)) {
            await this.queue.add(queueName(projection.name), [{ id: `${projection.name}:${event.position}`, payload: event }]);
          }
        }
        await this.readModels.setCheckpoint(RELAY_CHECKPOINT, event.position);
      }
    } catch (err) {
      if (!this.abort.signal.aborted) {
        this.logger.error(`Relay stopped: ${(err as Error).message}`);
        throw err;
      }
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

  async stop(): Promise<void> {
    this.abort.abort();
    await this.relayDone?.catch(() => undefined);
    await Promise.all([...this.consumers.values()].map((c) => c.close()));
  }
}
