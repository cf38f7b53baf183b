import type { GroupCreated, MemberJoined, MemberLeft, MemberRole } from '../groups/groups.decider';
import { dataOf, Projector } from './projector';

export interface GroupMember {
  userId: string;
  role: MemberRole;
  joinedAt: string;
  /** Global position of the MemberJoined event: orders memberships without ties. */
  seq: number;
}

export interface GroupDoc {
  id: string;
  name: string;
  description: string | null;
  inviteCode: string;
  createdAt: string;
  createdBy: string;
  /** In the order they joined; the creator first. */
  members: GroupMember[];
}

export interface MembershipsDoc {
  userId: string;
  /** In the order the user joined them. */
  groups: (Omit<GroupMember, 'userId'> & { groupId: string })[];
}

/** groups: one document per group, keyed by group id, with its members (a member who left is dropped). */
export const groupsProjector: Projector<GroupDoc> = {
  collection: 'groups',
  eventTypes: ['GroupCreated', 'MemberJoined', 'MemberLeft'],
  ids: (event) => [dataOf<{ groupId: string }>(event).groupId],
  evolve(doc, event) {
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
    if (event.type === 'MemberLeft') {
      const left = dataOf<MemberLeft['data']>(event);
      return { ...doc, members: doc.members.filter((m) => m.userId !== left.userId) };
    }
    const d = dataOf<MemberJoined['data']>(event);
    if (doc.members.some((m) => m.userId === d.userId)) return doc;
    return { ...doc, members: [...doc.members, { userId: d.userId, role: d.role, joinedAt: d.joinedAt, seq: event.position }] };
  },
};

/** memberships: per user, the groups they belong to, keyed by user id; deleted with the account. */
export const membershipsProjector: Projector<MembershipsDoc> = {
  collection: 'memberships',
  eventTypes: ['MemberJoined', 'MemberLeft', 'UserDeleted'],
  ids: (event) => [dataOf<{ userId: string }>(event).userId],
  evolve(doc, event) {
    if (event.type === 'UserDeleted') return null;
    if (event.type === 'MemberLeft') {
      if (!doc) return null;
      const left = dataOf<MemberLeft['data']>(event);
      return { ...doc, groups: doc.groups.filter((g) => g.groupId !== left.groupId) };
    }
    const d = dataOf<MemberJoined['data']>(event);
    const groups = doc?.groups ?? [];
    if (groups.some((g) => g.groupId === d.groupId)) return doc;
    return { userId: d.userId, groups: [...groups, { groupId: d.groupId, role: d.role, joinedAt: d.joinedAt, seq: event.position }] };
  },
};
