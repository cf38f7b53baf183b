import { randomInt } from 'node:crypto';
import { DomainError, FREE_PLAN_GROUP_LIMIT } from '@joy/domain';
import { Decider, DomainEvent } from '../event-store/decider';
import { nameProblem, normalizeName } from '../names/name-rule';

/*
 * Groups (tribes): the consistency boundaries.
 *
 * - `invite-<CODE>` holds one `InviteCodeReserved`, appended with expected version 0 ("no stream"): the event
 *   store itself guarantees that two groups never share a code, even when created at the same moment.
 * - `group-<id>` holds `GroupCreated`.
 * - Membership is decided on the USER's stream `user-<userId>` (the stream that also holds UserRegistered):
 *   the free-plan limit (at most 3 groups, created and joined together) and "no duplicate membership" are
 *   per-user rules, so `MemberJoined` is appended there with the expected version, and only membership events
 *   are folded by `membershipDecider`.
 *
 * Creating a group is therefore several appends (no transaction spans streams): decide the limit on the
 * user's stream first (fail fast), reserve a code, append GroupCreated, then append the creator's
 * MemberJoined with the user stream's expected version (re-deciding on a conflict). A crash (or a lost race
 * for the last free slot) between those steps leaves a group with no members: nobody sees it (every read
 * goes through a membership) and nobody knows its code, so it stays invisible and harmless.
 */

export const GROUP_NAME_MAX = 80;
export const GROUP_DESCRIPTION_MAX = 500;

/** Invite codes: 8 characters from an alphabet without look-alikes (no 0/O, 1/I/L). */
export const INVITE_CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const INVITE_CODE_LENGTH = 8;
const INVITE_CODE_PATTERN = new RegExp(`^[${INVITE_CODE_ALPHABET}]{${INVITE_CODE_LENGTH}}$`);

export const MESSAGES = {
  nameRequired: 'Group name is required.',
  nameTooLong: `name must be at most ${GROUP_NAME_MAX} characters`,
  descriptionTooLong: `description must be at most ${GROUP_DESCRIPTION_MAX} characters`,
  inviteCodeRequired: 'Invite code is required.',
  inviteCodeTooLong: `inviteCode must be at most ${INVITE_CODE_LENGTH} characters`,
  inviteCodeNotFound: 'Invite code not found.',
  alreadyMember: 'You are already a member of this group.',
  freePlanLimit: `Free plan allows up to ${FREE_PLAN_GROUP_LIMIT} groups. Upgrade to Joy Premium for unlimited groups.`,
  groupNotFound: 'Group not found',
} as const;

/** A new invite code from crypto randomness. */
export function generateInviteCode(): string {
  let code = '';
  for (let i = 0; i < INVITE_CODE_LENGTH; i++) code += INVITE_CODE_ALPHABET[randomInt(INVITE_CODE_ALPHABET.length)];
  return code;
}

/** Codes are entered case-insensitively: trimmed and upper-cased before lookup. */
export function normalizeInviteCode(input: string): string {
  return input.trim().toUpperCase();
}

/** Whether a (normalized) code could have been issued at all; anything else is simply "not found". */
export function isWellFormedInviteCode(code: string): boolean {
  return INVITE_CODE_PATTERN.test(code);
}

export interface GroupDetails {
  name: string;
  description: string | null;
}

/** Trims and checks name and description (the HTTP edge checks too; the rule lives here). */
export function groupDetails(name: unknown, description: unknown): GroupDetails {
  if (typeof name !== 'string' || name.trim() === '') throw new DomainError('group.name_required', MESSAGES.nameRequired);
  const trimmedName = normalizeName(name);
  if (trimmedName.length > GROUP_NAME_MAX) throw new DomainError('group.name_too_long', MESSAGES.nameTooLong);
  refuse(nameProblem(trimmedName, 'name'));
  if (description !== undefined && description !== null && typeof description !== 'string') {
    throw new DomainError('group.description_not_text', 'description must be a string');
  }
  const trimmedDescription = normalizeName(description ?? '');
  if (trimmedDescription.length > GROUP_DESCRIPTION_MAX) throw new DomainError('group.description_too_long', MESSAGES.descriptionTooLong);
  refuse(nameProblem(trimmedDescription, 'description', { multiline: true }));
  return { name: trimmedName, description: trimmedDescription === '' ? null : trimmedDescription };
}

function refuse(problem: string | null): void {
  if (problem) throw new DomainError('text.not_clean', problem);
}

// ---- events -------------------------------------------------------------------------------------------

export type InviteCodeReserved = DomainEvent<'InviteCodeReserved', { code: string; groupId: string }>;
export type GroupCreated = DomainEvent<
  'GroupCreated',
  GroupDetails & { groupId: string; inviteCode: string; createdBy: string; createdAt: string }
>;
export type MemberRole = 'creator' | 'member';
export type MemberJoined = DomainEvent<
  'MemberJoined',
  { groupId: string; userId: string; inviteCode?: string; role: MemberRole; joinedAt: string }
>;
/**
 * A person left a group (stream user-<userId>): they chose to, or deleted their account. The group's read models
 * drop the member, their latest score and their care suggestion, and keep everyone else's; the place counts no
 * more under the free plan. A group whose last member left is gone: its code answers 404.
 */
export type MemberLeftReason = 'account_deleted' | 'left';
export type MemberLeft = DomainEvent<'MemberLeft', { groupId: string; userId: string; reason: MemberLeftReason; leftAt: string }>;
export type GroupEvent = InviteCodeReserved | GroupCreated | MemberJoined | MemberLeft;

export const GROUP_EVENT_TYPES = ['InviteCodeReserved', 'GroupCreated', 'MemberJoined', 'MemberLeft'] as const;

// ---- the group stream ---------------------------------------------------------------------------------

export interface CreateGroup {
  groupId: string;
  name: unknown;
  description: unknown;
  inviteCode: string;
  createdBy: string;
  at: Date;
}

type GroupState = { created: boolean };

export const groupDecider: Decider<GroupState, CreateGroup, GroupCreated> = {
  initialState: { created: false },
  evolve: (state, event) => (event.type === 'GroupCreated' ? { created: true } : state),
  decide(command, state) {
    if (state.created) throw new DomainError('group.already_exists', 'This group already exists.');
    const details = groupDetails(command.name, command.description);
    return [
      {
        type: 'GroupCreated',
        data: {
          groupId: command.groupId,
          ...details,
          inviteCode: command.inviteCode,
          createdBy: command.createdBy,
          createdAt: command.at.toISOString(),
        },
      },
    ];
  },
};

// ---- the user stream: memberships ---------------------------------------------------------------------

export interface JoinGroup {
  groupId: string;
  userId: string;
  /** The code used to join (absent for the creator). */
  inviteCode?: string;
  role: MemberRole;
  /** Read from billing by the handler, so that the decider stays pure. */
  isPremium: boolean;
  at: Date;
}

export interface MembershipState {
  groupIds: readonly string[];
  /** The account was deleted (UserDeleted): it joins nothing any more. */
  deleted?: boolean;
}

type MembershipStreamEvent = MemberJoined | MemberLeft | DomainEvent<'UserDeleted', { userId: string }>;

/** Folds only the membership events of the user's stream (and its deletion); UserRegistered and others leave it unchanged. */
export const membershipDecider: Decider<MembershipState, JoinGroup, MembershipStreamEvent> = {
  initialState: { groupIds: [] },
  evolve(state, event) {
    if (event.type === 'UserDeleted') return { groupIds: [], deleted: true };
    if (event.type === 'MemberLeft') return { ...state, groupIds: state.groupIds.filter((g) => g !== event.data.groupId) };
    if (event.type !== 'MemberJoined' || state.groupIds.includes(event.data.groupId)) return state;
    return { ...state, groupIds: [...state.groupIds, event.data.groupId] };
  },
  decide(command, state) {
    if (state.deleted) throw new DomainError('group.not_found', MESSAGES.groupNotFound);
    if (state.groupIds.includes(command.groupId)) throw new DomainError('group.already_member', MESSAGES.alreadyMember);
    if (!command.isPremium && state.groupIds.length >= FREE_PLAN_GROUP_LIMIT) {
      throw new DomainError('plan.group_limit', MESSAGES.freePlanLimit);
    }
    const { groupId, userId, inviteCode, role, at } = command;
    return [
      {
        type: 'MemberJoined',
        data: { groupId, userId, ...(inviteCode ? { inviteCode } : {}), role, joinedAt: at.toISOString() },
      },
    ];
  },
};

export interface LeaveGroup {
  groupId: string;
  userId: string;
  at: Date;
}

/** Leaving, decided on the same user stream as joining: only a member leaves (anyone else: the same 404). */
export const leaveDecider: Decider<MembershipState, LeaveGroup, MembershipStreamEvent> = {
  ...membershipDecider,
  decide({ groupId, userId, at }, state) {
    if (state.deleted || !state.groupIds.includes(groupId)) throw new DomainError('group.not_found', MESSAGES.groupNotFound);
    return [{ type: 'MemberLeft', data: { groupId, userId, reason: 'left', leftAt: at.toISOString() } }];
  },
};
