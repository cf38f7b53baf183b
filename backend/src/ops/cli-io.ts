import type { RecordedEvent } from '../event-store/event-store.port';

/** Where a CLI writes, and its environment: `process` in the bin files, captured in tests. */
export interface CliIo {
  /** May return a promise: the command then waits (backpressure of a slow pipe). */
  out(text: string): void | Promise<void>;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  /** Ends a `--follow` (the bin file aborts it on SIGINT/SIGTERM). */
  signal?: AbortSignal;
  /** Where progress bars are drawn (stderr in the bin files; none in tests). */
  progress?: NodeJS.WritableStream;
}

/** The part of the event store the ops CLIs need. */
export interface EventSource {
  readAll(options: { from: number; limit: number }): Promise<RecordedEvent[]>;
  headPosition(): Promise<number>;
  close(): Promise<void>;
}

/** A long command asked to stop (Ctrl-C, SIGTERM: the bin file aborts `CliIo.signal`), at a point where what it wrote is whole. */
export class Stopped extends Error {
  constructor() {
    super('Stopped on request');
    this.name = 'Stopped';
  }
}

/** Throws Stopped when the signal has aborted; long commands call it between their steps. */
export function stopIfAsked(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new Stopped();
}

/**
 * Opens what a command works on (a store, a file); when that fails, says why on stderr (the message names the file
 * or setting) and answers null, and the command exits 1.
 */
export function openOrExplain<T>(io: CliIo, open: () => T): T | null {
  try {
    return open();
  } catch (err) {
    io.err(`${(err as Error).message}\n`);
    return null;
  }
}
