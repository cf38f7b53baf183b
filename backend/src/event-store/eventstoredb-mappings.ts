import { createHash } from 'node:crypto';
import { ANY, NO_STREAM, type AppendExpectedRevision, type CurrentRevision, type Position, type StreamMetadata } from '@eventstore/db-client';
import type { EventMetadata, ExpectedVersion, RecordedEvent } from './event-store.port';

/*
 * The EventStoreDB adapter's pure mappings between the port and EventStoreDB (unit-tested without a server):
 * versions and revisions, event ids, positions, recorded events, connection-string settings.
 */

/** The port's expected version (the last event's version, 0 = no stream) as EventStoreDB's (a 0-based revision). */
export function toEsdbExpectedRevision(expected: ExpectedVersion): AppendExpectedRevision {
  if (expected === 'any') return ANY;
  if (!(Number.isSafeInteger(expected) && expected >= 0)) {
    throw new RangeError(`Invalid expected version ${String(expected)}`);
  }
  return expected === 0 ? NO_STREAM : BigInt(expected - 1);
}

/** EventStoreDB's current revision of a stream (0-based, or no stream) as the port's stream version (revision + 1). */
export function toStreamVersion(revision: CurrentRevision | bigint | undefined): number {
  if (revision === undefined || revision === NO_STREAM || revision < 0n) return 0;
  return toNumber(revision) + 1;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Namespace of the name-based (v5) UUIDs derived from Joy event ids that are not UUIDs. */
export const JOY_EVENT_ID_NAMESPACE = '8c2d6a54-3f1e-4b7a-9d0c-5e4f3a2b1c0d';

/**
 * The EventStoreDB event id for a port event id: the id itself when it is a UUID (lower-cased), else the
 * name-based UUID (RFC 4122 version 5: SHA-1 of namespace and name) of it, so that a retried append carries
 * the same ids and EventStoreDB recognises it.
 */
export function esdbEventId(eventId: string): string {
  return UUID.test(eventId) ? eventId.toLowerCase() : uuidV5(eventId, JOY_EVENT_ID_NAMESPACE);
}

/** RFC 4122 name-based UUID, version 5. */
export function uuidV5(name: string, namespace: string): string {
  if (!UUID.test(namespace)) throw new RangeError(`Invalid namespace UUID ${namespace}`);
  const bytes = createHash('sha1')
    .update(Buffer.from(namespace.replace(/-/g, ''), 'hex'))
    .update(name, 'utf8')
    .digest()
    .subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50; // version 5
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // RFC 4122 variant
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The connection string with the keepalive settings added where it does not set them. */
export function withKeepAlive(connectionString: string, intervalMs: number, timeoutMs: number): string {
  const extra: string[] = [];
  if (!/[?&]keep[-_]?alive[-_]?interval=/i.test(connectionString)) extra.push(`keepAliveInterval=${intervalMs}`);
  if (!/[?&]keep[-_]?alive[-_]?timeout=/i.test(connectionString)) extra.push(`keepAliveTimeout=${timeoutMs}`);
  if (extra.length === 0) return connectionString;
  const base = connectionString.trim().replace(/\/+$/, '');
  const separator = base.includes('?') ? (/[?&]$/.test(base) ? '' : '&') : '?';
  return `${base}${separator}${extra.join('&')}`;
}

/** An anchored regex matching exactly the given event types (for the server-side subscription filter). */
export function typesRegex(types: readonly string[]): string {
  if (types.length === 0) return '^(?!)$'; // matches nothing
  return `^(?:${types.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`;
}

export function isSystemType(type: string): boolean {
  return type.startsWith('$');
}

export function toNumber(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`Position ${value} is beyond 2^53`);
  return Number(value);
}

export function toBigPosition(from: number): bigint {
  return Number.isFinite(from) && from > 0 ? BigInt(Math.floor(from)) : 0n;
}

/** EventStoreDB positions of events appended through gRPC have equal commit and prepare positions. */
export function exactPosition(commit: bigint): Position {
  return { commit, prepare: commit };
}

export interface ResolvedLike {
  event?: {
    streamId: string;
    id: string;
    revision: bigint;
    type: string;
    data: unknown;
    metadata?: unknown;
    created: Date;
    position?: Position;
  };
  commitPosition?: bigint;
}

/** The log position of a read or subscribed record (null when the server did not send one). */
export function positionOf(resolved: ResolvedLike): Position | null {
  const position = resolved.event?.position;
  if (position && position.commit > 0n) return position;
  if (resolved.commitPosition !== undefined && resolved.commitPosition > 0n) {
    return exactPosition(resolved.commitPosition);
  }
  return null;
}

/** The port's view of a recorded event; null without an event or a position. */
export function toRecorded(resolved: ResolvedLike): RecordedEvent | null {
  const event = resolved.event;
  const position = positionOf(resolved);
  if (!event || !position) return null;
  return {
    streamId: event.streamId,
    streamVersion: toStreamVersion(event.revision),
    position: toNumber(position.commit),
    type: event.type,
    data: asObject(event.data) ?? {},
    metadata: (asObject(event.metadata) as EventMetadata | null) ?? foreignMetadata(event),
  };
}

/** A JSON object, from parsed JSON or from bytes holding JSON; null otherwise. */
export function asObject(value: unknown): Record<string, unknown> | null {
  if (value instanceof Uint8Array) {
    try {
      value = JSON.parse(Buffer.from(value).toString('utf8'));
    } catch {
      return null;
    }
  }
  const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
  return isObject ? (value as Record<string, unknown>) : null;
}

/** Metadata for an event written by another tool, without Joy's metadata. */
export function foreignMetadata(event: NonNullable<ResolvedLike['event']>): EventMetadata {
  return {
    eventId: event.id,
    schemaVersion: 1,
    correlationId: event.id,
    causationId: event.id,
    actorUserId: 'system',
    occurredAt: event.created.toISOString(),
  };
}

export function missingPosition(streamId: string): Error {
  return new Error(`EventStoreDB sent an event of ${streamId} without its log position (needs server 22.10 or later)`);
}

/** The message of an error, whatever was thrown. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message || err.name : String(err);
}

const KEYS: Record<string, string> = { $maxAge: 'maxAge', $maxCount: 'maxCount', $tb: 'truncateBefore', $cacheControl: 'cacheControl', $acl: 'acl' };
const ACL_KEYS: Record<string, string> = { $r: 'readRoles', $w: 'writeRoles', $d: 'deleteRoles', $mr: 'metaReadRoles', $mw: 'metaWriteRoles' };

/** The stored data of a `$metadata` event as the client shows stream metadata (`$tb` → `truncateBefore`...). */
export function toStreamMetadata(data: Record<string, unknown>): StreamMetadata {
  const metadata: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    const acl = key === '$acl' && value !== null && typeof value === 'object';
    metadata[KEYS[key] ?? key] = acl
      ? Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [ACL_KEYS[k] ?? k, v]))
      : value;
  }
  return metadata as StreamMetadata;
}
