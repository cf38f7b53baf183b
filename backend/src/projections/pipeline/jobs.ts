import { randomBytes } from 'node:crypto';
import type { RecordedEvent } from '../../event-store/event-store.port';

/*
 * The vocabulary the relay and the consumers share: queue and checkpoint names, the jobs on the queues, and how
 * far behind a route is.
 */

export const RELAY_CHECKPOINT = '$relay';
/**
 * Where a consumer asks the relay, wherever it runs, to start its run again (it found jobs lost): the time it asked,
 * in ms. The relay restarts when the value changes.
 */
export const RELAY_RESYNC = '$relay-resync';
/** The name of the relay's exclusive duty (one relay across every worker replica). */
export const RELAY_DUTY = 'relay';
export const queueName = (projection: string) => `projection.${projection}`;
/** A reactor's queue, and the name of its checkpoint (next to the projections' checkpoints). */
export const reactorQueueName = (reactor: string) => `reactor.${reactor}`;
export const reactorCheckpoint = (reactor: string) => `reactor.${reactor}`;

/** A destination of the relay: a projection's or a reactor's queue. */
export interface Route {
  queue: string;
  /** Where the consumer keeps its position (a projection's name, or `reactor.<name>`). */
  checkpoint: string;
  /** Job ids are `<prefix>:<epoch>:<upTo>` (see ChunkJob). */
  jobPrefix: string;
  types: ReadonlySet<string>;
}

export const newEpoch = () => randomBytes(4).toString('hex');

/**
 * A job of a projection's or reactor's queue: a chunk of the relay's chain on that queue. It holds every event
 * of the route with a position in (`after`, `upTo`], in order (none, for a watermark: the relay went past
 * `upTo` with nothing for this route). `after` is the `upTo` of the job the same relay run enqueued before on
 * this queue, or the run's start for its first one. So once a consumer has applied a chunk (one job at a time,
 * in order), every event of its route up to `upTo` is applied; and a consumer whose checkpoint is below
 * `after` knows that a job before this one was lost (see `Relay.relayOnce`).
 */
export interface ChunkJob {
  after: number;
  upTo: number;
  events: RecordedEvent[];
}
/** Jobs enqueued by an older version: one event, or a watermark; without `after`, handled as they were. */
type LegacyJob = RecordedEvent | { watermark: number };
export type ProjectionJob = ChunkJob | LegacyJob;

export function chunkOf(job: ProjectionJob): { after?: number; upTo: number; events: readonly RecordedEvent[] } {
  if ('events' in job) return job;
  if ('watermark' in job) return { upTo: job.watermark, events: [] };
  return { upTo: job.position, events: [job] };
}

/**
 * A route's lag in events. Caught up when nothing is queued for it and the relay is at the head (its
 * checkpoint moves on its own events and on watermarks, so it may trail a little then). With jobs queued
 * (chunks of up to RELAY_BATCH events), the events after its checkpoint: an upper bound.
 */
export function lagOf(head: number, checkpoint: number, relayed: number, backlog: number): number {
  return backlog > 0 ? Math.max(0, head - checkpoint) : Math.max(0, head - relayed);
}

/** A FIFO mutex: the consumer holds it per job, a rebuild holds it while switching (between two jobs). */
export class Mutex {
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
