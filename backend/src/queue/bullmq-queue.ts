import { Job as BullJob, Queue, WaitingError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { Consumer, ConsumerOptions, ConsumerState, Job, JobQueue } from './queue.port';

/** What is stored in Redis: the caller's id travels in the data, since BullMQ restricts its own job ids. */
interface StoredJob {
  id: string;
  payload: unknown;
}

/**
 * BullMQ forbids integer-looking ids and ':' in custom job ids; a prefix and an escape make any id valid
 * while keeping it deterministic, so the dedup by job id still works.
 */
function bullJobId(id: string): string {
  return `j_${id.replace(/%/g, '%25').replace(/:/g, '%3A')}`;
}

/**
 * The production queue on Redis. Ordering needs more than BullMQ's defaults: its `attempts` re-queue a failed
 * job at the back, letting later jobs overtake it. So each queue has one Worker with concurrency 1, retries
 * happen inside the processor (the job keeps its place and its lock), and after `maxAttempts` the Worker is
 * paused and the job is moved back to the head of the wait list (not to the failed set): nothing is lost and
 * the next consumer of that queue (after a restart or a fix) processes it first.
 *
 * Dedup: the job id is BullMQ's jobId, so adding an id that is still waiting, active or delayed is a no-op.
 * Completed jobs are removed (Redis does not grow), after which the same id can be enqueued again, exactly
 * like the in-process queue; the read side's position guard makes such a redelivery harmless.
 *
 * Assumes one consumer per queue across all processes (two Workers on one queue would break the order).
 */
export class BullMqQueue implements JobQueue {
  /** Shared by the Queue objects (producers and counters); each Worker gets its own connections. */
  private readonly connection: Redis;
  private readonly queues = new Map<string, Queue>();
  private readonly consumers = new Set<BullMqConsumer>();

  constructor(
    private readonly redisUrl: string,
    private readonly prefix = 'joy',
  ) {
    this.connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
    this.connection.on('error', () => undefined); // reported through the failing calls instead
  }

  async add<T>(queue: string, jobs: readonly Job<T>[]): Promise<void> {
    if (jobs.length === 0) return;
    await this.queue(queue).addBulk(
      jobs.map((job) => ({
        name: queue,
        data: { id: job.id, payload: job.payload } satisfies StoredJob,
        opts: { jobId: bullJobId(job.id), removeOnComplete: true, removeOnFail: false },
      })),
    );
  }

  consume<T>(queue: string, handler: (job: Job<T>) => Promise<void>, options: ConsumerOptions = {}): Consumer {
    const consumer = new BullMqConsumer(
      queue,
      this.prefix,
      new Redis(this.redisUrl, { maxRetriesPerRequest: null }),
      handler as (job: Job) => Promise<void>,
      options,
      () => this.consumers.delete(consumer),
    );
    this.consumers.add(consumer);
    return consumer;
  }

  async backlog(queue: string): Promise<number> {
    return this.queue(queue).getJobCountByTypes('waiting', 'active', 'delayed');
  }

  /** Removes every key of a queue (tests, or dropping a projection queue). */
  async obliterate(queue: string): Promise<void> {
    await this.queue(queue).obliterate({ force: true });
  }

  async close(): Promise<void> {
    await Promise.all([...this.consumers].map((consumer) => consumer.close()));
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
    this.queues.clear();
    await this.connection.quit().catch(() => undefined);
  }

  private queue(name: string): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.connection, prefix: this.prefix });
      queue.on('error', () => undefined);
      this.queues.set(name, queue);
    }
    return queue;
  }
}

class BullMqConsumer implements Consumer {
  private readonly worker: Worker<StoredJob>;
  private readonly maxAttempts: number;
  private readonly backoffMs: number;
  private processed = 0;
  private failure: { error: string; jobId: string } | null = null;
  private closing: Promise<void> | null = null;
  private cancelBackoff: (() => void) | null = null;

  constructor(
    queue: string,
    prefix: string,
    private readonly connection: Redis,
    private readonly handler: (job: Job) => Promise<void>,
    options: ConsumerOptions,
    private readonly onClosed: () => void,
  ) {
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 5);
    this.backoffMs = options.backoffMs ?? 50;
    this.connection.on('error', () => undefined);
    this.worker = new Worker<StoredJob>(queue, (job, token) => this.process(job, token), {
      connection,
      prefix,
      concurrency: 1,
    });
    // Without a listener an 'error' event would crash the process; job failures are reported by status().
    this.worker.on('error', () => undefined);
  }

  status(): ConsumerState {
    return this.failure
      ? { state: 'stopped', processed: this.processed, ...this.failure }
      : { state: 'running', processed: this.processed };
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.cancelBackoff?.();
      await this.worker.close(); // waits for the job in flight
      await this.connection.quit().catch(() => undefined);
      this.onClosed();
    })();
    return this.closing;
  }

  private async process(job: BullJob<StoredJob>, token: string | undefined): Promise<void> {
    const { id, payload } = job.data;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.handler({ id, payload });
        this.processed += 1;
        return;
      } catch (err) {
        const closing = this.closing !== null;
        if (attempt >= this.maxAttempts || closing) {
          if (!closing) this.failure = { error: err instanceof Error ? err.message : String(err), jobId: id };
          // Pause first, so that finishing this job does not fetch the next one; then put the job back at the
          // head of the wait list (BullMQ's moveToWait pushes where the Worker pops) and tell BullMQ so.
          await this.worker.pause(true);
          await job.moveToWait(token);
          throw new WaitingError();
        }
        await this.backoff(this.backoffMs * 2 ** (attempt - 1));
      }
    }
  }

  private backoff(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.cancelBackoff = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.cancelBackoff = done;
    });
  }
}
