import { DomainError } from '@joy/domain';
import type { EventStore, RecordedEvent } from '../event-store/event-store.port';
import { type GroupCreated, groupDecider, type GroupDetails, type GroupState, membershipDecider, type MembershipState, MESSAGES } from './groups.decider';

/* Reading the group and user streams, the source of truth the group commands decide on. */

/** The user's stream holds identity events too; membershipDecider.evolve folds only memberships and the deletion. */
export const joinUpcast = (e: RecordedEvent) => ({ type: e.type, data: e.data }) as unknown as Parameters<typeof membershipDecider.evolve>[1];

/** A group's stream folded: created, deleted, its name and description, its current invite code. */
export function foldGroup(events: readonly RecordedEvent[]): GroupState {
  return events.map((e) => ({ type: e.type, data: e.data }) as unknown as Parameters<typeof groupDecider.evolve>[1]).reduce(groupDecider.evolve, groupDecider.initialState);
}

export async function groupState(store: EventStore, groupId: string): Promise<GroupState> {
  return foldGroup(await store.readStream(`group-${groupId}`));
}

/**
 * The person's membership state and, when the free plan's limit applies, which of their groups were deleted (read
 * from the group streams, the source of truth: a deleted group takes no place).
 */
export async function membershipOf(store: EventStore, userId: string, isPremium: boolean): Promise<{ state: MembershipState; deletedGroupIds: string[] }> {
  const state = (await store.readStream(`user-${userId}`)).map(joinUpcast).reduce(membershipDecider.evolve, membershipDecider.initialState);
  if (isPremium) return { state, deletedGroupIds: [] };
  const deleted = await Promise.all(state.groupIds.map(async (g) => ((await groupState(store, g)).deleted ? g : null)));
  return { state, deletedGroupIds: deleted.filter((g): g is string => g !== null) };
}

/** What an Idempotency-Key created before: the group as it stands now, and whether its creator is in it yet. */
export interface CreatedWithKey {
  /** Its creation with its current name, description and invite code. */
  group: GroupCreated['data'];
  /**
   * False while the creation is not finished: the group is written before its creator's membership (another stream),
   * so a retry that comes between the two, or after a crash between them, finishes it.
   */
  creatorIn: boolean;
}

/**
 * The group an Idempotency-Key created before, or null when it created none yet. Refused (409) when the key created
 * another group (another name or description), or its group is deleted or its creator left it since: that request is
 * done with, and only a new key creates a new group.
 */
export async function groupCreatedWithKey(store: EventStore, groupId: string, userId: string, details: GroupDetails): Promise<CreatedWithKey | null> {
  const events = await store.readStream(`group-${groupId}`);
  const created = events.find((e) => e.type === 'GroupCreated')?.data as GroupCreated['data'] | undefined;
  if (!created) return null;
  if (created.createdBy !== userId || created.name !== details.name || created.description !== details.description) {
    throw new DomainError('group.idempotency_key_reused', MESSAGES.keyReused);
  }
  const group = foldGroup(events);
  const userEvents = await store.readStream(`user-${userId}`);
  const leftSince = userEvents.some((e) => e.type === 'MemberLeft' && (e.data as { groupId?: string }).groupId === groupId);
  if (group.deleted || leftSince) throw new DomainError('group.idempotency_key_reused', MESSAGES.keyDone);
  const creatorIn = userEvents.map(joinUpcast).reduce(membershipDecider.evolve, membershipDecider.initialState).groupIds.includes(groupId);
  return { group: { ...created, ...group.details!, inviteCode: group.inviteCode! }, creatorIn };
}
