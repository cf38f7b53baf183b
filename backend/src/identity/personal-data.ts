import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { EventMetadata, RecordedEvent } from '../event-store/event-store.port';

/*
 * Personal data in events is crypto-shredded: each person has a key of their own (AES-256-GCM, kept in the key
 * store, apart from the events), every personal field of an identity event is stored encrypted with it, and
 * deleting the account destroys the key, after which the stored bytes are unreadable everywhere they were
 * copied (event store, backups, the analytics stream).
 *
 * A field's stored form: `enc:v1:<iv>:<ciphertext>:<tag>`, each part base64url; iv 12 bytes, tag 16 bytes. The
 * additional authenticated data binds the value to its owner and field (`<userId>:<field>`), so a ciphertext
 * copied into another person's event or another field does not decrypt.
 */

export const ENCRYPTED_PREFIX = 'enc:v1:';
export const KEY_BYTES = 32;

/** The personal fields of the events of the user stream (issuer is the provider's address, not personal). */
export const PERSONAL_FIELDS = {
  UserRegistered: ['subject', 'email', 'firstName', 'profileImageUrl'],
  UserProfileUpdated: ['email', 'firstName', 'profileImageUrl'],
  /** The name chosen in Settings (settings.decider.ts). */
  FirstNameChanged: ['firstName'],
  /** A device that receives reminders (reminders/push-subscriptions.decider.ts). */
  PushSubscribed: ['endpoint', 'p256dh', 'auth'],
} as const satisfies Record<string, readonly string[]>;
export type EventWithPersonalData = keyof typeof PERSONAL_FIELDS;
/** The schemaVersion from which these events hold encrypted personal fields. */
export const ENCRYPTED_SCHEMA_VERSION = 2;

export function hasPersonalData(type: string): type is EventWithPersonalData {
  return Object.prototype.hasOwnProperty.call(PERSONAL_FIELDS, type);
}

export function newKey(): Buffer {
  return randomBytes(KEY_BYTES);
}

export function isEncrypted(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(ENCRYPTED_PREFIX);
}

const aad = (userId: string, field: string) => Buffer.from(`${userId}:${field}`, 'utf8');

/** Encrypts one field; null stays null (there is nothing to hide, and absence is not personal). */
export function encryptField(key: Buffer, userId: string, field: string, value: string | null): string | null {
  if (value === null) return null;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad(userId, field));
  const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return `${ENCRYPTED_PREFIX}${iv.toString('base64url')}:${ciphertext.toString('base64url')}:${tag.toString('base64url')}`;
}

/**
 * Decrypts one field. A plaintext value (schemaVersion 1, not migrated yet) is returned as it is; an encrypted
 * value whose key is gone (the account was deleted), or that does not authenticate, reads as null.
 */
export function decryptField(key: Buffer | null, userId: string, field: string, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (!isEncrypted(value)) return typeof value === 'string' ? value : null;
  if (!key) return null;
  const parts = value.slice(ENCRYPTED_PREFIX.length).split(':');
  if (parts.length !== 3) return null;
  try {
    const [iv, ciphertext, tag] = parts.map((p) => Buffer.from(p, 'base64url'));
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(aad(userId, field));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/** The event's personal fields encrypted (schemaVersion 2); with `key === null` (destroyed) they are redacted to null. */
export function sealPersonalData<D extends Record<string, unknown>>(type: EventWithPersonalData, data: D, key: Buffer | null): D {
  const userId = String(data.userId);
  const sealed: Record<string, unknown> = { ...data };
  for (const field of PERSONAL_FIELDS[type]) {
    const value = data[field];
    if (isEncrypted(value)) continue;
    const plain = typeof value === 'string' ? value : null;
    sealed[field] = key ? encryptField(key, userId, field, plain) : null;
  }
  return sealed as D;
}

/** The event's personal fields in plaintext, whatever the stored version (v1 passes through). */
export function openPersonalData<D extends Record<string, unknown>>(type: EventWithPersonalData, data: D, key: Buffer | null): D {
  const userId = String(data.userId);
  const opened: Record<string, unknown> = { ...data };
  for (const field of PERSONAL_FIELDS[type]) opened[field] = decryptField(key, userId, field, data[field]);
  return opened as D;
}

/** Upcasts a recorded identity event to the plaintext shape readers (deciders) expect; other events pass. */
export function openRecorded(event: RecordedEvent, key: Buffer | null): RecordedEvent {
  if (!hasPersonalData(event.type)) return event;
  return { ...event, data: openPersonalData(event.type, event.data, key) };
}

/** Metadata of a sealed event: schemaVersion 2. */
export function sealedMetadata(metadata: EventMetadata): EventMetadata {
  return { ...metadata, schemaVersion: ENCRYPTED_SCHEMA_VERSION };
}
