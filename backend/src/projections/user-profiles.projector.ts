import type { FirstNameChosen, UserDeleted, UserProfileUpdated, UserRegistered } from '../identity/identity.decider';
import { dataOf, Projector } from './projector';

/**
 * A person's profile as the events store it: from schemaVersion 2 on, subject, email, firstName and
 * profileImageUrl hold ciphertexts (`enc:v1:…`), decrypted at query time by `identity/profiles.ts` (a
 * projector is pure and has no keys). Version 1 values (not migrated yet) are plaintext and read as they are.
 */
export interface UserProfileDoc {
  id: string;
  issuer: string;
  subject: string;
  email: string | null;
  firstName: string | null;
  profileImageUrl: string | null;
  registeredAt: string;
}

type Data = UserRegistered['data'] | UserProfileUpdated['data'] | UserDeleted['data'] | FirstNameChosen['data'];

/** user-profiles: one document per user, keyed by user id; deleted with the account. */
export const userProfilesProjector: Projector<UserProfileDoc> = {
  collection: 'user-profiles',
  eventTypes: ['UserRegistered', 'UserProfileUpdated', 'UserDeleted', 'FirstNameChanged'],
  ids: (event) => [dataOf<Data>(event).userId],
  evolve(doc, event) {
    if (event.type === 'UserDeleted') return null;
    if (event.type === 'UserRegistered') {
      const d = dataOf<UserRegistered['data']>(event);
      return {
        id: d.userId,
        issuer: d.issuer,
        subject: d.subject,
        email: d.email,
        firstName: d.firstName,
        profileImageUrl: d.profileImageUrl,
        registeredAt: event.metadata.occurredAt,
      };
    }
    if (!doc) return null;
    // The name chosen in Settings (encrypted like the others).
    if (event.type === 'FirstNameChanged') return { ...doc, firstName: dataOf<FirstNameChosen['data']>(event).firstName };
    const d = dataOf<UserProfileUpdated['data']>(event);
    return { ...doc, email: d.email, firstName: d.firstName, profileImageUrl: d.profileImageUrl };
  },
};
