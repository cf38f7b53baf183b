import { once } from 'node:events';
import type { CliIo } from './cli-io';

/** The CLIs' io on the real process: stdout with backpressure, Ctrl-C/SIGTERM end a follow, EPIPE ends quietly. */
export function processIo(): CliIo {
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  // `| head` closed the pipe: nothing more to print.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  return {
    out: (text) => (process.stdout.write(text) ? undefined : once(process.stdout, 'drain').then(() => undefined)),
    err: (text) => void process.stderr.write(text),
    env: process.env,
    signal: stop.signal,
    progress: process.stderr,
  };
}

/** Runs a CLI's `run` and exits with its code. */
export function main(run: (argv: string[], io: CliIo) => Promise<number>): void {
  run(process.argv.slice(2), processIo()).then(
    (code) => process.exit(code),
    (err: Error) => {
      process.stderr.write(`${err.stack ?? err.message}\n`);
      process.exit(1);
    },
  );
}
