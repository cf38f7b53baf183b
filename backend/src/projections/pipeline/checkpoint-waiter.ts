import type { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import type { ReadModelStore } from '../../read-models/read-model-store.port';
import type { Projection } from '../projector';
import type { ReadYourWrites } from '../read-your-writes';

/** How often the checkpoints are read while waiting (another process, the production worker, moves them). */
const POLL_MS = 50;

/**
 * The pipeline's side of read-your-writes: waits on the projections' checkpoints, for at most `timeoutMs`.
 * The write waited on is stored already, so a wait never fails it: past the time, or while the read models'
 * store does not answer, the command answers anyway (logged), and its read models show it once they catch up.
 * Failing it would tell the person "not saved" about something saved, and a second try would save it twice.
 */
export class CheckpointWaiter implements ReadYourWrites {
  private readonly logger = new Logger('Projections');

  constructor(
    private readonly readModels: ReadModelStore,
    private readonly projections: readonly Projection[],
    private readonly typesByProjection: ReadonlyMap<string, ReadonlySet<string>>,
    /** Emits `checkpoint (name, position)` as this process's consumers move checkpoints. */
    private readonly progress: EventEmitter,
  ) {}

  async waitFor(position: number, { eventTypes, timeoutMs = 5000 }: { eventTypes?: readonly string[]; timeoutMs?: number } = {}): Promise<void> {
    const pending = new Set(
      this.projections.filter((p) => eventTypes === undefined || eventTypes.some((t) => this.typesByProjection.get(p.name)!.has(t))).map((p) => p.name),
    );
    const deadline = Date.now() + timeoutMs;
    let moved: (() => void) | null = null;
    const onProgress = (name: string, reached: number) => {
      if (reached >= position && pending.delete(name) && pending.size === 0) moved?.();
    };
    this.progress.on('checkpoint', onProgress);
    try {
      for (;;) {
        for (const name of [...pending]) {
          // A store that does not answer (MongoDB electing a primary) is looked at again at the next turn.
          const reached = await this.readModels.getCheckpoint(name).catch(() => -1);
          onProgress(name, reached);
        }
        if (pending.size === 0) return;
        const left = deadline - Date.now();
        if (left <= 0) {
          this.logger.warn(`Answered before ${[...pending].join(', ')} reached position ${position} (${timeoutMs} ms): the read models show it once they do`);
          return;
        }
        const abort = new AbortController();
        await Promise.race([
          sleep(Math.min(POLL_MS, left), undefined, { signal: abort.signal }).catch(() => undefined),
          new Promise<void>((resolve) => (moved = resolve)),
        ]);
        abort.abort();
        moved = null;
      }
    } finally {
      this.progress.off('checkpoint', onProgress);
    }
  }
}
