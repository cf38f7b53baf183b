import type { UserView } from '@joy/domain';
import type { UserProfileDoc } from '../projections/user-profiles.projector';
import type { ReadModelStore } from '../read-models/read-model-store.port';
import type { KeyStore } from './key-store';
import { decryptField } from './personal-data';

/** A person's profile as the API shows it (GET /api/auth/user): decrypted; all null once the account is deleted. */
export type ProfileView = UserView;

/**
 * The one place where stored personal data is read back: the user-profiles read model keeps the fields as the
 * events hold them (encrypted from schemaVersion 2), and they are decrypted here with the person's key at
 * query time. A deleted person has no document and no key: `null`.
 */
export async function readProfile(readModels: ReadModelStore, keys: KeyStore, userId: string): Promise<ProfileView | null> {
  const doc = await readModels.get<UserProfileDoc>('user-profiles', userId);
  if (!doc) return null;
  const key = await keys.existingKey(userId);
  const known = decrypted.get(doc);
  if (known && known.key === key) return known.view;
  const view: ProfileView = Object.freeze({
    id: doc.id,
    email: decryptField(key, userId, 'email', doc.email),
    firstName: decryptField(key, userId, 'firstName', doc.firstName),
    profileImageUrl: decryptField(key, userId, 'profileImageUrl', doc.profileImageUrl),
  });
  decrypted.set(doc, { key, view });
  return view;
}

/**
 * Decryption is the dearest part of reading a profile, and the in-memory read models hand out the same frozen
 * document until the profile changes. So its decrypted view is kept beside the document, for as long as that
 * document lives (replaced on a profile change, dropped when the account is deleted) and only while the key is
 * the same (a destroyed key reads as null, so the view is not used again).
 */
const decrypted = new WeakMap<UserProfileDoc, { key: Buffer | null; view: ProfileView }>();

/** Several profiles at once (members of a group, senders of care), each id once. */
export async function readProfiles(readModels: ReadModelStore, keys: KeyStore, userIds: readonly string[]): Promise<Map<string, ProfileView | null>> {
  const unique = [...new Set(userIds)];
  const profiles = await Promise.all(unique.map((id) => readProfile(readModels, keys, id)));
  return new Map(unique.map((id, i) => [id, profiles[i]]));
}
