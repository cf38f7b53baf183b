import type { UserProfileUpdated, UserRegistered } from '../identity/identity.decider';
import { dataOf, Projector } from './projector';

export interface UserProfileDoc {
  id: string;
  issuer: string;
  subject: string;
  email: string | null;
  firstName: string | null;
  profileImageUrl: string | null;
  registeredAt: string;
}

type Data = UserRegistered['data'] | UserProfileUpdated['data'];

/** user-profiles: one document per user, keyed by user id. */
export const userProfilesProjector: Projector<UserProfileDoc> = {
  collection: 'user-profiles',
  eventTypes: ['UserRegistered', 'UserProfileUpdated'],
  ids: (event) => [dataOf<Data>(event).userId],
  evolve(doc, event) {
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
    const d = dataOf<UserProfileUpdated['data']>(event);
    return { ...doc, email: d.email, firstName: d.firstName, profileImageUrl: d.profileImageUrl };
  },
};
