/**
 * Work queued per key in this process: the work of one key runs one at a time, in arrival order; different
 * keys run side by side. Used where check-then-act must not interleave (commands on one stream, limits counted
 * before an append).
 */
export class Turns {
  /** key → the tail of its queue (settles when the last queued work has). */
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key);
    const run = previous ? previous.then(work) : work();
    const done = run.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, done);
    try {
      return await run;
    } finally {
      if (this.tails.get(key) === done) this.tails.delete(key);
    }
  }

  /** Takes the turns of several keys, always in the same (sorted) order, so two callers never wait on each other. */
  runAll<T>(keys: readonly string[], work: () => Promise<T>): Promise<T> {
    const ordered = [...new Set(keys)].sort();
    return ordered.reduceRight<() => Promise<T>>((inner, key) => () => this.run(key, inner), work)();
  }
}
