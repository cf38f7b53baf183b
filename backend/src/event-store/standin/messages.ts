import { StreamIdentifier, UUID } from '@eventstore/db-client/generated/shared_pb.js';
import { AppendReq, BatchAppendReq, ReadResp } from '@eventstore/db-client/generated/streams_pb.js';
import type { ExpectedRevision, LogRecord, ProposedEvent } from './log';

/* Conversions between the protocol's messages and the stand-in's log records. */

export function streamName(identifier: StreamIdentifier | undefined): string {
  return Buffer.from(identifier?.getStreamName_asU8() ?? new Uint8Array()).toString('utf8');
}

export function streamIdentifier(name: string): StreamIdentifier {
  return new StreamIdentifier().setStreamName(Uint8Array.from(Buffer.from(name, 'utf8')));
}

function uuidString(uuid: UUID | undefined): string {
  if (!uuid) return '';
  if (!uuid.hasStructured()) return uuid.getString().toLowerCase();
  const structured = uuid.getStructured()!;
  const bytes = Buffer.alloc(16);
  bytes.writeBigUInt64BE(BigInt.asUintN(64, BigInt(structured.getMostSignificantBits())), 0);
  bytes.writeBigUInt64BE(BigInt.asUintN(64, BigInt(structured.getLeastSignificantBits())), 8);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A proposed message of Append or BatchAppend as an event to write. */
export function proposedEvent(message: AppendReq.ProposedMessage | BatchAppendReq.ProposedMessage): ProposedEvent {
  const map = message.getMetadataMap();
  return {
    id: uuidString(message.getId()),
    type: map.get('type') ?? '',
    contentType: map.get('content-type') ?? 'application/octet-stream',
    data: message.getData_asU8(),
    metadata: message.getCustomMetadata_asU8(),
  };
}

/** The expected revision of an Append or BatchAppend (its options' oneof, as a case number and a revision). */
export function expectedRevision(kind: 'revision' | 'no_stream' | 'any' | 'stream_exists' | 'unset', revision: string): ExpectedRevision {
  if (kind === 'revision') return BigInt(revision);
  return kind === 'unset' ? 'any' : kind;
}

export function expectedRevisionText(expected: ExpectedRevision): string {
  return typeof expected === 'bigint' ? String(expected) : expected === 'no_stream' ? '-1' : expected === 'any' ? '-2' : '-4';
}

/** An event as a read (or subscription) sends it: the record with its position. */
export function readEvent(record: LogRecord): ReadResp {
  const recorded = new ReadResp.ReadEvent.RecordedEvent()
    .setId(new UUID().setString(record.id))
    .setStreamIdentifier(streamIdentifier(record.streamId))
    .setStreamRevision(String(record.revision))
    .setPreparePosition(String(record.position))
    .setCommitPosition(String(record.position))
    .setData(record.data)
    .setCustomMetadata(record.metadata);
  const map = recorded.getMetadataMap();
  map.set('type', record.type);
  map.set('content-type', record.contentType);
  map.set('created', String(record.created));
  const event = new ReadResp.ReadEvent().setEvent(recorded).setCommitPosition(String(record.position));
  return new ReadResp().setEvent(event);
}

export function streamNotFound(name: string): ReadResp {
  return new ReadResp().setStreamNotFound(new ReadResp.StreamNotFound().setStreamIdentifier(streamIdentifier(name)));
}

export function confirmation(subscriptionId: string): ReadResp {
  return new ReadResp().setConfirmation(new ReadResp.SubscriptionConfirmation().setSubscriptionId(subscriptionId));
}

export function caughtUp(): ReadResp {
  return new ReadResp().setCaughtUp(new ReadResp.CaughtUp());
}

export function checkpoint(position: bigint): ReadResp {
  return new ReadResp().setCheckpoint(
    new ReadResp.Checkpoint().setCommitPosition(String(position)).setPreparePosition(String(position)),
  );
}
