import { randomBytes } from 'node:crypto';
import { InMemoryReadModelStore } from '../read-models/in-memory-read-model-store';
import type { KeyStore } from './key-store';
import { encryptField } from './personal-data';
import { readProfile } from './profiles';

/** A key store in memory, enough for reading profiles. */
class MemoryKeys implements KeyStore {
  readonly keys = new Map<string, Buffer | null>();
  async keyFor(userId: string) {
    if (!this.keys.has(userId)) this.keys.set(userId, randomBytes(32));
    return this.keys.get(userId)!;
  }
  async existingKey(userId: string) {
    return this.keys.get(userId) ?? null;
  }
  async isDestroyed(userId: string) {
    return this.keys.get(userId) === null;
  }
  async destroy(userId: string) {
    this.keys.set(userId, null);
  }
  async close() {}
}

describe('readProfile', () => {
  const userId = 'u-1';
  let readModels: InMemoryReadModelStore;
  let keys: MemoryKeys;
  let position = 0;

  const storeProfile = async (email: string, firstName: string) => {
    const key = await keys.keyFor(userId);
    await readModels.put(
      'user-profiles',
      userId,
      {
        id: userId,
        issuer: 'dev',
        subject: 's',
        email: encryptField(key, userId, 'email', email),
        firstName: encryptField(key, userId, 'firstName', firstName),
        profileImageUrl: null,
        registeredAt: '2026-11-22T10:00:00.000Z',
      },
      ++position,
    );
  };

  beforeEach(() => {
    readModels = new InMemoryReadModelStore();
    keys = new MemoryKeys();
  });

  it('reads the decrypted profile, the same on every read', async () => {
    await storeProfile('ada@example.com', 'Ada');
    const first = await readProfile(readModels, keys, userId);
    expect(first).toEqual({ id: userId, email: 'ada@example.com', firstName: 'Ada', profileImageUrl: null });
    expect(await readProfile(readModels, keys, userId)).toEqual(first);
  });

  it('shows a changed profile at once', async () => {
    await storeProfile('ada@example.com', 'Ada');
    await readProfile(readModels, keys, userId);
    await storeProfile('ada@example.org', 'Augusta');
    expect(await readProfile(readModels, keys, userId)).toMatchObject({ email: 'ada@example.org', firstName: 'Augusta' });
  });

  it('reads nothing personal once the key is destroyed, though the profile was read before', async () => {
    await storeProfile('ada@example.com', 'Ada');
    expect((await readProfile(readModels, keys, userId))?.firstName).toBe('Ada');
    await keys.destroy(userId);
    expect(await readProfile(readModels, keys, userId)).toEqual({ id: userId, email: null, firstName: null, profileImageUrl: null });
  });
});
