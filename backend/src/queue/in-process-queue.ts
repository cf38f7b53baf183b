import { Consumer, ConsumerOptions, ConsumerState, Job, JobQueue } from './queue.port';

/** Handlers that settle immediately would otherwise keep the loop in microtasks; yield to I/O this often. */
const YIELD_EVERY = 1000;

interface Lane {
  /** Jobs not yet completed, in order; `head` is the next (or in-flight) one. Consumed slots are cleared. */
  jobs: (Job | undefined)[];
  head: number;
  /** Ids of the jobs not yet completed, for dedup. */
  ids: Set<string>;
  consumer: InProcessConsumer | null;
}

/**
 * The embedded queue: an array per queue name, drained by one async loop per consumer. A job leaves the
 * lane only once its handler succeeded, so a failing job is retried in place and blocks the ones after it.
 * Payloads are passed by reference (not serialised); handlers must not mutate them.
 */
export class InProcessQueue implements JobQueue {
  private readonly lanes = new Map<string, Lane>();
  private closed = false;

  async add<T>(queue: string, jobs: readonly Job<T>[]): Promise<void> {
    if (this.closed) throw new Error('InProcessQueue is closed');
    const lane = this.lane(queue);
    for (const job of jobs) {
      if (lane.ids.has(job.id)) continue;
      lane.ids.add(job.id);
      lane.jobs.push(job);
    }
    lane.consumer?.wake();
  }

  consume<T>(queue: string, handler: (job: Job<T>) => Promise<void>, options: ConsumerOptions = {}): Consumer {
    if (this.closed) throw new Error('InProcessQueue is closed');
    const lane = this.lane(queue);
    if (lane.consumer?.isActive()) throw new Error(`Queue ${queue} already has a running consumer`);
    // A stopped consumer may be replaced: its failed job is still at the head and is retried first.
    const consumer = new InProcessConsumer(lane, handler as (job: Job) => Promise<void>, options);
    lane.consumer = consumer;
    consumer.wake();
    return consumer;
  }

  async backlog(queue: string): Promise<number> {
    const lane = this.lanes.get(queue);
    return lane ? lane.jobs.length - lane.head : 0;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.lanes.values()].map((lane) => lane.consumer?.close()));
  }

  private lane(queue: string): Lane {
    let lane = this.lanes.get(queue);
    if (!lane) {
      lane = { jobs: [], head: 0, ids: new Set(), consumer: null };
      this.lanes.set(queue, lane);
    }
    return lane;
  }
}

class InProcessConsumer implements Consumer {
  private readonly maxAttempts: number;
  private readonly backoffMs: number;
  private processed = 0;
  private failure: { error: string; jobId: string } | null = null;
  private closed = false;
  private running = false;
  private loop: Promise<void> = Promise.resolve();
  private cancelBackoff: (() => void) | null = null;

  constructor(
    private readonly lane: Lane,
    private readonly handler: (job: Job) => Promise<void>,
    options: ConsumerOptions,
  ) {
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 5);
    this.backoffMs = options.backoffMs ?? 50;
  }

  isActive(): boolean {
    return !this.closed && !this.failure;
  }

  /** Starts the drain loop unless it is already running. */
  wake(): void {
    if (this.running || !this.isActive()) return;
    this.running = true;
    this.loop = this.drain();
  }

  status(): ConsumerState {
    return this.failure
      ? { state: 'stopped', processed: this.processed, ...this.failure }
      : { state: 'running', processed: this.processed };
  }

  /** Stops after the job in flight (a pending backoff is cut short; that job stays at the head). */
  async close(): Promise<void> {
    this.closed = true;
    this.cancelBackoff?.();
    await this.loop;
    if (this.lane.consumer === this) this.lane.consumer = null;
  }

  private async drain(): Promise<void> {
    const lane = this.lane;
    let sinceYield = 0;
    try {
      await Promise.resolve(); // let add()/consume() return before the first handler call
      while (this.isActive() && lane.head < lane.jobs.length) {
        const job = lane.jobs[lane.head]!;
        if (!(await this.handleWithRetries(job))) return;
        lane.jobs[lane.head] = undefined;
        lane.head += 1;
        lane.ids.delete(job.id);
        this.processed += 1;
        // Drop consumed slots now and then, so that the array does not grow forever.
        if (lane.head >= 1024 && lane.head * 2 >= lane.jobs.length) {
          lane.jobs = lane.jobs.slice(lane.head);
          lane.head = 0;
        }
        if (++sinceYield >= YIELD_EVERY) {
          sinceYield = 0;
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      }
    } finally {
      // Cleared in the same synchronous step as the emptiness check, so an add() right after cannot be missed.
      this.running = false;
    }
  }

  /** True when the handler succeeded; false when the consumer stopped (failure or close). */
  private async handleWithRetries(job: Job): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.handler(job);
        return true;
      } catch (err) {
        if (attempt >= this.maxAttempts) {
          this.failure = { error: err instanceof Error ? err.message : String(err), jobId: job.id };
          return false;
        }
        await this.backoff(this.backoffMs * 2 ** (attempt - 1));
        if (this.closed) return false;
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
