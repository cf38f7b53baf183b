import { DomainError } from '@joy/domain';
import { createHash, randomBytes } from 'node:crypto';
import { Decider, DomainEvent } from '../event-store/decider';
import type { MemberJoined, MemberLeft } from '../groups/groups.decider';
import type { LookupHash } from './lookup-hash';

export interface UserProfile {
  email: string | null;
  firstName: string | null;
  profileImageUrl: string | null;
}

/*
 * Events of the user stream `user-<userId>` (with the membership events of groups). The personal fields
 * (subject, email, firstName, profileImageUrl) are stored encrypted from schemaVersion 2 on (see
 * personal-data.ts); the types below are the PLAINTEXT shape that deciders see after decryption and produce
 * before encryption.
 */
export type UserRegistered = DomainEvent<'UserRegistered', UserProfile & { userId: string; issuer: string; subject: string }>;
export type UserProfileUpdated = DomainEvent<'UserProfileUpdated', UserProfile & { userId: string }>;
/** The account was deleted: its key is destroyed, its personal data unreadable, it left every group. */
export type UserDeleted = DomainEvent<'UserDeleted', { userId: string; deletedAt: string }>;
export type IdentityEvent = UserRegistered | UserProfileUpdated | UserDeleted;

/*
 * The identity link `identity-<keyed hash of (issuer, subject)>`: which account an identity at a provider signs in to.
 * `IdentityLinked` is appended with expected version "no stream" (two first sign-ins at once: the store lets
 * one win) or after an `IdentityUnlinked`; account deletion appends `IdentityUnlinked`, so the next sign-in
 * with the same identity links a NEW random account and can never reach the old data.
 */
export type IdentityLinked = DomainEvent<'IdentityLinked', { userId: string; linkedAt: string }>;
export type IdentityUnlinked = DomainEvent<'IdentityUnlinked', { userId: string; reason: 'account_deleted'; unlinkedAt: string }>;
export type IdentityLinkEvent = IdentityLinked | IdentityUnlinked;

/** A sign-in with the claims the identity provider returned, for the account it is linked to. */
export interface SignIn extends UserProfile {
  type?: 'SignIn';
  /** The linked account (see `identityLinkDecider`). */
  userId: string;
  issuer: string;
  subject: string;
}

export interface DeleteAccount {
  type: 'DeleteAccount';
  userId: string;
  at: Date;
}

export type UserCommand = SignIn | DeleteAccount;

export type UserState =
  | { registered: false; deleted: false; groupIds: readonly string[] }
  | ({
      registered: true;
      deleted: boolean;
      issuer: string | null;
      subject: string | null;
      groupIds: readonly string[];
      /** The person chose their first name in Settings: later sign-ins keep it rather than the provider's. */
      nameChosen?: boolean;
    } & UserProfile);

export const IDENTITY_MESSAGES = {
  deleted: 'This account has been deleted.',
  notRegistered: 'There is no account to delete.',
} as const;

/**
 * The hash of an identity at a provider (sha256 of issuer and subject, base64url, 22 characters): the name of
 * its link stream, and the id of every account registered before identity links existed (they keep it).
 */
export function userIdFor(issuer: string, subject: string): string {
  return createHash('sha256').update(`${issuer}\n${subject}`).digest('base64url').slice(0, 22);
}

/**
 * The identity link's stream: `identity-<HMAC(install lookup secret, issuer, subject)>` (see lookup-hash.ts), so
 * that nothing in the events leads from a subject (or, for password-less development sign-ins, an e-mail) to an
 * account without this install's keys.
 */
export const identityLinkStream = (lookup: LookupHash, issuer: string, subject: string) => `identity-${lookup('identity-link', `${issuer}\n${subject}`)}`;

/** The link stream of installs before keyed hashes: `identity-<sha256(issuer, subject)>`, read to carry people over. */
export const legacyIdentityLinkStream = (issuer: string, subject: string) => `identity-${userIdFor(issuer, subject)}`;

/** A new account's id: 128 random bits, base64url (22 characters, like the derived ids). */
export function newUserId(): string {
  return randomBytes(16).toString('base64url');
}

const EMPTY_PROFILE: UserProfile = { email: null, firstName: null, profileImageUrl: null };

/** The name chosen in Settings (its decider is settings.decider.ts; the type is repeated here to keep imports pointing one way). */
export type FirstNameChosen = DomainEvent<'FirstNameChanged', { userId: string; firstName: string }>;

/** Every event of the user stream that the identity decider folds. */
export type UserStreamEvent = IdentityEvent | MemberJoined | MemberLeft | FirstNameChosen;

/** Folds the whole user stream: the profile, the groups (for leaving them), whether the account was deleted. */
export const identityDecider: Decider<UserState, UserCommand, UserStreamEvent> = {
  initialState: { registered: false, deleted: false, groupIds: [] },
  evolve(state, event) {
    switch (event.type) {
      case 'UserRegistered': {
        const { email, firstName, profileImageUrl, issuer, subject } = event.data;
        return { registered: true, deleted: false, issuer, subject, email, firstName, profileImageUrl, groupIds: state.groupIds };
      }
      case 'UserProfileUpdated': {
        if (!state.registered) return state;
        const { email, firstName, profileImageUrl } = event.data;
        return { ...state, email, firstName, profileImageUrl };
      }
      case 'FirstNameChanged':
        return state.registered ? { ...state, firstName: event.data.firstName, nameChosen: true } : state;
      case 'UserDeleted':
        // Nothing personal is kept in the folded state either.
        return { registered: true, deleted: true, issuer: null, subject: null, ...EMPTY_PROFILE, groupIds: [] };
      case 'MemberJoined':
        return state.groupIds.includes(event.data.groupId) ? state : { ...state, groupIds: [...state.groupIds, event.data.groupId] };
      case 'MemberLeft':
        return { ...state, groupIds: state.groupIds.filter((g) => g !== event.data.groupId) };
      default:
        return state;
    }
  },
  decide(command, state) {
    if (command.type === 'DeleteAccount') {
      if (state.deleted) return []; // deleting twice: nothing more to do
      if (!state.registered) throw new DomainError('account.not_found', IDENTITY_MESSAGES.notRegistered);
      const at = command.at.toISOString();
      return [
        ...state.groupIds.map(
          (groupId): MemberLeft => ({ type: 'MemberLeft', data: { groupId, userId: command.userId, reason: 'account_deleted', leftAt: at } }),
        ),
        { type: 'UserDeleted', data: { userId: command.userId, deletedAt: at } },
      ];
    }
    if (state.deleted) throw new DomainError('account.deleted', IDENTITY_MESSAGES.deleted);
    const { userId } = command;
    const firstName = state.registered && state.nameChosen ? state.firstName : command.firstName;
    const profile: UserProfile = { email: command.email, firstName, profileImageUrl: command.profileImageUrl };
    if (!state.registered) {
      return [{ type: 'UserRegistered', data: { userId, issuer: command.issuer, subject: command.subject, ...profile } }];
    }
    const changed = (Object.keys(profile) as (keyof UserProfile)[]).some((k) => profile[k] !== state[k]);
    return changed ? [{ type: 'UserProfileUpdated', data: { userId, ...profile } }] : [];
  },
};

// ---- the identity link --------------------------------------------------------------------------------

export interface ResolveAccount {
  /** Proposed id when nothing is linked: the legacy derived id when that account exists, else a new random one. */
  candidateUserId: string;
  at: Date;
}

export interface LinkState {
  /** The account the identity signs in to now; null before the first link and after a deletion. */
  userId: string | null;
  /** Accounts linked before (deleted): never linked again. */
  previous: readonly string[];
}

export const identityLinkDecider: Decider<LinkState, ResolveAccount, IdentityLinkEvent> = {
  initialState: { userId: null, previous: [] },
  evolve(state, event) {
    if (event.type === 'IdentityLinked') return { ...state, userId: event.data.userId };
    if (event.type === 'IdentityUnlinked') {
      return { userId: state.userId === event.data.userId ? null : state.userId, previous: [...state.previous, event.data.userId] };
    }
    return state;
  },
  decide(command, state) {
    if (state.userId) return [];
    const userId = state.previous.includes(command.candidateUserId) ? newUserId() : command.candidateUserId;
    return [{ type: 'IdentityLinked', data: { userId, linkedAt: command.at.toISOString() } }];
  },
};

/** Unlinking at deletion: the link stream no longer leads to the deleted account. */
export function unlinkEvents(state: LinkState, userId: string, at: Date): IdentityUnlinked[] {
  if (state.previous.includes(userId)) return [];
  return [{ type: 'IdentityUnlinked', data: { userId, reason: 'account_deleted', unlinkedAt: at.toISOString() } }];
}
