import { createHash } from 'node:crypto';
import { Decider, DomainEvent } from '../event-store/decider';

export interface UserProfile {
  email: string | null;
  firstName: string | null;
  profileImageUrl: string | null;
}

export type UserRegistered = DomainEvent<'UserRegistered', UserProfile & { userId: string; issuer: string; subject: string }>;
export type UserProfileUpdated = DomainEvent<'UserProfileUpdated', UserProfile & { userId: string }>;
export type IdentityEvent = UserRegistered | UserProfileUpdated;

/** A sign-in with the claims the identity provider returned. */
export interface SignIn extends UserProfile {
  issuer: string;
  subject: string;
}

type State = { registered: false } | ({ registered: true } & UserProfile);

/**
 * One account per (issuer, subject): the user id is derived from them, so two first sign-ins at once
 * land on the same stream and the event store lets only one register.
 */
export function userIdFor(issuer: string, subject: string): string {
  return createHash('sha256').update(`${issuer}\n${subject}`).digest('base64url').slice(0, 22);
}

export const identityDecider: Decider<State, SignIn, IdentityEvent> = {
  initialState: { registered: false },
  // The user stream also holds membership events (groups); only profile events shape this state.
  evolve(state, event) {
    if (event.type !== 'UserRegistered' && event.type !== 'UserProfileUpdated') return state;
    const { email, firstName, profileImageUrl } = event.data;
    return { registered: true, email, firstName, profileImageUrl };
  },
  decide(signIn, state) {
    const userId = userIdFor(signIn.issuer, signIn.subject);
    const profile: UserProfile = {
      email: signIn.email,
      firstName: signIn.firstName,
      profileImageUrl: signIn.profileImageUrl,
    };
    if (!state.registered) {
      return [{ type: 'UserRegistered', data: { userId, issuer: signIn.issuer, subject: signIn.subject, ...profile } }];
    }
    const changed = (Object.keys(profile) as (keyof UserProfile)[]).some((k) => profile[k] !== state[k]);
    return changed ? [{ type: 'UserProfileUpdated', data: { userId, ...profile } }] : [];
  },
};
