import { randomUUID } from 'node:crypto';
import type { EventToAppend, RecordedEvent } from '../event-store/event-store.port';

/** A recorded event for projector tests: the stream and metadata matter little there. */
export function recorded(type: string, data: object, position: number, occurredAt = '2026-11-20T08:00:00.000Z'): RecordedEvent {
  return {
    streamId: `test-${position}`,
    streamVersion: 1,
    position,
    type,
    data: data as Record<string, unknown>,
    metadata: { eventId: `e${position}`, schemaVersion: 1, correlationId: 'c', causationId: 'c', actorUserId: 'u', occurredAt },
  };
}

/** An event to append in event store tests: its type as data, a fresh id unless given. */
export function appendable(type: string, eventId: string = randomUUID()): EventToAppend {
  return {
    type,
    data: { type },
    metadata: { eventId, schemaVersion: 1, correlationId: 'c', causationId: 'c', actorUserId: 'system', occurredAt: new Date().toISOString() },
  };
}
