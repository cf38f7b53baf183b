import type { EventStore } from '../../event-store/event-store.port';
import type { Consumer, JobQueue } from '../../queue/queue.port';
import type { ReadModelStore } from '../../read-models/read-model-store.port';
import { lagOf, RELAY_CHECKPOINT } from './jobs';

export interface ProjectionStatus {
  name: string;
  checkpoint: number;
  head: number;
  lag: number;
  /** standby: another worker replica owns this projection's queue. */
  state: 'running' | 'standby' | 'stopped' | 'not running here';
  error?: string;
}

/** What the status of one route (a projection's or a reactor's queue) is read from. */
export interface RouteUnderWatch {
  name: string;
  queue: string;
  checkpoint: string;
  consumer: Consumer | undefined;
}

/** Checkpoint, lag and consumer state of each route, as `projections status` and the health details show them. */
export async function routeStatus(
  deps: { store: EventStore; readModels: ReadModelStore; queue: JobQueue },
  routes: readonly RouteUnderWatch[],
  /** Why the relay stopped for good, if it did: then every consumer here is stopped too (nothing reaches it). */
  relayRefused: string | null,
): Promise<ProjectionStatus[]> {
  const head = await deps.store.headPosition();
  const relayed = await deps.readModels.getCheckpoint(RELAY_CHECKPOINT);
  return Promise.all(
    routes.map(async (route) => {
      const consumer = route.consumer?.status();
      const backlog = await deps.queue.backlog(route.queue);
      const checkpoint = await deps.readModels.getCheckpoint(route.checkpoint);
      return {
        name: route.name,
        checkpoint,
        head,
        lag: lagOf(head, checkpoint, relayed, backlog),
        ...stateOf(consumer, relayRefused),
      } satisfies ProjectionStatus;
    }),
  );
}

/** A consumer's state and error for a status. */
function stateOf(consumer: ReturnType<Consumer['status']> | undefined, relayRefused: string | null): Pick<ProjectionStatus, 'state' | 'error'> {
  if (!consumer) return { state: 'not running here' };
  if (relayRefused !== null) return { state: 'stopped', error: `The relay stopped: ${relayRefused}` };
  if (consumer.state === 'stopped') return { state: 'stopped', error: `${consumer.error} (job ${consumer.jobId})` };
  if (consumer.state === 'running' && consumer.outage) return { state: 'running', error: `Waiting for an outage to pass, trying again: ${consumer.outage}` };
  return { state: consumer.state };
}
