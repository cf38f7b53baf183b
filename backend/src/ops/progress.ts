import { SingleBar } from 'cli-progress';
import type { CliIo } from './cli-io';

/** What the long-running CLI commands report their progress through. */
export interface Progress {
  start(total: number, value: number, payload?: Record<string, unknown>): void;
  update(value: number, payload?: Record<string, unknown>): void;
  stop(): void;
}

const SILENT: Progress = { start() {}, update() {}, stop() {} };

/**
 * A progress bar on the CLI's progress stream (stderr in the bin files; none in tests). When stderr is a file
 * or a pipe (a cron job's log) it prints a plain line every 10 s instead of redrawing.
 */
export function progressBar(io: CliIo, format: string): Progress {
  if (!io.progress) return SILENT;
  return new SingleBar({ format, stream: io.progress, hideCursor: true, noTTYOutput: true, notTTYSchedule: 10_000 });
}
