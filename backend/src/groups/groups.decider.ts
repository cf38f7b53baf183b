import { randomInt } from 'node:crypto';
import { DomainError, fitsLength, FREE_PLAN_GROUP_LIMIT, FREE_PLAN_GROUP_LIMIT_MESSAGE, GROUP_DESCRIPTION_MAX, GROUP_NAME_MAX } from '@joy/domain';
import { Decider, DomainEvent } from '../event-store/decider';
import { nameProblem, normalizeName } from '../names/name-rule';

/*
 * Groups (tribes): the consistency boundaries.
 *
 * - `invite-<CODE>` holds one `InviteCodeReserved`, appended with expected version 0 ("no stream"): the event
 *   store itself guarantees that two groups never share a code, even when created at the same moment.
 * - `group-<id>` holds `GroupCreated`, then what the owner does (rename, remove, new invite code, delete). A new
 *   code is reserved the same way before `GroupInviteCodeChanged` names it; a code works only while it is the one
 *   the group's stream names last, so the old one stops at once, and a code reserved by a change that never got
 *   written (a crash, a lost race) opens nothing.
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


/** Invite codes: 8 characters from an alphabet without look-alikes (no 0/O, 1/I/L). */
export const INVITE_CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const INVITE_CODE_LENGTH = 8;
const INVITE_CODE_PATTERN = new RegExp(`^[${INVITE_CODE_ALPHABET}]{${INVITE_CODE_LENGTH}}$`);

export const MESSAGES = {
  keyReused: 'This Idempotency-Key already created a different group; send a new key for a new group.',
  keyDone: 'The group this Idempotency-Key created has been deleted or left since; send a new key to create a new group.',
  nameRequired: 'Group name is required.',
  nameTooLong: `name must be at most ${GROUP_NAME_MAX} characters`,
  descriptionTooLong: `description must be at most ${GROUP_DESCRIPTION_MAX} characters`,
  inviteCodeRequired: 'Invite code is required.',
  inviteCodeTooLong: `An invite code has ${INVITE_CODE_LENGTH} letters and numbers, like K7PX9QMB.`,
  inviteCodeNotFound: 'Invite code not found.',
  inviteCodeReplaced: "This invite code was replaced by a new one: ask the group's owner for it.",
  alreadyMember: 'You are already a member of this group.',
  removedByOwner: "The group's owner removed you from this group: to join it again, ask them for a new invite code.",
  freePlanLimit: FREE_PLAN_GROUP_LIMIT_MESSAGE,
  groupNotFound: 'Group not found',
  ownerOnly: "Only the group's owner can do this.",
  memberNotFound: 'This person is not a member of the group.',
  cannotRemoveSelf: 'To leave your own group, use Leave group.',
  nothingToChange: 'Send a new name or description.',
} as const;

/** A new invite code from crypto randomness. */
export function generateInviteCode(): string {
  let code = '';
  for (let i = 0; i < INVITE_CODE_LENGTH; i++) code += INVITE_CODE_ALPHABET[randomInt(INVITE_CODE_ALPHABET.length)];
  return code;
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
  if (!fitsLength(trimmedName, GROUP_NAME_MAX)) throw new DomainError('group.name_too_long', MESSAGES.nameTooLong);
  refuse(nameProblem(trimmedName, 'name'));
  if (description !== undefined && description !== null && typeof description !== 'string') {
    throw new DomainError('group.description_not_text', 'description must be a string');
  }
  const trimmedDescription = normalizeName(description ?? '');
  if (!fitsLength(trimmedDescription, GROUP_DESCRIPTION_MAX)) throw new DomainError('group.description_too_long', MESSAGES.descriptionTooLong);
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
export type MemberLeftReason = 'account_deleted' | 'left' | 'removed';
export type MemberLeft = DomainEvent<'MemberLeft', { groupId: string; userId: string; reason: MemberLeftReason; leftAt: string }>;
/** The owner changed the group's name and description (stream group-<id>). */
export type GroupRenamed = DomainEvent<'GroupRenamed', GroupDetails & { groupId: string; renamedBy: string; renamedAt: string }>;
/**
 * The owner removed a member (stream group-<id>): the decision and its record. The removed person's own stream
 * then gets `MemberLeft` with reason `removed`, which is what frees their place and drops them from the read models.
 */
export type MemberRemoved = DomainEvent<'MemberRemoved', { groupId: string; userId: string; removedBy: string; removedAt: string }>;
/**
 * The owner gave the group a new invite code (stream group-<id>), reserved before in `invite-<CODE>`: from now on
 * only this code opens the group; the previous one answers 404 like a code that never existed.
 */
export type GroupInviteCodeChanged = DomainEvent<'GroupInviteCodeChanged', { groupId: string; inviteCode: string; changedBy: string; changedAt: string }>;
/** The owner deleted the group (stream group-<id>): it leaves every member's list and its code answers 404. */
export type GroupDeleted = DomainEvent<'GroupDeleted', { groupId: string; deletedBy: string; deletedAt: string }>;
export type GroupEvent =
  | InviteCodeReserved
  | GroupCreated
  | GroupRenamed
  | MemberRemoved
  | GroupInviteCodeChanged
  | GroupDeleted
  | MemberJoined
  | MemberLeft;

export const GROUP_EVENT_TYPES = [
  'InviteCodeReserved',
  'GroupCreated',
  'GroupRenamed',
  'MemberRemoved',
  'GroupInviteCodeChanged',
  'GroupDeleted',
  'MemberJoined',
  'MemberLeft',
] as const;

/**
 * The owner of a group: its first member in join order (`byJoinOrder`: the creator while they are a member, then
 * the longest-standing member). So when the owner leaves, the next longest-standing member becomes owner, with no
 * event of its own, whichever way they left (leaving, removal, account deletion); someone who rejoins is a new
 * member and does not take ownership back.
 */
export function ownerOf(membersInJoinOrder: readonly string[]): string | null {
  return membersInJoinOrder[0] ?? null;
}

// ---- the group stream ---------------------------------------------------------------------------------

export interface CreateGroup {
  groupId: string;
  name: unknown;
  description: unknown;
  inviteCode: string;
  createdBy: string;
  at: Date;
}

export interface GroupState {
  created: boolean;
  deleted: boolean;
  details: GroupDetails | null;
  /** The code that opens the group now: the creation's, then the last one the owner asked for. */
  inviteCode: string | null;
  /** People the owner removed, with the code the group had then: that code does not let them back in (a new one does). */
  removedWithCode: Readonly<Record<string, string | null>>;
}

type GroupStreamEvent = GroupCreated | GroupRenamed | MemberRemoved | GroupInviteCodeChanged | GroupDeleted;

function evolveGroup(state: GroupState, event: GroupStreamEvent): GroupState {
  switch (event.type) {
    case 'GroupCreated':
      return { ...state, created: true, details: { name: event.data.name, description: event.data.description }, inviteCode: event.data.inviteCode };
    case 'GroupInviteCodeChanged':
      return { ...state, inviteCode: event.data.inviteCode };
    case 'GroupRenamed':
      return { ...state, details: { name: event.data.name, description: event.data.description } };
    case 'GroupDeleted':
      return { ...state, deleted: true };
    case 'MemberRemoved':
      return { ...state, removedWithCode: { ...state.removedWithCode, [event.data.userId]: state.inviteCode } };
    default:
      return state;
  }
}

const initialGroupState: GroupState = { created: false, deleted: false, details: null, inviteCode: null, removedWithCode: {} };

/**
 * Whether `code` keeps `userId` out of the group: the owner removed them while it was the group's code. Removing
 * someone keeps them out without a new code for everyone else; the owner lets them back by giving them a new one.
 */
export function removedWithThisCode(state: GroupState, userId: string, code: string): boolean {
  return Object.hasOwn(state.removedWithCode, userId) && state.removedWithCode[userId] === code;
}

export const groupDecider: Decider<GroupState, CreateGroup, GroupStreamEvent> = {
  initialState: initialGroupState,
  evolve: evolveGroup,
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
  /** Groups of the person that their owner deleted (read from the group streams by the handler): no place taken. */
  deletedGroupIds?: readonly string[];
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
    const placesTaken = state.groupIds.filter((g) => !command.deletedGroupIds?.includes(g)).length;
    if (!command.isPremium && placesTaken >= FREE_PLAN_GROUP_LIMIT) {
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
  /** `removed`: the owner removed them (decided first on the group stream, see ownerDecider). */
  reason?: 'left' | 'removed';
  at: Date;
}

/** Leaving, decided on the same user stream as joining: only a member leaves (anyone else: the same 404). */
export const leaveDecider: Decider<MembershipState, LeaveGroup, MembershipStreamEvent> = {
  ...membershipDecider,
  decide({ groupId, userId, reason = 'left', at }, state) {
    if (state.deleted || !state.groupIds.includes(groupId)) throw new DomainError('group.not_found', MESSAGES.groupNotFound);
    return [{ type: 'MemberLeft', data: { groupId, userId, reason, leftAt: at.toISOString() } }];
  },
};

// ---- the group stream: what only the owner does ----------------------------------------------------------

/**
 * An owner's command. Membership lives on the members' own streams, so the handler passes the current members
 * (from the groups read model, in join order) and the decider stays pure.
 */
export interface OwnerCommand {
  groupId: string;
  actorId: string;
  membersInJoinOrder: readonly string[];
  at: Date;
}

export interface RenameGroup extends OwnerCommand {
  kind: 'rename';
  /** Absent: unchanged. */
  name?: unknown;
  description?: unknown;
}
export interface RemoveMember extends OwnerCommand {
  kind: 'remove';
  userId: string;
}
/** A new invite code for the group; the handler reserves `inviteCode` (in `invite-<CODE>`) once the owner is checked. */
export interface ChangeInviteCode extends OwnerCommand {
  kind: 'changeInviteCode';
  inviteCode: string;
}
export interface DeleteGroup extends OwnerCommand {
  kind: 'delete';
}
export type OwnerAction = RenameGroup | RemoveMember | ChangeInviteCode | DeleteGroup;

/** Non-members (and everyone, once the group is deleted) get the same 404 as for a missing group; members who are not the owner, 403. */
export function requireOwner(command: OwnerCommand, state: GroupState): void {
  if (!state.created || state.deleted || !command.membersInJoinOrder.includes(command.actorId)) {
    throw new DomainError('group.not_found', MESSAGES.groupNotFound);
  }
  if (ownerOf(command.membersInJoinOrder) !== command.actorId) throw new DomainError('group.owner_only', MESSAGES.ownerOnly);
}

export const ownerDecider: Decider<GroupState, OwnerAction, GroupStreamEvent> = {
  initialState: initialGroupState,
  evolve: evolveGroup,
  decide(command, state) {
    requireOwner(command, state);
    const at = command.at.toISOString();
    switch (command.kind) {
      case 'rename': {
        if (command.name === undefined && command.description === undefined) {
          throw new DomainError('group.nothing_to_change', MESSAGES.nothingToChange, [{ field: 'name', message: MESSAGES.nothingToChange }]);
        }
        const current = state.details!;
        const details = groupDetails(
          command.name === undefined ? current.name : command.name,
          command.description === undefined ? current.description : command.description,
        );
        if (details.name === current.name && details.description === current.description) return [];
        return [{ type: 'GroupRenamed', data: { groupId: command.groupId, ...details, renamedBy: command.actorId, renamedAt: at } }];
      }
      case 'remove':
        if (command.userId === command.actorId) throw new DomainError('group.cannot_remove_self', MESSAGES.cannotRemoveSelf);
        if (!command.membersInJoinOrder.includes(command.userId)) throw new DomainError('group.member_not_found', MESSAGES.memberNotFound);
        return [{ type: 'MemberRemoved', data: { groupId: command.groupId, userId: command.userId, removedBy: command.actorId, removedAt: at } }];
      case 'changeInviteCode':
        return [{ type: 'GroupInviteCodeChanged', data: { groupId: command.groupId, inviteCode: command.inviteCode, changedBy: command.actorId, changedAt: at } }];
      case 'delete':
        return [{ type: 'GroupDeleted', data: { groupId: command.groupId, deletedBy: command.actorId, deletedAt: at } }];
    }
  },
};
