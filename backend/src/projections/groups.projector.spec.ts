import { GetGroupMembersHandler, GetGroupMembersQuery, GetMyGroupsHandler, GetMyGroupsQuery, GetMyRemovalsHandler, GetMyRemovalsQuery } from '../groups/groups.queries';
import type { KeyStore } from '../identity/key-store';
import { InMemoryReadModelStore } from '../read-models/in-memory-read-model-store';
import { recorded } from '../testing/events';
import { applyEvent } from './pipeline/applier';
import { PROJECTIONS } from './projections';

const groups = PROJECTIONS.find((p) => p.name === 'groups')!;
const created = recorded('GroupCreated', { groupId: 'g1', name: 'Family', description: null, inviteCode: 'ABCD2345', createdBy: 'ada', createdAt: '2026-11-20T08:00:00.000Z' }, 1);
const adaJoined = recorded('MemberJoined', { groupId: 'g1', userId: 'ada', role: 'creator', joinedAt: '2026-11-20T08:00:00.000Z' }, 2);
const bobJoined = recorded('MemberJoined', { groupId: 'g1', userId: 'bob', inviteCode: 'ABCD2345', role: 'member', joinedAt: '2026-11-20T09:00:00.000Z' }, 3);
const created2 = recorded('GroupCreated', { groupId: 'g2', name: 'Friends', description: 'Weekend', inviteCode: 'EFGH6789', createdBy: 'bob', createdAt: '2026-11-21T08:00:00.000Z' }, 4);
const bobCreator2 = recorded('MemberJoined', { groupId: 'g2', userId: 'bob', role: 'creator', joinedAt: '2026-11-21T08:00:00.000Z' }, 5);
const events = [created, adaJoined, bobJoined, created2, bobCreator2];

async function project(store: InMemoryReadModelStore) {
  for (const e of events) await applyEvent(store, groups, e);
}
const snapshot = async (store: InMemoryReadModelStore) => ({
  g1: await store.get('groups', 'g1'),
  g2: await store.get('groups', 'g2'),
  ada: await store.get('memberships', 'ada'),
  bob: await store.get('memberships', 'bob'),
});

describe('groups projection', () => {
  it('keeps each group with its members in joining order, and each user’s memberships', async () => {
    const store = new InMemoryReadModelStore();
    await project(store);
    expect(await store.get('groups', 'g1')).toEqual({
      _id: 'g1', _position: 3,
      id: 'g1', name: 'Family', description: null, inviteCode: 'ABCD2345', createdAt: '2026-11-20T08:00:00.000Z', createdBy: 'ada',
      members: [
        { userId: 'ada', role: 'creator', joinedAt: '2026-11-20T08:00:00.000Z', seq: 2 },
        { userId: 'bob', role: 'member', joinedAt: '2026-11-20T09:00:00.000Z', seq: 3 },
      ],
    });
    expect(await store.get('memberships', 'bob')).toMatchObject({
      userId: 'bob',
      groups: [
        { groupId: 'g1', role: 'member', joinedAt: '2026-11-20T09:00:00.000Z', seq: 3 },
        { groupId: 'g2', role: 'creator', joinedAt: '2026-11-21T08:00:00.000Z', seq: 5 },
      ],
    });
    expect(await store.get('memberships', 'ada')).toMatchObject({ groups: [{ groupId: 'g1', role: 'creator' }] });
  });

  it('gives the same documents when the events are applied twice', async () => {
    const store = new InMemoryReadModelStore();
    await project(store);
    const once = await snapshot(store);
    await project(store);
    expect(await snapshot(store)).toEqual(once);
  });

  it('lists a member once even if a join were recorded twice', async () => {
    const store = new InMemoryReadModelStore();
    await project(store);
    await applyEvent(store, groups, { ...bobJoined, position: 6 });
    expect(((await store.get('groups', 'g1')) as unknown as { members: unknown[] }).members).toHaveLength(2);
    expect(((await store.get('memberships', 'bob')) as unknown as { groups: unknown[] }).groups).toHaveLength(2);
  });

  it('lists members by join time, the creator first, whatever order the joins are projected in', async () => {
    // After the EventStoreDB migration and a scavenge, a rebuild sees the copy of an older join (a later position)
    // after a newer join of another user: here Ada's (the creator's) and Cleo's after Bob's.
    const cleoJoined = recorded('MemberJoined', { groupId: 'g1', userId: 'cleo', role: 'member', joinedAt: '2026-11-20T08:30:00.000Z' }, 3);
    const inOrder = new InMemoryReadModelStore();
    for (const e of [created, adaJoined, cleoJoined, { ...bobJoined, position: 4 }]) await applyEvent(inOrder, groups, e);
    const copiesLast = new InMemoryReadModelStore();
    for (const e of [created, bobJoined, { ...adaJoined, position: 10 }, { ...cleoJoined, position: 11 }]) await applyEvent(copiesLast, groups, e);
    const order = async (store: InMemoryReadModelStore) =>
      ((await store.get('groups', 'g1')) as unknown as { members: { userId: string }[] }).members.map((m) => m.userId);
    expect(await order(inOrder)).toEqual(['ada', 'cleo', 'bob']);
    expect(await order(copiesLast)).toEqual(['ada', 'cleo', 'bob']);
  });

  it('the queries list members by join time, also from a document kept in position order, and my groups newest first', async () => {
    const store = new InMemoryReadModelStore();
    await project(store);
    // A document projected by an older version after a scavenge: the creator's copied join last.
    const g1 = (await store.get('groups', 'g1')) as unknown as { members: object[] };
    await store.put('groups', 'g1', { ...g1, members: [...g1.members].reverse() }, 99);
    const keys = { existingKey: async () => null } as unknown as KeyStore;
    const members = await new GetGroupMembersHandler(store, keys).execute(new GetGroupMembersQuery('bob', 'g1'));
    expect(members.map((m) => m.id)).toEqual(['ada', 'bob']);
    // Bob's memberships in the order of his stream: the newest (g2) first, whatever their positions.
    const bob = (await store.get('memberships', 'bob')) as unknown as { groups: { seq: number }[] };
    await store.put('memberships', 'bob', { ...bob, groups: bob.groups.map((g, i) => ({ ...g, seq: 100 - i })) }, 99);
    expect((await new GetMyGroupsHandler(store).execute(new GetMyGroupsQuery('bob'))).map((g) => g.id)).toEqual(['g2', 'g1']);
  });

  it('shows the new invite code to every member, in the group and in their lists', async () => {
    const store = new InMemoryReadModelStore();
    await project(store);
    await applyEvent(store, groups, recorded('GroupInviteCodeChanged', { groupId: 'g1', inviteCode: 'WXYZ6789', changedBy: 'ada', changedAt: '2026-11-22T08:00:00.000Z' }, 6));
    expect(await store.get('groups', 'g1')).toMatchObject({ inviteCode: 'WXYZ6789', name: 'Family', members: [{ userId: 'ada' }, { userId: 'bob' }] });
    expect(await store.get('groups', 'g2')).toMatchObject({ inviteCode: 'EFGH6789' });
    const bobsList = await new GetMyGroupsHandler(store).execute(new GetMyGroupsQuery('bob'));
    expect(bobsList.map((g) => [g.id, g.inviteCode])).toEqual([['g2', 'EFGH6789'], ['g1', 'WXYZ6789']]);
  });

  it('follows a rename, and drops a deleted group (its members\' lists skip it)', async () => {
    const store = new InMemoryReadModelStore();
    await project(store);
    await applyEvent(store, groups, recorded('GroupRenamed', { groupId: 'g1', name: 'The Family', description: 'Sundays', renamedBy: 'ada', renamedAt: '2026-11-22T08:00:00.000Z' }, 6));
    expect(await store.get('groups', 'g1')).toMatchObject({ name: 'The Family', description: 'Sundays', members: [{ userId: 'ada' }, { userId: 'bob' }] });
    await applyEvent(store, groups, recorded('GroupDeleted', { groupId: 'g1', deletedBy: 'ada', deletedAt: '2026-11-22T09:00:00.000Z' }, 7));
    expect(await store.get('groups', 'g1')).toBeNull();
    const list = await new GetMyGroupsHandler(store).execute(new GetMyGroupsQuery('bob'));
    expect(list.map((g) => g.id)).toEqual(['g2']);
  });

  it('keeps the groups an owner removed a person from, by their name then, until they join again; not those they left', async () => {
    const store = new InMemoryReadModelStore();
    await project(store);
    const removals = (now = '2026-11-23T10:00:00.000Z') => new GetMyRemovalsHandler(store).execute(new GetMyRemovalsQuery('bob', new Date(now)));
    await applyEvent(store, groups, recorded('GroupRenamed', { groupId: 'g1', name: 'The Family', description: null, renamedBy: 'ada', renamedAt: '2026-11-22T08:00:00.000Z' }, 6));
    await applyEvent(store, groups, recorded('MemberRemoved', { groupId: 'g1', userId: 'bob', removedBy: 'ada', removedAt: '2026-11-22T09:00:00.000Z' }, 7));
    const removed = recorded('MemberLeft', { groupId: 'g1', userId: 'bob', reason: 'removed', leftAt: '2026-11-22T09:00:00.000Z' }, 8);
    await applyEvent(store, groups, removed);
    // Renamed after: the notice keeps the name Bob knew.
    await applyEvent(store, groups, recorded('GroupRenamed', { groupId: 'g1', name: 'Cousins', description: null, renamedBy: 'ada', renamedAt: '2026-11-22T10:00:00.000Z' }, 9));
    expect(await removals()).toEqual([{ groupId: 'g1', groupName: 'The Family', removedAt: '2026-11-22T09:00:00.000Z', groupDeleted: false }]);
    expect((await new GetMyGroupsHandler(store).execute(new GetMyGroupsQuery('bob'))).map((g) => g.id)).toEqual(['g2']);
    // Applied twice: still one.
    await applyEvent(store, groups, { ...removed, position: 10 });
    expect(await removals()).toHaveLength(1);
    // Told for 30 days.
    expect(await removals('2026-12-22T08:59:59.000Z')).toHaveLength(1);
    expect(await removals('2026-12-22T09:00:01.000Z')).toEqual([]);
    // Leaving a group of one's own accord is no removal; joining the group again ends the notice.
    await applyEvent(store, groups, recorded('MemberLeft', { groupId: 'g2', userId: 'bob', reason: 'left', leftAt: '2026-11-22T11:00:00.000Z' }, 11));
    expect((await removals()).map((r) => r.groupId)).toEqual(['g1']);
    await applyEvent(store, groups, recorded('MemberJoined', { groupId: 'g1', userId: 'bob', inviteCode: 'NEWC2345', role: 'member', joinedAt: '2026-11-22T12:00:00.000Z' }, 12));
    expect(await removals()).toEqual([]);
    expect(await store.get('memberships', 'bob')).not.toHaveProperty('removedFrom');
  });

  it('keeps the latest 10 removals, newest first, and none once the account is deleted', async () => {
    const store = new InMemoryReadModelStore();
    let position = 1;
    for (let i = 0; i < 12; i++) {
      const [groupId, at] = [`g${i}`, `2026-11-${String(10 + i).padStart(2, '0')}T08:00:00.000Z`];
      await applyEvent(store, groups, recorded('GroupCreated', { groupId, name: `Group ${i}`, description: null, inviteCode: `CODE${i}`, createdBy: 'ada', createdAt: at }, position++));
      await applyEvent(store, groups, recorded('MemberJoined', { groupId, userId: 'bob', role: 'member', joinedAt: at }, position++));
      await applyEvent(store, groups, recorded('MemberLeft', { groupId, userId: 'bob', reason: 'removed', leftAt: at }, position++));
    }
    const list = await new GetMyRemovalsHandler(store).execute(new GetMyRemovalsQuery('bob', new Date('2026-11-23T00:00:00.000Z')));
    expect(list.map((r) => r.groupName)).toEqual(['Group 11', 'Group 10', 'Group 9', 'Group 8', 'Group 7', 'Group 6', 'Group 5', 'Group 4', 'Group 3', 'Group 2']);
    // Nobody is left in these groups: they cannot be joined again, and the notice says so.
    expect(list.every((r) => r.groupDeleted)).toBe(true);
    await applyEvent(store, groups, recorded('UserDeleted', { userId: 'bob' }, position++));
    expect(await store.get('memberships', 'bob')).toBeNull();
  });
});
