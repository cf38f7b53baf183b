import { ExclusiveRuns, LocalRight, runExclusively } from './exclusive';
import { outageRetryDelay, type Consumer, type ConsumerOptions, type ConsumerState, type ExclusiveOptions, type ExclusiveRun, type Job, type JobHandler, type JobQueue } from './queue.port';

/** Handlers that settle immediately would otherwise keep the loop in microtasks; yield to I/O this often. */
const YIELD_EVERY = 1000;

interface Lane {
  /** Jobs not yet completed, in order; `head` is the next (or in-flight) one. Consumed slots are cleared. */
  jobs: (Job | undefined)[];
  head: number;
  /** Ids of the jobs not yet completed, for dedup. */
  ids: Set<string>;
  /** The owner: the consumer that drains the lane. */
  consumer: InProcessConsumer | null;
  /** Consumers standing by, in arrival order; the first takes over when the owner closes. */
  standby: InProcessConsumer[];
}

/**
 * The embedded queue: an array per queue name, drained by one async loop per consumer. A job leaves the
 * lane only once its handler succeeded, so a failing job is retried in place and blocks the ones after it.
 * Payloads are passed by reference (not serialised); handlers must not mutate them.
 */
export class InProcessQueue implements JobQueue {
  private readonly lanes = new Map<string, Lane>();
  private readonly exclusiveRuns = new ExclusiveRuns();
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

  consume<T>(queue: string, handler: JobHandler<T>, options: ConsumerOptions = {}): Consumer {
    if (this.closed) throw new Error('InProcessQueue is closed');
    const lane = this.lane(queue);
    const consumer = new InProcessConsumer(lane, handler as JobHandler, options);
    // One owner at a time (the port's exclusivity); a stopped owner may be replaced: its failed job is still
    // at the head and is retried first.
    if (lane.consumer?.isActive()) lane.standby.push(consumer);
    else {
      lane.consumer = consumer;
      consumer.wake();
    }
    return consumer;
  }

  runExclusive(name: string, fn: (signal: AbortSignal) => Promise<void>, options?: ExclusiveOptions): ExclusiveRun {
    return this.exclusiveRuns.track(runExclusively(new LocalRight(this, name), fn, options));
  }

  onReconnect(): () => void {
    // Nothing to lose, nothing to reconnect.
    return () => undefined;
  }

  async backlog(queue: string): Promise<number> {
    const lane = this.lanes.get(queue);
    return lane ? lane.jobs.length - lane.head : 0;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.exclusiveRuns.closeAll();
    await Promise.all(
      [...this.lanes.values()].flatMap((lane) => [...lane.standby, lane.consumer].map((consumer) => consumer?.close())),
    );
  }

  private lane(queue: string): Lane {
    let lane = this.lanes.get(queue);
    if (!lane) {
      lane = { jobs: [], head: 0, ids: new Set(), consumer: null, standby: [] };
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
  /** The error of the store outage the job in flight waits out (null when none). */
  private outage: string | null = null;
  private closed = false;
  private running = false;
  private loop: Promise<void> = Promise.resolve();
  private cancelBackoff: (() => void) | null = null;
  /** Aborted on close: tells the handler in flight. */
  private readonly closer = new AbortController();
  /** Whether `onOwned` ran since this consumer became the owner. */
  private ready = false;

  constructor(
    private readonly lane: Lane,
    private readonly handler: JobHandler,
    private readonly options: ConsumerOptions,
  ) {
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 5);
    this.backoffMs = options.backoffMs ?? 50;
  }

  isActive(): boolean {
    return !this.closed && !this.failure;
  }

  /** Starts the drain loop unless it is already running. */
  wake(): void {
    if (this.running || !this.isActive() || this.lane.consumer !== this) return;
    this.running = true;
    this.loop = this.drain();
  }

  status(): ConsumerState {
    if (this.failure) return { state: 'stopped', processed: this.processed, ...this.failure };
    if (this.outage !== null && this.lane.consumer === this) return { state: 'running', processed: this.processed, outage: this.outage };
    return { state: this.lane.consumer === this ? 'running' : 'standby', processed: this.processed };
  }

  /** Stops after the job in flight (a pending backoff is cut short; that job stays at the head). */
  async close(): Promise<void> {
    this.closed = true;
    this.closer.abort();
    this.cancelBackoff?.();
    await this.loop;
    const lane = this.lane;
    lane.standby = lane.standby.filter((c) => c !== this);
    if (lane.consumer === this) {
      // The next consumer standing by takes over, with the lane as this one left it.
      lane.consumer = lane.standby.shift() ?? null;
      lane.consumer?.wake();
    }
  }

  private async drain(): Promise<void> {
    const lane = this.lane;
    let sinceYield = 0;
    try {
      await Promise.resolve(); // let add()/consume() return before the first handler call
      if (!this.ready) {
        try {
          await this.options.onOwned?.();
          this.ready = true;
        } catch {
          setTimeout(() => this.wake(), this.backoffMs).unref();
          return;
        }
      }
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
    let outageRetries = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.handler(job, this.closer.signal);
        this.outage = null;
        return true;
      } catch (err) {
        // Interrupted by the close (or failing during it): the job stays at the head for the next owner.
        if (this.closed) return false;
        if (this.options.isOutage?.(err)) {
          // A store out for a while is not the job's fault: wait for it, without spending an attempt.
          attempt -= 1;
          this.outage = err instanceof Error ? err.message : String(err);
          await this.backoff(outageRetryDelay(this.backoffMs, ++outageRetries));
          if (this.closed) return false;
          continue;
        }
        if (attempt >= this.maxAttempts) {
          this.failure = { error: err instanceof Error ? err.message : String(err), jobId: job.id };
          this.options.onStopped?.(this.failure);
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
