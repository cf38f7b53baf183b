import type { RecordedEvent } from '../event-store/event-store.port';

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
