/**
 * The queue port between the relay and the projectors/reactors. Two adapters (in-process and BullMQ) pass
 * `queue.conformance.ts`.
 *
 * Contract:
 * - At-least-once delivery; a job id given twice is enqueued once while the first is still known.
 * - Jobs of one queue are handled one at a time, in the order they were added.
 * - A failing handler is retried in place (the next job waits) with backoff, up to `maxAttempts`; after that
 *   the consumer stops and reports the failure through `status()`. It never skips a job.
 */

export interface Job<T = unknown> {
  id: string;
  payload: T;
}

export interface ConsumerOptions {
  maxAttempts?: number;
  /** First retry delay in ms; doubles each attempt. */
  backoffMs?: number;
}

export type ConsumerState =
  | { state: 'running'; processed: number }
  | { state: 'stopped'; processed: number; error: string; jobId: string };

export interface Consumer {
  status(): ConsumerState;
  close(): Promise<void>;
}

export interface JobQueue {
  add<T>(queue: string, jobs: readonly Job<T>[]): Promise<void>;
  consume<T>(queue: string, handler: (job: Job<T>) => Promise<void>, options?: ConsumerOptions): Consumer;
  /** Jobs waiting (not yet completed) in a queue. */
  backlog(queue: string): Promise<number>;
  close(): Promise<void>;
}

/** Nest injection token of the JobQueue. */
export const JOB_QUEUE = 'JobQueue';
