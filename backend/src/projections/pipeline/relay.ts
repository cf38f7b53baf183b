import { Logger } from '@nestjs/common';
import { EventStoreRefusedError, type EventStore, type RecordedEvent, UnreadableEventError } from '../../event-store/event-store.port';
import type { ExclusiveRun, Job, JobQueue } from '../../queue/queue.port';
import type { ReadModelStore } from '../../read-models/read-model-store.port';
import { type ChunkJob, newEpoch, RELAY_CHECKPOINT, RELAY_DUTY, RELAY_RESYNC, type Route } from './jobs';

/** What a relay batch's race against the next turn of the event loop resolves to when the turn came first. */
const TURN = Symbol('turn');

/** How often a relay run looks for a consumer's request to start again (RELAY_RESYNC), in ms. */
const RESYNC_CHECK_MS = 1_000;

/** Events a relay batch takes at most (what the store has at hand in one turn of the event loop). */
const RELAY_BATCH = 500;

export interface RelayDeps {
  store: EventStore;
  readModels: ReadModelStore;
  queue: JobQueue;
  routes: readonly Route[];
  /** How soon after the relay went quiet it sends the routes their watermarks (ms). */
  watermarkMs: number;
  /** Delay before the relay runs again after an error (ms). */
  relayRetryMs: number;
}

/**
 * The relay: subscribes to the event store and puts each event on the queue of every projection and reactor that
 * handles it (at least once), in chunks: one job per queue for what the store had at hand (see ChunkJob), so a
 * catch-up costs a job per few hundred events and live traffic a job per event. It runs as the queue's exclusive
 * duty: one relay across every worker replica.
 */
export class Relay {
  private readonly logger = new Logger('Projections');
  private run: ExclusiveRun | null = null;
  /** Why the relay stopped for good here (the event store refused it), shown in every status; null while it runs. */
  private refused: string | null = null;
  /** The event the relay could not read (a damaged store): reported by health, refused at start. */
  private unreadable: UnreadableEventError | null = null;
  /** The relay's queue epoch (in its job ids): renewed whenever queued jobs may have been lost. */
  private epoch = newEpoch();
  /** Restarts the current relay run, while the relay runs in this process. */
  private resync: (() => void) | null = null;

  constructor(private readonly deps: RelayDeps) {}

  start(): void {
    this.run = this.deps.queue.runExclusive(RELAY_DUTY, (signal) => this.relay(signal), {
      retryMs: this.deps.relayRetryMs,
      onError: (err) => {
        if (err instanceof UnreadableEventError) this.unreadable = err;
        this.logger.error(`Relay stopped: ${(err as Error).message}; restarting`);
      },
    });
  }

  async close(): Promise<void> {
    await this.run?.close();
  }

  /** The event the relay stopped on because it cannot be read, if any. */
  unreadableEvent(): UnreadableEventError | null {
    return this.unreadable;
  }

  /** Why the relay stopped for good (the event store refused it), or null while it runs. */
  refusedReason(): string | null {
    return this.refused;
  }

  /** A consumer found jobs lost before `jobId`: if the job is of this process's current run, that run restarts. */
  resyncIfCurrent(jobId: string): void {
    if (jobId.includes(`:${this.epoch}:`)) this.resync?.();
  }

  /**
   * Where the relay (re)starts: the minimum of its own checkpoint and every projection's.
   *
   * Why the minimum: the relay checkpoint says "enqueued", not "applied". If the queue lost jobs (Redis restarted
   * without its data) events between a projection's checkpoint and the relay's would be skipped forever.
   * Starting at the minimum re-enqueues them; re-delivery is harmless (the consumer skips positions at or below
   * its checkpoint, and every document's position guard skips what it already has).
   *
   * Why that is not a huge replay for a projection with rare event types: a checkpoint moves on the events a
   * projection handles, and also on watermarks. The relay sends each projection a watermark (a job in its queue,
   * so after everything routed before it) when it went quiet; reaching it, the consumer moves the checkpoint to
   * the watermark: every event of this projection up to there is applied. So every checkpoint trails the relay
   * by at most the events of the last moments, whatever the projection's event types.
   */
  async relayStart(): Promise<number> {
    const names = [RELAY_CHECKPOINT, ...this.deps.routes.map((r) => r.checkpoint)];
    const positions = await Promise.all(names.map((name) => this.deps.readModels.getCheckpoint(name)));
    return Math.min(...positions);
  }

  /** The relay duty: runs until aborted, starting again from `relayStart()` when the queue reconnected. */
  private async relay(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const run = new AbortController();
      const restart = (reason: string) => {
        if (run.signal.aborted) return;
        this.logger.warn(`${reason}: restarting the relay from the lowest checkpoint (queued jobs may be lost)`);
        // Jobs enqueued from now on belong to a new epoch: their ids differ from any stale job still around.
        this.epoch = newEpoch();
        run.abort();
      };
      const stop = () => run.abort();
      signal.addEventListener('abort', stop);
      const off = this.deps.queue.onReconnect(() => restart('Queue reconnected'));
      this.resync = () => restart('A consumer found lost jobs');
      try {
        await this.relayOnce(run.signal);
      } catch (err) {
        if (!(err instanceof EventStoreRefusedError)) throw err;
        // Retrying cannot help (the credentials lack the rights): the relay stops, and says so in every status,
        // rather than subscribe again and again. It tries again only when it runs anew (a restart, a new lease).
        this.refused = err.reason;
        this.logger.error(`Relay stopped: ${err.reason}`);
        await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
        return;
      } finally {
        run.abort();
        this.resync = null;
        off();
        signal.removeEventListener('abort', stop);
      }
      this.refused = null;
    }
  }

  /**
   * One relay run: from `relayStart()` until aborted. It takes the events the store has at hand (up to
   * RELAY_BATCH; one event when they come one at a time) and enqueues one chunk per route that handles some of
   * them, then moves the relay checkpoint.
   *
   * Why a Redis restart cannot make a projection skip an event. The queue may lose jobs (Redis without
   * persistence), and jobs of an older run may still arrive afterwards: an `add` that was waiting for the
   * connection during the outage is sent to the new, empty Redis when it comes back (before this run ends and
   * the next one starts), and so may a watermark. Such a job can be ahead of the events the next run
   * re-enqueues, with the lost ones missing before it; applied, it would move the checkpoint past them for
   * good (the next runs start at the minimum checkpoint). Hence:
   * - Each job carries `after`, its predecessor in this run's chain on its queue (see ChunkJob), and a consumer
   *   moves its checkpoint only along an unbroken chain: a job whose `after` is above the checkpoint is
   *   dropped. Every new run starts at or below every checkpoint, so its chain continues from wherever the
   *   consumer stands, whatever stale jobs come before, between or after its own.
   * - Job ids carry the relay's epoch, renewed on every reconnect (and on a local resync), so a dropped stale
   *   job never deduplicates away the same chunk re-enqueued after the loss. Within an epoch nothing is lost,
   *   so deduplication across runs (a relay restarted after an error) still applies.
   * - The adds of a run to one queue (chunks and the timer's watermarks alike) are made one after the other,
   *   so each queue receives the run's jobs in the order their `after` links were made; the run waits for its
   *   adds and its timer before it returns, so nothing of an aborted run is enqueued after the next one started.
   */
  private async relayOnce(signal: AbortSignal): Promise<void> {
    const from = await this.relayStart();
    let relayed = from;
    /** Per route (projection or reactor queue): the `upTo` of the last job of this run. */
    const routed = new Map(this.deps.routes.map((r) => [r.queue, from]));
    const epoch = this.epoch;
    /** Per queue: the last add of this run (settled or not). */
    const adding = new Map<string, Promise<void>>();
    /** Enqueues the chunk of `route` up to `upTo`, after every earlier add of this run to that queue. */
    const enqueue = (route: Route, upTo: number, events: RecordedEvent[]): Promise<void> => {
      const job: Job<ChunkJob> = { id: `${route.jobPrefix}:${epoch}:${upTo}`, payload: { after: routed.get(route.queue)!, upTo, events } };
      routed.set(route.queue, upTo);
      const previous = adding.get(route.queue) ?? Promise.resolve();
      const added = previous.then(() => this.deps.queue.add(route.queue, [job]));
      adding.set(route.queue, added.catch(() => undefined));
      return added;
    };
    let lastEventAt = Date.now();
    let watermarking: Promise<void> | null = null;
    const sendWatermarks = async () => {
      const upTo = relayed;
      const sends: Promise<void>[] = [];
      for (const route of this.deps.routes) {
        if (signal.aborted) break;
        if (routed.get(route.queue)! < upTo) sends.push(enqueue(route, upTo, []));
      }
      await Promise.all(sends);
    };
    // A consumer in another replica that found jobs lost asks for a new run through the store.
    let resyncAsked = await this.deps.readModels.getCheckpoint(RELAY_RESYNC);
    const resyncCheck = setInterval(() => {
      this.deps.readModels
        .getCheckpoint(RELAY_RESYNC)
        .then((asked) => {
          if (asked === resyncAsked || signal.aborted) return;
          resyncAsked = asked;
          this.resync?.();
        })
        .catch(() => undefined);
    }, RESYNC_CHECK_MS);
    resyncCheck.unref();
    // Watermarks go out once the relay has been quiet for watermarkMs (and at least that often while busy).
    const timer = setInterval(() => {
      if (signal.aborted || watermarking || Date.now() - lastEventAt < this.deps.watermarkMs) return;
      watermarking = sendWatermarks()
        .catch((err) => this.logger.warn(`Watermarks not sent: ${(err as Error).message}`))
        .finally(() => (watermarking = null));
    }, this.deps.watermarkMs);
    timer.unref();
    let lastWatermarkAt = Date.now();
    const batches = this.deps.store.subscribe({ from, signal })[Symbol.asyncIterator]();
    let next = batches.next();
    try {
      for (;;) {
        const first = await next;
        if (first.done) break;
        const batch = [first.value];
        next = batches.next();
        // Whatever else the store yields before the next turn of the event loop joins this batch.
        const turn = new Promise<typeof TURN>((resolve) => setImmediate(resolve, TURN));
        let ended = false;
        while (batch.length < RELAY_BATCH) {
          const more = await Promise.race([next, turn]);
          if (more === TURN) break;
          if (more.done) {
            ended = true;
            break;
          }
          batch.push(more.value);
          next = batches.next();
        }
        const upTo = batch[batch.length - 1].position;
        const sends: Promise<void>[] = [];
        for (const route of this.deps.routes) {
          const events = batch.filter((event) => route.types.has(event.type));
          if (events.length > 0) sends.push(enqueue(route, upTo, events));
        }
        await Promise.all(sends);
        await this.deps.readModels.setCheckpoint(RELAY_CHECKPOINT, upTo);
        relayed = upTo;
        lastEventAt = Date.now();
        if (lastEventAt - lastWatermarkAt >= this.deps.watermarkMs * 5 && !watermarking) {
          lastWatermarkAt = lastEventAt;
          await sendWatermarks();
        }
        if (ended) break;
        // A full batch: let I/O (requests, timers) in before the next one.
        if (batch.length >= RELAY_BATCH) await new Promise((resolve) => setImmediate(resolve));
      }
    } catch (err) {
      if (!signal.aborted) throw err;
    } finally {
      clearInterval(timer);
      clearInterval(resyncCheck);
      await watermarking;
      await Promise.all(adding.values());
      // A read may still be pending (the loop ended on an error): it ends with the run's signal, unobserved.
      next.catch(() => undefined);
      void batches.return?.(undefined)?.catch(() => undefined);
    }
  }
}
