import type { EventEmitter } from 'node:events';
import type { ReadModelStore } from '../../read-models/read-model-store.port';
import type { Projection } from '../projector';
import type { ReadYourWrites } from '../read-your-writes';

/** The pipeline's side of read-your-writes: waits on the projections' checkpoints. */
export class CheckpointWaiter implements ReadYourWrites {
  constructor(
    private readonly readModels: ReadModelStore,
    private readonly projections: readonly Projection[],
    private readonly typesByProjection: ReadonlyMap<string, ReadonlySet<string>>,
    /** Emits `checkpoint (name, position)` as this process's consumers move checkpoints. */
    private readonly progress: EventEmitter,
  ) {}

  async waitFor(position: number, { eventTypes, timeoutMs = 5000 }: { eventTypes?: readonly string[]; timeoutMs?: number } = {}): Promise<void> {
    const names = this.projections
      .filter((p) => eventTypes === undefined || eventTypes.some((t) => this.typesByProjection.get(p.name)!.has(t)))
      .map((p) => p.name);
    const pending = new Set<string>();
    for (const name of names) if ((await this.readModels.getCheckpoint(name)) < position) pending.add(name);
    if (pending.size === 0) return;
    await new Promise<void>((resolve, reject) => {
      const cleanup = () => {
        clearInterval(poll);
        clearTimeout(timer);
        this.progress.off('checkpoint', onProgress);
      };
      const onProgress = (name: string, reached: number) => {
        if (reached >= position && pending.delete(name) && pending.size === 0) {
          cleanup();
          resolve();
        }
      };
      // Another process (the production worker) moves the checkpoints: look at them now and then too.
      const poll = setInterval(async () => {
        for (const name of [...pending]) onProgress(name, await this.readModels.getCheckpoint(name));
      }, 50);
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`Projections ${[...pending].join(', ')} did not reach position ${position} in ${timeoutMs} ms`));
      }, timeoutMs);
      this.progress.on('checkpoint', onProgress);
    });
  }
}
