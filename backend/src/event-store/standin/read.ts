import { randomUUID } from 'node:crypto';
import { status, type ServerWritableStream } from '@grpc/grpc-js';
import { ReadReq, type ReadResp } from '@eventstore/db-client/generated/streams_pb.js';
import { errors, refusal, type Faults } from './faults';
import { InvalidPositionError, type InMemoryLog, type LogRecord } from './log';
import { caughtUp, checkpoint, confirmation, readEvent, streamName, streamNotFound } from './messages';

/*
 * Streams/Read: a stream read, a read of `$all`, or a catch-up subscription to `$all` (confirmation, the events
 * after its position, caught-up, then live events; with a filter, checkpoints while it skips events).
 */

type ReadCall = ServerWritableStream<ReadReq, ReadResp>;

export interface ReadContext {
  log: InMemoryLog;
  faults: () => Faults;
  /** Live subscriptions (to drop them on demand). */
  subscriptions: Set<ReadCall>;
  /** Told of every subscription request and every read of `$all`, refused or not. */
  onSubscribe: () => void;
  onReadAll: () => void;
}

/** Records scanned without a match between two checkpoints, per unit of the filter's checkpoint multiplier. */
const FILTER_WINDOW = 32;

export function readHandler(context: ReadContext) {
  return (call: ReadCall) => {
    if (call.request.getOptions()?.hasSubscription()) context.onSubscribe();
    else if (call.request.getOptions()?.hasAll()) context.onReadAll();
    if (context.faults().unresponsive) return; // the call stays open, unanswered
    const refused = refusal(context.faults());
    if (refused) return void call.emit('error', refused);
    const options = call.request.getOptions();
    if (!options) return void call.emit('error', errors.invalidArgument('ReadReq without options'));
    let run: Promise<void>;
    if (options.hasSubscription()) {
      if (!options.hasAll()) return void call.emit('error', { code: status.UNIMPLEMENTED, details: 'The stand-in subscribes to $all only' });
      run = subscribeToAll(call, options, context);
    } else {
      run = Promise.resolve()
        .then(() => (options.hasStream() ? readStream(call, options, context.log, context.faults().streamReadMsPer100 ?? 0) : readAll(call, options, context.log)))
        .then(() => void call.end());
    }
    run.catch((err: unknown) => {
      if (call.cancelled || call.destroyed) return;
      call.emit('error', err instanceof InvalidPositionError ? errors.invalidPosition() : { code: status.UNKNOWN, details: String(err) });
    });
  };
}

async function readStream(call: ReadCall, options: ReadReq.Options, log: InMemoryLog, msPer100: number): Promise<void> {
  const stream = options.getStream()!;
  const name = streamName(stream.getStreamIdentifier());
  const events = log.streamEvents(name);
  if (!events) return void call.write(streamNotFound(name));
  const forwards = options.getReadDirection() === ReadReq.Options.ReadDirection.FORWARDS;
  const count = Number(options.getCount() || '0');
  let selected: LogRecord[];
  if (stream.hasRevision()) {
    const from = BigInt(stream.getRevision());
    selected = forwards ? events.filter((r) => r.revision >= from) : events.filter((r) => r.revision <= from).reverse();
  } else if (stream.hasEnd()) {
    selected = forwards ? [] : [...events].reverse();
  } else {
    selected = forwards ? events : [];
  }
  let sent = 0;
  for (const record of selected.slice(0, count)) {
    if (msPer100 > 0 && sent > 0 && sent % 100 === 0) await new Promise((resolve) => setTimeout(resolve, msPer100));
    if (call.cancelled || call.destroyed) return;
    call.write(readEvent(record));
    sent++;
  }
}

function readAll(call: ReadCall, options: ReadReq.Options, log: InMemoryLog): void {
  const all = options.getAll()!;
  const forwards = options.getReadDirection() === ReadReq.Options.ReadDirection.FORWARDS;
  const count = Number(options.getCount() || '0');
  let index: number;
  if (all.hasPosition()) index = log.indexAt(BigInt(all.getPosition()!.getCommitPosition()));
  else index = all.hasEnd() ? log.records.length : 0;
  if (all.hasStart() && !forwards) index = 0;
  // Forwards reads include their start position, backwards reads exclude it.
  const records = forwards ? log.records.slice(index) : log.records.slice(0, index).reverse();
  let sent = 0;
  for (const record of records) {
    if (sent >= count) break;
    if (record.kind !== 'event') continue;
    call.write(readEvent(record));
    sent++;
  }
}

/** Whether a record passes the subscription's filter (no filter: everything). */
function filterOf(options: ReadReq.Options): ((record: LogRecord) => boolean) | null {
  if (!options.hasFilter()) return null;
  const filter = options.getFilter()!;
  const expression = filter.hasEventType() ? filter.getEventType()! : filter.getStreamIdentifier()!;
  const field = (record: LogRecord) => (filter.hasEventType() ? record.type : record.streamId);
  const regex = expression.getRegex() ? new RegExp(expression.getRegex()) : null;
  const prefixes = expression.getPrefixList();
  return (record) => {
    const value = field(record);
    if (regex && !regex.test(value)) return false;
    return prefixes.length === 0 || prefixes.some((prefix) => value.startsWith(prefix));
  };
}

async function subscribeToAll(call: ReadCall, options: ReadReq.Options, context: ReadContext): Promise<void> {
  const { log } = context;
  const all = options.getAll()!;
  let after: bigint;
  if (all.hasPosition()) {
    const from = BigInt(all.getPosition()!.getCommitPosition());
    log.indexAt(from); // refuses a position inside a record
    after = from;
  } else {
    after = all.hasEnd() ? log.end - 1n : -1n;
  }
  const filter = filterOf(options);
  const window = filter ? FILTER_WINDOW * Math.max(1, options.getFilter()!.getCheckpointintervalmultiplier()) : 0;
  context.subscriptions.add(call);
  const ended = new Promise<void>((resolve) => {
    call.once('cancelled', resolve);
    call.once('close', resolve);
    call.once('error', resolve);
    call.once('finish', resolve);
  });
  const open = () => !call.cancelled && !call.destroyed && !call.writableEnded;
  /** Ends the wait for live events, when there is one. */
  let wakeUp: (() => void) | null = null;
  void ended.then(() => wakeUp?.());
  try {
    call.write(confirmation(randomUUID()));
    let caught = false;
    let skipped = 0;
    while (open()) {
      let index = log.indexAfter(after);
      for (; index < log.records.length && open(); index = log.indexAfter(after)) {
        const record = log.records[index];
        after = record.position;
        if (record.kind !== 'event') continue;
        if (filter && !filter(record)) {
          if (++skipped >= window) {
            skipped = 0;
            await send(call, checkpoint(after), ended);
          }
          continue;
        }
        await send(call, readEvent(record), ended);
      }
      if (!open()) break;
      if (!caught) {
        caught = true;
        await send(call, caughtUp(), ended);
        continue;
      }
      // Live: wait for the next append (or the end of the call), leaving no listener behind.
      await new Promise<void>((resolve) => {
        const wake = () => {
          log.events.off('appended', wake);
          wakeUp = null;
          resolve();
        };
        wakeUp = wake;
        log.events.on('appended', wake);
      });
    }
  } finally {
    context.subscriptions.delete(call);
  }
}

/** Writes one message, waiting while the client does not take more (backpressure) or until the call ends. */
async function send(call: ReadCall, message: ReadResp, ended: Promise<void>): Promise<void> {
  if (call.write(message)) return;
  await Promise.race([new Promise<void>((resolve) => call.once('drain', resolve)), ended]);
}
