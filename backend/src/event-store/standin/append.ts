import type { sendUnaryData, ServerDuplexStream, ServerReadableStream } from '@grpc/grpc-js';
import { Empty as ProtoEmpty } from 'google-protobuf/google/protobuf/empty_pb.js';
import { Any } from 'google-protobuf/google/protobuf/any_pb.js';
import { AllStreamPosition, Empty, Timeout, WrongExpectedVersion } from '@eventstore/db-client/generated/shared_pb.js';
import { Status } from '@eventstore/db-client/generated/status_pb.js';
import { AppendReq, AppendResp, BatchAppendReq, BatchAppendResp } from '@eventstore/db-client/generated/streams_pb.js';
import { errors, loseThisAnswer, refusal, type Faults } from './faults';
import type { AppendOutcome, ExpectedRevision, InMemoryLog, ProposedEvent } from './log';
import { expectedRevision, expectedRevisionText, proposedEvent, streamIdentifier, streamName } from './messages';

/* Streams/Append (one stream per call) and Streams/BatchAppend (many appends, by correlation id, on one call). */

export interface AppendContext {
  log: InMemoryLog;
  faults: () => Faults;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits out the `appendDelayMs` fault; false when the append's deadline passed meanwhile (nothing is written). */
async function overload(context: AppendContext, deadline: number): Promise<boolean> {
  const ms = context.faults().appendDelayMs ?? 0;
  if (ms > 0) await delay(ms);
  return Date.now() < deadline;
}

export function appendHandler(context: AppendContext) {
  return (call: ServerReadableStream<AppendReq, AppendResp>, callback: sendUnaryData<AppendResp>) => {
    const refused = refusal(context.faults());
    let options: AppendReq.Options | undefined;
    const events: ProposedEvent[] = [];
    call.on('data', (req: AppendReq) => {
      if (req.hasOptions()) options = req.getOptions();
      const message = req.getProposedMessage();
      if (message) events.push(proposedEvent(message));
    });
    call.on('end', async () => {
      if (context.faults().unresponsive) return; // never answered
      if (refused) return callback(refused);
      if (!options) return callback(errors.invalidArgument('Append without options'));
      const deadline = call.getDeadline();
      if (!(await overload(context, deadline instanceof Date ? deadline.getTime() : Number(deadline)))) {
        return callback(errors.deadlineExceeded());
      }
      const cases = AppendReq.Options.ExpectedStreamRevisionCase;
      const kind = options.getExpectedStreamRevisionCase();
      const expected = expectedRevision(
        kind === cases.REVISION ? 'revision' : kind === cases.NO_STREAM ? 'no_stream' : kind === cases.STREAM_EXISTS ? 'stream_exists' : 'any',
        options.getRevision(),
      );
      const outcome = context.log.append(streamName(options.getStreamIdentifier()), expected, events);
      if (loseThisAnswer(context.faults())) return callback(errors.connectionDropped());
      callback(null, appendResponse(outcome, expected));
    });
  };
}

function appendResponse(outcome: AppendOutcome, expected: ExpectedRevision): AppendResp {
  if (outcome.ok) {
    const success = new AppendResp.Success();
    if (outcome.revision < 0n) success.setNoStream(new Empty());
    else success.setCurrentRevision(String(outcome.revision));
    if (outcome.position === null) success.setNoPosition(new Empty());
    else success.setPosition(new AppendResp.Position().setCommitPosition(String(outcome.position)).setPreparePosition(String(outcome.position)));
    return new AppendResp().setSuccess(success);
  }
  const wrong = new AppendResp.WrongExpectedVersion();
  if (outcome.current === null) wrong.setCurrentNoStream(new Empty());
  else wrong.setCurrentRevision(String(outcome.current));
  if (typeof expected === 'bigint') wrong.setExpectedRevision(String(expected));
  else if (expected === 'no_stream') wrong.setExpectedNoStream(new Empty());
  else if (expected === 'stream_exists') wrong.setExpectedStreamExists(new Empty());
  else wrong.setExpectedAny(new Empty());
  return new AppendResp().setWrongExpectedVersion(wrong);
}

interface PendingBatch {
  options: BatchAppendReq.Options;
  events: ProposedEvent[];
}

export function batchAppendHandler(context: AppendContext) {
  return (call: ServerDuplexStream<BatchAppendReq, BatchAppendResp>) => {
    const pending = new Map<string, PendingBatch>();
    // Appends are answered in the order they complete, each on its own (one may wait out a fault).
    call.on('data', (req: BatchAppendReq) => {
      const correlation = req.getCorrelationId();
      const key = correlation?.getString() ?? '';
      const batch = pending.get(key) ?? { options: req.getOptions() ?? new BatchAppendReq.Options(), events: [] };
      pending.set(key, batch);
      for (const message of req.getProposedMessagesList()) batch.events.push(proposedEvent(message));
      if (!req.getIsFinal()) return;
      pending.delete(key);
      if (context.faults().unresponsive) return; // never answered
      // A refusal (NotLeader, AccessDenied) ends the whole call, as the server's interceptors do.
      const refused = refusal(context.faults());
      if (refused) return void call.emit('error', refused);
      void completeBatch(context, batch).then((resp) => {
        // Written, then the connection drops: the call ends with every append on it unanswered.
        if (loseThisAnswer(context.faults())) return void call.emit('error', errors.connectionDropped());
        if (!call.writableEnded && !call.destroyed) call.write(resp.setCorrelationId(correlation));
      });
    });
    call.on('end', () => call.end());
  };
}

async function completeBatch(context: AppendContext, batch: PendingBatch): Promise<BatchAppendResp> {
  const { options } = batch;
  const name = streamName(options.getStreamIdentifier());
  const resp = new BatchAppendResp().setStreamIdentifier(streamIdentifier(name));
  const deadline = options.getDeadline()?.toDate().getTime() ?? Number.POSITIVE_INFINITY;
  if (!(await overload(context, deadline))) {
    const details = new Any();
    details.pack(new Timeout().serializeBinary(), 'event_store.client.Timeout');
    return resp.setError(new Status().setCode(4).setMessage('Timeout').setDetails(details));
  }
  const cases = BatchAppendReq.Options.ExpectedStreamPositionCase;
  const kind = options.getExpectedStreamPositionCase();
  const expected = expectedRevision(
    kind === cases.STREAM_POSITION ? 'revision' : kind === cases.NO_STREAM ? 'no_stream' : kind === cases.STREAM_EXISTS ? 'stream_exists' : 'any',
    options.getStreamPosition(),
  );
  const outcome = context.log.append(name, expected, batch.events);
  if (outcome.ok) {
    const success = new BatchAppendResp.Success();
    if (outcome.revision < 0n) success.setNoStream(new ProtoEmpty());
    else success.setCurrentRevision(String(outcome.revision));
    if (outcome.position === null) success.setNoPosition(new ProtoEmpty());
    else success.setPosition(new AllStreamPosition().setCommitPosition(String(outcome.position)).setPreparePosition(String(outcome.position)));
    return resp.setSuccess(success);
  }
  const wrong = new WrongExpectedVersion();
  if (outcome.current === null) wrong.setCurrentNoStream(new ProtoEmpty());
  else wrong.setCurrentStreamRevision(String(outcome.current));
  if (typeof expected === 'bigint') wrong.setExpectedStreamPosition(String(expected));
  else if (expected === 'no_stream') wrong.setExpectedNoStream(new ProtoEmpty());
  else if (expected === 'stream_exists') wrong.setExpectedStreamExists(new ProtoEmpty());
  else wrong.setExpectedAny(new ProtoEmpty());
  const details = new Any();
  details.pack(wrong.serializeBinary(), 'event_store.client.WrongExpectedVersion');
  return resp.setError(new Status().setCode(9).setMessage(`WrongExpectedVersion ${expectedRevisionText(expected)}`).setDetails(details));
}
