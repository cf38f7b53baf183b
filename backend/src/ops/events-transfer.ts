import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { EventMetadata, EventStore, EventToAppend, RecordedEvent, StreamAppend } from '../event-store/event-store.port';
import { WrongExpectedVersionError } from '../event-store/event-store.port';
import { EventStoreDbEventStore } from '../event-store/eventstoredb-event-store';
import { stopIfAsked, type EventSource } from './cli-io';
import type { Progress } from './progress';

/**
 * `events export` / `events import`: the whole event log as NDJSON, one event a line in global order, so that
 * an install moves from one event store to the other (SQLite ⇄ EventStoreDB). Data and metadata travel exactly
 * as stored: personal data stays encrypted (its keys move with `npm run keys`), event ids and stream versions are
 * kept; positions are the source's (the target numbers its own).
 */
export interface ExportedEvent {
  streamId: string;
  streamVersion: number;
  eventId: string;
  type: string;
  data: Record<string, unknown>;
  metadata: EventMetadata;
  position: number;
}

/** Events read per page by the export, and events written per batch by the import. */
export const EXPORT_PAGE = 1000;
export const IMPORT_BATCH = 500;

export function exportedLine(event: RecordedEvent): string {
  const { streamId, streamVersion, type, data, metadata, position } = event;
  return JSON.stringify({ streamId, streamVersion, eventId: metadata.eventId, type, data, metadata, position } satisfies ExportedEvent);
}

export interface ExportOptions {
  progress: Progress;
  /** Events to leave out (see truncatedAway); none when absent. */
  hidden?: HiddenEvents;
  /** Stops the export between two pages (throws Stopped). */
  signal?: AbortSignal;
}

/**
 * Writes every event up to the head as it was when the export started (a well-defined cut of a running
 * install), one page in memory at a time; `write` may return a promise (backpressure). Resolves to the count and
 * the last position written.
 */
export async function exportEvents(
  source: EventSource,
  write: (text: string) => void | Promise<void>,
  { progress, hidden = async (page) => page.map(() => false), signal }: ExportOptions,
): Promise<{ count: number; head: number; hidden: number }> {
  const head = await source.headPosition();
  let position = 0;
  let count = 0;
  let skipped = 0;
  progress.start(Math.max(head, 1), 0, { count });
  try {
    while (position < head) {
      stopIfAsked(signal);
      const page = (await source.readAll({ from: position, limit: EXPORT_PAGE })).filter((e) => e.position <= head);
      if (page.length === 0) break;
      const hide = await hidden(page);
      let text = '';
      page.forEach((event, i) => {
        if (hide[i]) skipped += 1;
        else text += `${exportedLine(event)}\n`;
      });
      await write(text);
      position = page[page.length - 1].position;
      count += page.length;
      progress.update(position, { count: count - skipped });
    }
  } finally {
    progress.stop();
  }
  return { count: count - skipped, head: position, hidden: skipped };
}

/** Which events of a page are not part of their stream any more (left out of an export). */
export type HiddenEvents = (page: readonly RecordedEvent[]) => Promise<boolean[]>;

/** Streams whose truncate-before `truncatedAway` remembers (a bounded cache: memory stays constant). */
const TRUNCATION_CACHE = 10_000;
/** Stream metadata read at once, for the streams a page holds. */
const METADATA_READS = 32;

/**
 * For an EventStoreDB source: which events are before their stream's truncate-before. `$all` still holds such
 * events until a scavenge deletes them (the originals of streams the personal-data migration rewrote, with
 * plaintext personal data): they are no longer part of their stream, and are never exported. The metadata of the
 * streams a page holds is read in parallel.
 */
export function truncatedAway(store: EventStoreDbEventStore): HiddenEvents {
  const cache = new Map<string, number>();
  const remember = (streamId: string, before: number) => {
    cache.set(streamId, before);
    if (cache.size > TRUNCATION_CACHE) cache.delete(cache.keys().next().value!);
  };
  return async (page) => {
    const unknown = [...new Set(page.map((e) => e.streamId))].filter((id) => !cache.has(id));
    const known = new Map<string, number>();
    for (let i = 0; i < unknown.length; i += METADATA_READS) {
      const ids = unknown.slice(i, i + METADATA_READS);
      const found = await Promise.all(ids.map((id) => store.streamMetadata(id)));
      ids.forEach((id, j) => {
        const tb = found[j].truncateBefore;
        const before = typeof tb === 'number' ? tb : typeof tb === 'bigint' ? Number(tb) : 0;
        known.set(id, before);
        remember(id, before);
      });
    }
    // Truncate-before is a revision (version - 1).
    return page.map((e) => e.streamVersion - 1 < (known.get(e.streamId) ?? cache.get(e.streamId) ?? 0));
  };
}

/** A line of an export file that is not an exported event: names the line and the field. */
export class ExportFileError extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** One line of an export file as an event, or an ExportFileError naming what is wrong. */
export function parseExportedLine(line: string, lineNumber: number): ExportedEvent {
  const fail = (what: string) => new ExportFileError(`line ${lineNumber}: ${what}`);
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw fail('not JSON');
  }
  if (!isObject(value)) throw fail('not a JSON object');
  const { streamId, streamVersion, eventId, type, data, metadata, position } = value;
  if (!isText(streamId)) throw fail('streamId must be a non-empty string');
  if (!(Number.isSafeInteger(streamVersion) && (streamVersion as number) >= 1)) throw fail('streamVersion must be an integer >= 1');
  if (!isText(eventId)) throw fail('eventId must be a non-empty string');
  if (!isText(type)) throw fail('type must be a non-empty string');
  if (!isObject(data)) throw fail('data must be a JSON object');
  if (!isObject(metadata)) throw fail('metadata must be a JSON object');
  if (metadata.eventId !== eventId) throw fail(`metadata.eventId (${String(metadata.eventId)}) is not the line's eventId (${eventId})`);
  if (!(Number.isSafeInteger(position) && (position as number) >= 1)) throw fail('position must be an integer >= 1');
  return value as unknown as ExportedEvent;
}

/** The lines of a file with their numbers and the bytes read so far, one at a time (constant memory). */
async function* linesOf(file: string): AsyncGenerator<{ line: string; number: number; bytes: number }> {
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let number = 0;
  let bytes = 0;
  for await (const line of lines) {
    number += 1;
    bytes += Buffer.byteLength(line) + 1;
    if (line.trim() === '') continue;
    yield { line, number, bytes };
  }
}

/** Reads the whole file once before anything is written, so that a damaged file changes nothing. */
export async function checkExportFile(file: string, signal?: AbortSignal): Promise<number> {
  let count = 0;
  for await (const { line, number } of linesOf(file)) {
    parseExportedLine(line, number);
    count += 1;
    if (count % EXPORT_PAGE === 0) stopIfAsked(signal);
  }
  return count;
}

export interface ImportOptions {
  /** Continue an interrupted import: skip the file's events up to the target's last one (matched by event id). */
  resume: boolean;
  progress: Progress;
  /** Events written per batch (IMPORT_BATCH). */
  batchSize?: number;
  /** Stops the import between two batches (throws Stopped): what is written is a whole prefix of the file. */
  signal?: AbortSignal;
}

export interface ImportResult {
  imported: number;
  /** Events found already in the target by --resume. */
  skipped: number;
}

/** Why an import cannot start or go on; the message says what to do. */
export class ImportRefused extends Error {}

/** One append of the import: consecutive events of one stream in the file, with where they came from. */
interface PlannedAppend extends StreamAppend {
  line: number;
  events: EventToAppend[];
}

/**
 * Appends the file's events to `target` in the file's order, with their stream names, versions (as expected
 * versions: a stream's first event must find the stream at its version - 1), ids and metadata. The target must
 * be empty, or with `resume` hold exactly a prefix of the file (it then goes on after the target's last event).
 * SQLite targets take whole batches in one transaction; EventStoreDB gets one append at a time, in order
 * (appends to different streams are not ordered between themselves otherwise).
 */
export async function importEvents(target: EventStore, file: string, options: ImportOptions): Promise<ImportResult> {
  const total = await checkExportFile(file, options.signal);
  const head = await target.headPosition();
  let resumeAfter: RecordedEvent | null = null;
  if (head > 0) {
    if (!options.resume) {
      throw new ImportRefused(
        `The target event store already holds events (up to position ${head}): an import goes only into an empty store.\n` +
          'To continue an interrupted import of this same file, run it again with --resume.',
      );
    }
    [resumeAfter] = await target.readAll({ from: head - 1, limit: 1 });
  }
  const batchSize = options.batchSize ?? IMPORT_BATCH;
  const { progress } = options;
  const result: ImportResult = { imported: 0, skipped: 0 };
  let batch: PlannedAppend[] = [];
  let inBatch = 0;
  const flush = async () => {
    await writeBatch(target, batch);
    result.imported += inBatch;
    batch = [];
    inBatch = 0;
  };

  progress.start(Math.max(total, 1), 0, { imported: 0 });
  try {
    let skipping = resumeAfter !== null;
    for await (const { line, number } of linesOf(file)) {
      const event = parseExportedLine(line, number);
      if (skipping) {
        result.skipped += 1;
        if (event.eventId === resumeAfter!.metadata.eventId) {
          if (event.streamId !== resumeAfter!.streamId || event.streamVersion !== resumeAfter!.streamVersion) {
            throw new ImportRefused(
              `line ${number}: event ${event.eventId} is ${event.streamId} version ${event.streamVersion} in the file but ` +
                `${resumeAfter!.streamId} version ${resumeAfter!.streamVersion} in the target: not the same import.`,
            );
          }
          skipping = false;
        }
        continue;
      }
      const last = batch[batch.length - 1];
      const toAppend: EventToAppend = { type: event.type, data: event.data, metadata: event.metadata };
      if (last && last.streamId === event.streamId && (last.expectedVersion as number) + last.events.length + 1 === event.streamVersion) {
        last.events.push(toAppend);
      } else {
        batch.push({ streamId: event.streamId, expectedVersion: event.streamVersion - 1, events: [toAppend], line: number });
      }
      inBatch += 1;
      if (inBatch >= batchSize) {
        await flush();
        progress.update(result.skipped + result.imported, { imported: result.imported });
        stopIfAsked(options.signal);
      }
    }
    if (skipping) {
      throw new ImportRefused(
        `The target's last event (${resumeAfter!.metadata.eventId}, ${resumeAfter!.streamId} version ${resumeAfter!.streamVersion}) ` +
          `is not in ${file}: --resume continues an import of the same file only.`,
      );
    }
    if (inBatch > 0) await flush();
    progress.update(total, { imported: result.imported });
  } finally {
    progress.stop();
  }
  return result;
}

async function writeBatch(target: EventStore, batch: PlannedAppend[]): Promise<void> {
  if (batch.length === 0) return;
  try {
    if (target.appendBatch) {
      await target.appendBatch(batch, { truncatedStreams: true });
      return;
    }
    for (const append of batch) {
      await target.appendToStream(append.streamId, append.events, { expectedVersion: append.expectedVersion });
    }
  } catch (err) {
    if (!(err instanceof WrongExpectedVersionError)) throw err;
    const at = batch.find((a) => a.streamId === err.streamId && a.expectedVersion === err.expectedVersion);
    if (err.actualVersion === 0 && !target.appendBatch) {
      throw new ImportRefused(
        `line ${at?.line ?? '?'}: ${err.streamId} starts at version ${Number(err.expectedVersion) + 1} in the file (its earlier ` +
          'events were truncated in the source EventStoreDB): EventStoreDB cannot recreate a stream that starts past version 1.',
      );
    }
    throw new ImportRefused(
      `line ${at?.line ?? '?'}: ${err.streamId} version ${Number(err.expectedVersion) + 1} does not follow the target's version ` +
        `${err.actualVersion} of that stream: the file is not a whole export in global order.`,
    );
  }
}
