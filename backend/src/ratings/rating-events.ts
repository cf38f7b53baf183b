import { DEFAULT_TIME_ZONE, dayOf } from '@joy/domain';
import type { RecordedEvent } from '../event-store/event-store.port';
import { withFields } from '../projections/projector';
import { decryptField, encryptField, isEncrypted } from '../identity/personal-data';
import type { RatingEvent } from './ratings.decider';

/*
 * The stored forms of the rating events and the one upcast that reads them.
 *
 * - RatingSubmitted schemaVersion 2 carries `day` (the `YYYY-MM-DD` it rates, in the person's zone when it was
 *   made) and, when there is one, `note` encrypted with the person's key (identity/personal-data.ts, field
 *   `note`): deleting the account destroys the key and every note with it (crypto-shredding). RatingCorrected
 *   schemaVersion 2 carries the rating's `day` and its `note` as corrected (null: none).
 * - schemaVersion 1 events (before days) have no `day`: it is derived from `submittedAt` in UTC, the only zone
 *   the server knew when they were made (docs/decisions.md, "A rating's day").
 */

export const RATING_SCHEMA_VERSION = 2;
/** The encrypted field of the rating events (also the additional authenticated data's field name). */
export const NOTE_FIELD = 'note';

/** The day of a stored rating event's data: its own, or (schemaVersion 1) the UTC day of `submittedAt`. */
export function dayOfStoredRating(data: { day?: unknown; submittedAt?: unknown }): string {
  if (typeof data.day === 'string') return data.day;
  return dayOf(String(data.submittedAt), DEFAULT_TIME_ZONE) ?? '1970-01-01';
}

/**
 * The upcast: a stored rating event as the decider folds it, with its day, and its note decrypted with `key`
 * (null when there is none, the key is gone, or `key` is not given: then the note stays as stored).
 */
export function upcastRatingEvent(event: Pick<RecordedEvent, 'type' | 'data'>, key?: Buffer | null): RatingEvent {
  const data = event.data as Record<string, unknown>;
  if (event.type === 'RatingWithdrawn') {
    const latest = data.latest as Record<string, unknown> | null;
    return { type: event.type, data: { ...data, latest: latest && { ...latest, day: dayOfStoredRating(latest) } } } as unknown as RatingEvent;
  }
  if (event.type !== 'RatingSubmitted' && event.type !== 'RatingCorrected') return { type: event.type, data } as unknown as RatingEvent;
  const note = key === undefined ? (data.note ?? null) : decryptField(key, String(data.userId), NOTE_FIELD, data.note);
  return { type: event.type, data: withFields(data, { day: dayOfStoredRating(data), note }) } as unknown as RatingEvent;
}

/** The stored form of a new rating event: its note encrypted with the person's key (schemaVersion 2). */
export function encodeRatingEvent(event: RatingEvent, key: Buffer | null): { data: Record<string, unknown>; schemaVersion: number } {
  const data = { ...(event.data as unknown as Record<string, unknown>) };
  if (event.type === 'RatingWithdrawn' || event.type === 'RatingsClosed') return { data, schemaVersion: 1 };
  const note = data.note;
  if (typeof note === 'string' && !isEncrypted(note)) {
    // Without a key (a deleted account) there is nowhere to keep a note: it is not stored.
    data.note = key ? encryptField(key, String(data.userId), NOTE_FIELD, note) : null;
  }
  if (event.type === 'RatingSubmitted' && (data.note === null || data.note === undefined)) delete data.note;
  if (event.type === 'RatingCorrected' && data.note === undefined) data.note = null;
  return { data, schemaVersion: RATING_SCHEMA_VERSION };
}

/** A codec for decideAndAppend on `ratings-<userId>` with the person's key. */
export function ratingStreamCodec(key: Buffer | null) {
  return {
    upcast: (e: RecordedEvent) => upcastRatingEvent(e, key),
    encode: (e: RatingEvent) => encodeRatingEvent(e, key),
  };
}

/** The owner's note of a rating document or event data as stored (encrypted), in plaintext; null without one. */
export function openNote(key: Buffer | null, userId: string, stored: unknown): string | null {
  return decryptField(key, userId, NOTE_FIELD, stored);
}
