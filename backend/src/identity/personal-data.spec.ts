import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteKeyStore } from './key-stores';
import { decryptField, encryptField, newKey, openPersonalData, openRecorded, sealPersonalData } from './personal-data';
import { recorded } from '../testing/events';

const registered = { userId: 'u1', issuer: 'https://id.example', subject: 'ada@example.com', email: 'ada@example.com', firstName: 'Ada', profileImageUrl: null };

describe('personal data encryption (AES-256-GCM per person)', () => {
  const key = newKey();

  it('encrypts a field to enc:v1:<iv>:<ciphertext>:<tag> (base64url) and back', () => {
    const sealed = encryptField(key, 'u1', 'email', 'ada@example.com')!;
    expect(sealed).toMatch(/^enc:v1:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+:[A-Za-z0-9_-]{22}$/);
    expect(sealed).not.toContain('ada');
    expect(decryptField(key, 'u1', 'email', sealed)).toBe('ada@example.com');
    expect(encryptField(key, 'u1', 'email', 'ada@example.com')).not.toBe(sealed); // a fresh iv every time
  });

  it('reads null without the key (destroyed), with another key, another owner or field, or a tampered value', () => {
    const sealed = encryptField(key, 'u1', 'email', 'ada@example.com')!;
    expect(decryptField(null, 'u1', 'email', sealed)).toBeNull();
    expect(decryptField(newKey(), 'u1', 'email', sealed)).toBeNull();
    expect(decryptField(key, 'u2', 'email', sealed)).toBeNull();
    expect(decryptField(key, 'u1', 'firstName', sealed)).toBeNull();
    const parts = sealed.split(':');
    parts[3] = Buffer.from('x'.repeat(15)).toString('base64url');
    expect(decryptField(key, 'u1', 'email', parts.join(':'))).toBeNull();
  });

  it('passes version 1 plaintext through (upcast on read) and keeps null as null', () => {
    expect(decryptField(key, 'u1', 'email', 'ada@example.com')).toBe('ada@example.com');
    expect(decryptField(key, 'u1', 'email', null)).toBeNull();
    expect(encryptField(key, 'u1', 'email', null)).toBeNull();
  });

  it('seals the personal fields of an identity event (not the ids or the issuer) and opens them to the same shape', () => {
    const sealed = sealPersonalData('UserRegistered', registered, key);
    expect(sealed).toEqual({
      userId: 'u1',
      issuer: 'https://id.example',
      subject: expect.stringMatching(/^enc:v1:/),
      email: expect.stringMatching(/^enc:v1:/),
      firstName: expect.stringMatching(/^enc:v1:/),
      profileImageUrl: null,
    });
    expect(sealPersonalData('UserRegistered', sealed, key)).toEqual(sealed); // sealing twice changes nothing
    expect(openPersonalData('UserRegistered', sealed, key)).toEqual(registered);
    expect(openPersonalData('UserRegistered', sealed, null)).toEqual({ ...registered, subject: null, email: null, firstName: null });
    expect(sealPersonalData('UserRegistered', registered, null)).toEqual({ ...registered, subject: null, email: null, firstName: null });
  });

  it('upcasts recorded events: v2 decrypted, v1 as it is, other types untouched', () => {
    const v2 = recorded('UserRegistered', sealPersonalData('UserRegistered', registered, key), 1);
    expect(openRecorded(v2, key).data).toEqual(registered);
    expect(openRecorded(recorded('UserRegistered', registered, 2), key).data).toEqual(registered);
    const rating = recorded('RatingSubmitted', { userId: 'u1', joy: 4 }, 3);
    expect(openRecorded(rating, key)).toBe(rating);
  });
});

describe('SqliteKeyStore (keys.sqlite)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'joy-keys-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates one key per person, keeps it across instances, and never recreates a destroyed one', async () => {
    const file = join(dir, 'keys.sqlite');
    const keys = new SqliteKeyStore(file);
    expect(await keys.existingKey('u1')).toBeNull();
    const k1 = await keys.keyFor('u1');
    expect(k1).toHaveLength(32);
    expect(await keys.keyFor('u1')).toEqual(k1);
    expect(await keys.keyFor('u2')).not.toEqual(k1);
    await keys.close();

    const again = new SqliteKeyStore(file);
    expect(await again.keyFor('u1')).toEqual(k1);
    expect(await again.isDestroyed('u1')).toBe(false);
    await again.destroy('u1');
    await again.destroy('u1'); // idempotent
    expect(await again.isDestroyed('u1')).toBe(true);
    expect(await again.keyFor('u1')).toBeNull();
    expect(await again.existingKey('u1')).toBeNull();
    await again.close();

    const third = new SqliteKeyStore(file);
    expect(await third.keyFor('u1')).toBeNull();
    expect(await third.isDestroyed('u1')).toBe(true);
    expect(await third.isDestroyed('never-seen')).toBe(false);
    await third.close();
    // The destroyed key's bytes are gone from the file (secure_delete, no WAL).
    expect(readFileSync(file).indexOf(k1!)).toBe(-1);
  });
});
