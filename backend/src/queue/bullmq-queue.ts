import { Job as BullJob, Queue, WaitingError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { abortPromise, ExclusiveRuns, runExclusively, sleep } from './exclusive';
import {
  outageRetryDelay,
  type Consumer,
  type ConsumerOptions,
  type ConsumerState,
  type ExclusiveOptions,
  type ExclusiveRun,
  type Job,
  type JobHandler,
  type JobQueue,
} from './queue.port';
import { RedisLease, type LeaseOptions } from './redis-lease';

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

/** The Redis key of the lease on a queue (or on an exclusive duty): `<prefix>:lease:<name>`. */
export function leaseKey(prefix: string, name: string): string {
  return `${prefix}:lease:${name}`;
}

export interface BullMqQueueOptions {
  /** The leases that make consumers and exclusive duties exclusive across processes. */
  lease?: LeaseOptions;
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
 * Exclusivity across processes (several worker replicas): BullMQ alone would let two Workers on one queue
 * run two jobs at once, and a later job could then finish before an earlier one. So a consumer works only while
 * it holds the queue's Redis lease (`RedisLease`: SET NX PX, renewed every ttl/3, compare-and-delete on
 * release), and otherwise stands by, trying to take it. On taking it, before its first job, it waits until no
 * job of the queue is still locked by a previous owner (one that lost its lease finishes its job in flight),
 * and puts an active job whose lock expired (its owner crashed) back at the head of the wait list, so that
 * order holds across a takeover. Each job starts only while the lease has a third of its ttl left; when the
 * lease is lost the Worker is paused (no new job) and the consumer tries to take the lease again. What remains
 * is a job that outlives both its owner's lease and its BullMQ lock (30 s) during a network partition; the
 * read side's per-document position guard then still keeps every document at its newest event.
 */
export class BullMqQueue implements JobQueue {
  /** Shared by the Queue objects (producers and counters); each Worker gets its own connections. */
  private readonly connection: Redis;
  /** For the leases and the counts: fails fast instead of queueing commands while Redis is away. */
  private readonly leaseConnection: Redis;
  private readonly queues = new Map<string, Queue>();
  /** The same queues on the fail-fast connection, to count their jobs: health must hear of Redis gone, not wait. */
  private readonly counters = new Map<string, Queue>();
  private readonly consumers = new Set<BullMqConsumer>();
  private readonly exclusiveRuns = new ExclusiveRuns();
  private readonly reconnectListeners = new Set<() => void>();
  private readonly leaseOptions: LeaseOptions;

  constructor(
    private readonly redisUrl: string,
    readonly prefix = 'joy',
    options: BullMqQueueOptions = {},
  ) {
    this.leaseOptions = options.lease ?? {};
    this.connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
    this.connection.on('error', () => undefined); // reported through the failing calls instead
    // A 'ready' after a drop: Redis may have restarted without its data, and queued jobs with it.
    let dropped = false;
    const onDrop = () => (dropped = true);
    this.connection.on('close', onDrop);
    this.connection.on('end', onDrop);
    this.connection.on('ready', () => {
      if (!dropped) return;
      dropped = false;
      for (const listener of [...this.reconnectListeners]) listener();
    });
    const ttl = this.leaseOptions.ttlMs ?? 15_000;
    this.leaseConnection = new Redis(redisUrl, { maxRetriesPerRequest: 1, commandTimeout: Math.min(2_000, Math.floor(ttl / 3)) });
    this.leaseConnection.on('error', () => undefined);
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

  consume<T>(queue: string, handler: JobHandler<T>, options: ConsumerOptions = {}): Consumer {
    const consumer = new BullMqConsumer(
      this.queue(queue),
      this.prefix,
      new Redis(this.redisUrl, { maxRetriesPerRequest: null }),
      this.leaseConnection,
      new RedisLease(this.leaseConnection, leaseKey(this.prefix, queue), this.leaseOptions),
      handler as JobHandler,
      options,
      () => this.consumers.delete(consumer),
    );
    this.consumers.add(consumer);
    return consumer;
  }

  async backlog(queue: string): Promise<number> {
    return this.queue(queue, this.counters, this.leaseConnection).getJobCountByTypes('waiting', 'active', 'delayed');
  }

  runExclusive(name: string, fn: (signal: AbortSignal) => Promise<void>, options?: ExclusiveOptions): ExclusiveRun {
    const lease = new RedisLease(this.leaseConnection, leaseKey(this.prefix, name), this.leaseOptions);
    return this.exclusiveRuns.track(runExclusively(lease, fn, options));
  }

  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  /** Who holds a lease (`host:pid:random`), or null. */
  async leaseHolder(name: string): Promise<string | null> {
    return this.leaseConnection.get(leaseKey(this.prefix, name));
  }

  /** Removes every key of a queue (tests, or dropping a projection queue). */
  async obliterate(queue: string): Promise<void> {
    await this.queue(queue).obliterate({ force: true });
  }

  async close(): Promise<void> {
    await this.exclusiveRuns.closeAll();
    await Promise.all([...this.consumers].map((consumer) => consumer.close()));
    await Promise.all([...this.queues.values(), ...this.counters.values()].map((queue) => queue.close()));
    this.queues.clear();
    this.counters.clear();
    this.reconnectListeners.clear();
    await this.connection.quit().catch(() => undefined);
    await this.leaseConnection.quit().catch(() => undefined);
  }

  private queue(name: string, queues = this.queues, connection = this.connection): Queue {
    let queue = queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection, prefix: this.prefix });
      queue.on('error', () => undefined);
      queues.set(name, queue);
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
  /** The error of the store outage the job in flight waits out (null when none). */
  private outage: string | null = null;
  private closing: Promise<void> | null = null;
  private cancelBackoff: (() => void) | null = null;
  private readonly closer = new AbortController();
  /** Aborted by the processor to give the ownership up and take it again (its lease ran too short). */
  private relinquish = new AbortController();
  private owned = false;
  /** Aborts when the current ownership ends (close, lease lost, relinquished): handed to the handler. */
  private ownedSignal: AbortSignal = AbortSignal.abort();
  private readonly ownership: Promise<void>;

  constructor(
    private readonly queue: Queue,
    private readonly prefix: string,
    private readonly connection: Redis,
    private readonly leaseRedis: Redis,
    private readonly lease: RedisLease,
    private readonly handler: JobHandler,
    private readonly options: ConsumerOptions,
    private readonly onClosed: () => void,
  ) {
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 5);
    this.backoffMs = options.backoffMs ?? 50;
    this.connection.on('error', () => undefined);
    this.worker = new Worker<StoredJob>(queue.name, (job, token) => this.process(job, token), {
      connection,
      prefix,
      concurrency: 1,
      // Started (resumed) only while this consumer holds the queue's lease.
      autorun: false,
      // A stalled job (its worker died) goes back to the wait list however often that happens: never failed.
      maxStalledCount: Number.MAX_SAFE_INTEGER,
    });
    // Without a listener an 'error' event would crash the process; job failures are reported by status().
    this.worker.on('error', () => undefined);
    this.ownership = this.own();
  }

  status(): ConsumerState {
    if (this.failure) return { state: 'stopped', processed: this.processed, ...this.failure };
    if (this.outage !== null && this.owned) return { state: 'running', processed: this.processed, outage: this.outage };
    return { state: this.owned ? 'running' : 'standby', processed: this.processed };
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.cancelBackoff?.();
      this.closer.abort();
      await this.ownership; // pauses the Worker (waiting for the job in flight) and releases the lease
      await this.worker.close();
      await this.connection.quit().catch(() => undefined);
      this.onClosed();
    })();
    return this.closing;
  }

  /** Takes the lease, works while it holds it, and takes it again after losing it, until closed. */
  private async own(): Promise<void> {
    const cancel = this.closer.signal;
    while (!cancel.aborted) {
      if (!(await this.lease.acquire(cancel))) break;
      this.relinquish = new AbortController();
      const end = AbortSignal.any([cancel, this.lease.lost, this.relinquish.signal]);
      this.ownedSignal = end;
      try {
        await this.recoverPreviousOwnersJob(end);
        if (!end.aborted) await this.options.onOwned?.();
      } catch {
        await this.lease.release();
        await sleep(this.backoffMs, cancel);
        continue;
      }
      if (!end.aborted) {
        this.owned = true;
        if (!this.failure) await this.worker.resume();
        await abortPromise(end);
      }
      // Stop taking jobs (waiting for the one in flight), then let another consumer have the queue.
      await this.worker.pause();
      this.owned = false;
      await this.lease.release();
    }
  }

  /**
   * Before the first job of a new owner: wait while a previous owner still holds a job's lock (it is
   * finishing it), and put an active job whose lock expired (its owner died) back at the head of the wait
   * list. Active jobs are listed newest first, and each is pushed onto the head, so the oldest ends first.
   */
  private async recoverPreviousOwnersJob(end: AbortSignal): Promise<void> {
    const keyOf = (suffix: string) => `${this.prefix}:${this.queue.name}:${suffix}`;
    while (!end.aborted) {
      const active = await this.leaseRedis.lrange(keyOf('active'), 0, -1);
      let locked = false;
      for (const id of active) {
        if (await this.leaseRedis.exists(keyOf(`${id}:lock`))) {
          locked = true;
          continue;
        }
        const job = await BullJob.fromId<StoredJob>(this.queue, id);
        await job?.moveToWait('0');
      }
      if (!locked) return;
      await sleep(100, end);
    }
  }

  private async process(job: BullJob<StoredJob>, token: string | undefined): Promise<void> {
    const { id, payload } = job.data;
    if (!this.owned || !this.lease.isValid()) {
      // Not (or no longer surely) the owner: hand the job back untouched and take the lease afresh.
      await this.worker.pause(true);
      await job.moveToWait(token);
      this.relinquish.abort();
      throw new WaitingError();
    }
    const signal = this.ownedSignal;
    let outageRetries = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.handler({ id, payload }, signal);
        this.processed += 1;
        this.outage = null;
        return;
      } catch (err) {
        // Closing or no longer the owner: the job goes back untouched by the failure count (see below).
        const closing = this.closing !== null || signal.aborted;
        if (!closing && this.options.isOutage?.(err)) {
          // A store out for a while is not the job's fault: wait for it, without spending an attempt (the job
          // keeps its lock meanwhile, and the lease its renewals).
          attempt -= 1;
          this.outage = err instanceof Error ? err.message : String(err);
          await this.backoff(outageRetryDelay(this.backoffMs, ++outageRetries));
          continue;
        }
        if (attempt >= this.maxAttempts || closing) {
          if (!closing) {
            this.failure = { error: err instanceof Error ? err.message : String(err), jobId: id };
            this.options.onStopped?.(this.failure);
          }
          // Pause first, so that finishing this job does not fetch the next one; then put the job back at the
          // head of the wait list (BullMQ's moveToWait pushes where the Worker pops) and tell BullMQ so.
          // A stopped consumer keeps the lease: no other replica may go past this job.
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
