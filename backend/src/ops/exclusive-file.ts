import { once } from 'node:events';
import { createWriteStream, existsSync, renameSync, rmSync, type WriteStream } from 'node:fs';

/** A file being written aside (`<file>.partial`, mode 0600) and renamed to its name once complete. */
export interface ExclusiveFile {
  path: string;
  /** Resolves when the stream can take more (backpressure). */
  write(text: string): void | Promise<void>;
  stream: WriteStream;
}

/**
 * Opens `path` for a CLI's output: refuses to replace an existing file, readable by its owner only (exports hold
 * personal data, encrypted or not), and never visible under its name half-written.
 */
export function createExclusive(path: string): ExclusiveFile {
  if (existsSync(path)) throw new Error(`${path} already exists: choose another name, or delete it first`);
  const partial = `${path}.partial`;
  rmSync(partial, { force: true }); // a previous run that was interrupted
  const stream = createWriteStream(partial, { flags: 'wx', mode: 0o600 });
  stream.on('error', () => undefined); // reported by finishExclusive / the next write
  return {
    path,
    stream,
    write: (text) => (stream.write(text) ? undefined : once(stream, 'drain').then(() => undefined)),
  };
}

/** Flushes and closes the file, then gives it its name. */
export async function finishExclusive(file: ExclusiveFile): Promise<void> {
  const closed = once(file.stream, 'close');
  file.stream.end();
  await closed;
  if (file.stream.errored) throw file.stream.errored;
  renameSync(`${file.path}.partial`, file.path);
}

/** Gives up an unfinished file: nothing is left under its name or beside it. */
export function abandonExclusive(file: ExclusiveFile): void {
  file.stream.destroy();
  rmSync(`${file.path}.partial`, { force: true });
}
