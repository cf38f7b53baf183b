import type { GroupCreated, GroupInviteCodeChanged, GroupRenamed, MemberJoined, MemberLeft, MemberRole } from '../groups/groups.decider';
import type { RecordedEvent } from '../event-store/event-store.port';
import { dataOf, Projector, whenFound } from './projector';

export interface GroupMember {
  userId: string;
  role: MemberRole;
  joinedAt: string;
  /**
   * Global position of the MemberJoined event projected. Not an order across users: after the EventStoreDB
   * personal-data migration and a scavenge, a rebuild sees the copied joins (new positions) after joins that
   * happened later (docs/decisions.md), so members are ordered by `byJoinOrder` instead.
   */
  seq: number;
}

/**
 * The order members are listed in, from the events' data only (never from positions, which a rebuild after the
 * EventStoreDB migration and a scavenge does not keep): the creator first, then by join time (`joinedAt`), then
 * by user id (two joins in the same millisecond). Applying the joins in any order gives the same list.
 */
export function byJoinOrder(a: Pick<GroupMember, 'userId' | 'role' | 'joinedAt'>, b: Pick<GroupMember, 'userId' | 'role' | 'joinedAt'>): number {
  const creator = Number(b.role === 'creator') - Number(a.role === 'creator');
  if (creator !== 0) return creator;
  const time = instant(a.joinedAt) - instant(b.joinedAt);
  if (time !== 0) return time;
  return a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0;
}

/** Milliseconds since the epoch of an ISO-8601 time (0 when unreadable: listed first, in user id order). */
function instant(iso: string): number {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? 0 : ms;
}

export interface GroupDoc {
  id: string;
  name: string;
  description: string | null;
  /** The code that opens the group now: the creation's, then the owner's latest new one. */
  inviteCode: string;
  createdAt: string;
  createdBy: string;
  /** The creator first, then in the order they joined (`byJoinOrder`). */
  members: GroupMember[];
}

export interface MembershipsDoc {
  userId: string;
  /**
   * In the order the user joined them (the order of their `user-<id>` stream, which the EventStoreDB migration's
   * copies keep; `seq` is the position of the join projected, so it changes when a rebuild sees the copies).
   */
  groups: (Omit<GroupMember, 'userId'> & { groupId: string })[];
  /**
   * The groups whose owner removed the user, the latest last (at most `REMOVALS_KEPT`): told on their Groups page,
   * since the group just disappears from their list otherwise. Dropped when they join that group again.
   */
  removedFrom?: GroupRemoval[];
}

export interface GroupRemoval {
  groupId: string;
  /** The group's name when they were removed. */
  groupName: string;
  removedAt: string;
}

/** Enough for any notice still worth showing (the API answers those of the last 30 days). */
export const REMOVALS_KEPT = 10;

/**
 * groups: one document per group, keyed by group id, with its name and description as last renamed, its current
 * invite code and its members
 * (a member who left or was removed is dropped; a deleted group's document is gone), listed in
 * `byJoinOrder`: the same whether the joins are seen in the order they happened or, after the EventStoreDB
 * migration and a scavenge, the copied ones after later joins of other users.
 */
export const groupsProjector: Projector<GroupDoc> = {
  collection: 'groups',
  eventTypes: ['GroupCreated', 'GroupRenamed', 'GroupInviteCodeChanged', 'GroupDeleted', 'MemberJoined', 'MemberLeft'],
  ids: (event) => [dataOf<{ groupId: string }>(event).groupId],
  evolve(doc, event) {
    if (event.type === 'GroupDeleted') return null;
    if (event.type === 'GroupCreated') {
      const d = dataOf<GroupCreated['data']>(event);
      return {
        id: d.groupId,
        name: d.name,
        description: d.description,
        inviteCode: d.inviteCode,
        createdAt: d.createdAt,
        createdBy: d.createdBy,
        members: doc?.members ?? [],
      };
    }
    // GroupCreated always precedes a group's MemberJoined in the global order (a join reads the group first).
    if (!doc) return null;
    if (event.type === 'GroupRenamed') {
      const { name, description } = dataOf<GroupRenamed['data']>(event);
      return { ...doc, name, description };
    }
    if (event.type === 'GroupInviteCodeChanged') return { ...doc, inviteCode: dataOf<GroupInviteCodeChanged['data']>(event).inviteCode };
    if (event.type === 'MemberLeft') {
      const left = dataOf<MemberLeft['data']>(event);
      return { ...doc, members: doc.members.filter((m) => m.userId !== left.userId) };
    }
    const d = dataOf<MemberJoined['data']>(event);
    // A current member's join applied again (a copy made by the EventStoreDB migration) changes nothing.
    if (doc.members.some((m) => m.userId === d.userId)) return doc;
    const joined: GroupMember = { userId: d.userId, role: d.role, joinedAt: d.joinedAt ?? event.metadata.occurredAt, seq: event.position };
    return { ...doc, members: [...doc.members, joined].sort(byJoinOrder) };
  },
};

/**
 * A per-user document with the groups the user belongs to, after MemberLeft (the group gone from `groups`) or
 * UserDeleted (the document gone).
 */
export function withoutMembership<T extends { groups: readonly { groupId: string }[] }>(doc: T | null, event: RecordedEvent): T | null {
  if (event.type === 'UserDeleted' || !doc) return null;
  const left = dataOf<MemberLeft['data']>(event);
  return { ...doc, groups: doc.groups.filter((g) => g.groupId !== left.groupId) };
}

/**
 * memberships: per user, the groups they belong to and the latest groups their owner removed them from, keyed by user
 * id; deleted with the account. Its context is the name of the group an owner removed them from (the group's
 * document, after this MemberLeft took them off its members).
 */
export const membershipsProjector: Projector<MembershipsDoc, string | null> = {
  collection: 'memberships',
  eventTypes: ['MemberJoined', 'MemberLeft', 'UserDeleted'],
  ids: (event) => [dataOf<{ userId: string }>(event).userId],
  context(event, lookup) {
    if (event.type !== 'MemberLeft' || dataOf<MemberLeft['data']>(event).reason !== 'removed') return null;
    return whenFound(lookup<GroupDoc>(groupsProjector.collection, dataOf<MemberLeft['data']>(event).groupId), (group) => group?.name ?? null);
  },
  evolve(doc, event, removedFromName) {
    if (event.type === 'UserDeleted') return null;
    if (event.type === 'MemberLeft') {
      const after = withoutMembership(doc, event);
      if (!after || removedFromName === null) return after;
      const { groupId, leftAt } = dataOf<MemberLeft['data']>(event);
      const removal: GroupRemoval = { groupId, groupName: removedFromName, removedAt: leftAt };
      return { ...after, removedFrom: [...(after.removedFrom ?? []).filter((r) => r.groupId !== groupId), removal].slice(-REMOVALS_KEPT) };
    }
    const d = dataOf<MemberJoined['data']>(event);
    const groups = doc?.groups ?? [];
    if (groups.some((g) => g.groupId === d.groupId)) return doc;
    const removedFrom = doc?.removedFrom?.filter((r) => r.groupId !== d.groupId);
    return {
      userId: d.userId,
      groups: [...groups, { groupId: d.groupId, role: d.role, joinedAt: d.joinedAt ?? event.metadata.occurredAt, seq: event.position }],
      ...(removedFrom?.length ? { removedFrom } : {}),
    };
  },
};
