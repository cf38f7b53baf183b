import type { ExclusiveOptions, ExclusiveRun } from './queue.port';

/**
 * A right that at most one holder has at a time: an in-process mutex, or a Redis lease shared by processes.
 * `acquire` waits until the right is held (true) or `cancel` aborts (false); `lost` aborts when a held right
 * is lost (a lease that could not be renewed); `release` gives it up (a no-op when it is no longer held).
 */
export interface Right {
  acquire(cancel: AbortSignal): Promise<boolean>;
  readonly lost: AbortSignal;
  release(): Promise<void>;
}

/** The in-process right: a FIFO mutex per name, never lost. */
export class LocalRight implements Right {
  private static readonly holders = new WeakMap<object, Map<string, Promise<void>>>();
  readonly lost = new AbortController().signal;
  private releaseHeld: (() => void) | null = null;

  constructor(
    private readonly scope: object,
    private readonly name: string,
  ) {}

  async acquire(cancel: AbortSignal): Promise<boolean> {
    let byName = LocalRight.holders.get(this.scope);
    if (!byName) LocalRight.holders.set(this.scope, (byName = new Map()));
    for (;;) {
      if (cancel.aborted) return false;
      const current = byName.get(this.name);
      if (!current) break;
      await Promise.race([current, abortPromise(cancel)]);
    }
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    byName.set(this.name, held);
    this.releaseHeld = () => {
      if (byName.get(this.name) === held) byName.delete(this.name);
      release();
    };
    return true;
  }

  async release(): Promise<void> {
    this.releaseHeld?.();
    this.releaseHeld = null;
  }
}

/** Runs `fn` whenever `right` is held, as `JobQueue.runExclusive` describes. */
export function runExclusively(
  right: Right,
  fn: (signal: AbortSignal) => Promise<void>,
  options: ExclusiveOptions = {},
): ExclusiveRun {
  const closer = new AbortController();
  const retryMs = options.retryMs ?? 1000;
  let held = false;
  const done = (async () => {
    while (!closer.signal.aborted) {
      if (!(await right.acquire(closer.signal))) break;
      held = true;
      const run = new AbortController();
      const stop = () => run.abort();
      closer.signal.addEventListener('abort', stop);
      right.lost.addEventListener('abort', stop);
      if (right.lost.aborted) run.abort();
      let lost = false;
      try {
        if (!run.signal.aborted) await fn(run.signal);
      } catch (err) {
        if (!run.signal.aborted) options.onError?.(err);
      } finally {
        lost = right.lost.aborted;
        closer.signal.removeEventListener('abort', stop);
        right.lost.removeEventListener('abort', stop);
        held = false;
        await right.release().catch(() => undefined);
      }
      // Lost: try to take it back at once (acquire waits for it). Ended or failed: pause before running again.
      if (!lost) await sleep(retryMs, closer.signal);
    }
  })();
  return {
    isHeld: () => held,
    async close() {
      closer.abort();
      await done;
    },
  };
}

export function abortPromise(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** The exclusive runs a queue started, so that closing the queue closes them (each leaves the set when closed). */
export class ExclusiveRuns {
  private readonly runs = new Set<ExclusiveRun>();

  track(run: ExclusiveRun): ExclusiveRun {
    const tracked: ExclusiveRun = {
      isHeld: () => run.isHeld(),
      close: async () => {
        await run.close();
        this.runs.delete(tracked);
      },
    };
    this.runs.add(tracked);
    return tracked;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.runs].map((run) => run.close()));
  }
}
