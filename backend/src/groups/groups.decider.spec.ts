import { normalizeInviteCode } from '@joy/domain';
import { expectRefusal } from '../testing/refusals';
import {
  generateInviteCode,
  GroupCreated,
  groupDecider,
  GroupState,
  INVITE_CODE_ALPHABET,
  isWellFormedInviteCode,
  JoinGroup,
  leaveDecider,
  MemberJoined,
  membershipDecider,
  MESSAGES,
  OwnerAction,
  ownerDecider,
  ownerOf,
  removedWithThisCode,
} from './groups.decider';

const at = new Date('2026-11-20T08:30:00.000Z');
const joined = (groupId: string, role: 'creator' | 'member' = 'member'): MemberJoined => ({
  type: 'MemberJoined',
  data: { groupId, userId: 'u1', role, joinedAt: at.toISOString() },
});
/** The user's stream: identity events too, which the membership decider ignores. */
const given = (events: (MemberJoined | { type: 'UserRegistered'; data: object })[]) =>
  events.reduce((s, e) => membershipDecider.evolve(s, e as MemberJoined), membershipDecider.initialState);
const join = (groupId: string, extra: Partial<JoinGroup> = {}): JoinGroup => ({
  groupId, userId: 'u1', inviteCode: 'ABCD2345', role: 'member', isPremium: false, at, ...extra,
});
const registered = { type: 'UserRegistered' as const, data: { userId: 'u1', email: 'ada@example.com' } };

describe('membership decider (the user stream)', () => {
  it('records a join with the code used and the role', () => {
    expect(membershipDecider.decide(join('g1'), given([registered]))).toEqual([
      { type: 'MemberJoined', data: { groupId: 'g1', userId: 'u1', inviteCode: 'ABCD2345', role: 'member', joinedAt: at.toISOString() } },
    ]);
  });

  it('records the creator without an invite code', () => {
    expect(membershipDecider.decide(join('g1', { inviteCode: undefined, role: 'creator' }), given([]))[0].data).toEqual({
      groupId: 'g1', userId: 'u1', role: 'creator', joinedAt: at.toISOString(),
    });
  });

  it('refuses a second membership of the same group with 409', () => {
    expectRefusal(() => membershipDecider.decide(join('g1'), given([registered, joined('g1', 'creator')])), {
      kind: 'conflict',
      code: 'group.already_member',
      message: MESSAGES.alreadyMember,
    });
  });

  it('lets a free user be in 3 groups, created and joined together', () => {
    const state = given([registered, joined('g1', 'creator'), joined('g2')]);
    expect(membershipDecider.decide(join('g3'), state)).toHaveLength(1);
  });

  it('refuses a free user a 4th group with 403, whether created or joined', () => {
    const state = given([registered, joined('g1', 'creator'), joined('g2'), joined('g3', 'creator')]);
    for (const role of ['member', 'creator'] as const) {
      expectRefusal(() => membershipDecider.decide(join('g4', { role }), state), { kind: 'forbidden', code: 'plan.group_limit', message: MESSAGES.freePlanLimit });
    }
    expect(MESSAGES.freePlanLimit).toBe('Free plan allows up to 3 groups. Upgrade to Joy Premium for unlimited groups.');
  });

  it('says "already a member" before the limit when both apply', () => {
    const state = given([joined('g1'), joined('g2'), joined('g3')]);
    expectRefusal(() => membershipDecider.decide(join('g2'), state), { kind: 'conflict', code: 'group.already_member', message: MESSAGES.alreadyMember });
  });

  it('gives a premium user unlimited groups', () => {
    const state = given(Array.from({ length: 12 }, (_, i) => joined(`g${i}`)));
    expect(membershipDecider.decide(join('g99', { isPremium: true }), state)).toHaveLength(1);
  });

  it('counts a replayed membership once', () => {
    expect(given([joined('g1'), joined('g1')]).groupIds).toEqual(['g1']);
  });
});

describe('group decider (the group stream)', () => {
  const create = (name: unknown, description?: unknown) => ({
    groupId: 'g1', name, description, inviteCode: 'ABCD2345', createdBy: 'u1', at,
  });
  const fresh = groupDecider.initialState;

  it('creates a group with trimmed name and description', () => {
    expect(groupDecider.decide(create('  Family  ', '  Sunday calls '), fresh)).toEqual([
      {
        type: 'GroupCreated',
        data: { groupId: 'g1', name: 'Family', description: 'Sunday calls', inviteCode: 'ABCD2345', createdBy: 'u1', createdAt: at.toISOString() },
      },
    ]);
  });

  it.each([undefined, null, '', '   '])('stores a missing or blank description (%p) as null', (description) => {
    expect((groupDecider.decide(create('Family', description), fresh)[0].data as GroupCreated['data']).description).toBeNull();
  });

  it('accepts a name of exactly 80 and a description of exactly 500 characters', () => {
    expect(groupDecider.decide(create('n'.repeat(80), 'd'.repeat(500)), fresh)).toHaveLength(1);
  });

  it.each([
    ['a blank name', create('   '), 'group.name_required', MESSAGES.nameRequired],
    ['a missing name', create(undefined), 'group.name_required', MESSAGES.nameRequired],
    ['a name that is not text', create(42), 'group.name_required', MESSAGES.nameRequired],
    ['a name of 81 characters', create(' ' + 'n'.repeat(81) + ' '), 'group.name_too_long', MESSAGES.nameTooLong],
    ['a description of 501 characters', create('Family', 'd'.repeat(501)), 'group.description_too_long', MESSAGES.descriptionTooLong],
    ['a description that is not text', create('Family', 7), 'group.description_not_text', 'description must be a string'],
  ] as const)('refuses %s with 400', (_label, command, code, message) => {
    expectRefusal(() => groupDecider.decide(command, fresh), { kind: 'invalid', code, message });
  });

  it('never creates the same group twice', () => {
    const state = groupDecider.decide(create('Family'), fresh).reduce(
      (s, e) => groupDecider.evolve(s, e),
      fresh,
    );
    expectRefusal(() => groupDecider.decide(create('Family'), state), { kind: 'conflict', code: 'group.already_exists' });
  });
});

describe('invite codes', () => {
  it('are 8 characters from an alphabet without look-alikes', () => {
    expect(INVITE_CODE_ALPHABET).not.toMatch(/[01OIL]/);
    const codes = Array.from({ length: 500 }, generateInviteCode);
    for (const code of codes) expect(code).toMatch(/^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{8}$/);
    expect(new Set(codes).size).toBe(codes.length);
    expect(new Set(codes.join('')).size).toBeGreaterThan(25); // the whole alphabet is used
  });

  it('are entered case-insensitively, spaces and dashes anywhere ignored', () => {
    expect(normalizeInviteCode('  abcd2345 ')).toBe('ABCD2345');
    for (const written of ['XCFF-UCGQ', 'xcff ucgq', ' XCFF - UCGQ ', 'XC-FF-UC-GQ', 'XCFF\u2013UCGQ', 'XCFF\tUCGQ']) {
      expect(normalizeInviteCode(written)).toBe('XCFFUCGQ');
    }
    expect(normalizeInviteCode('XCFF_UCGQ')).toBe('XCFF_UCGQ'); // anything else is kept, and then not found
    expect(isWellFormedInviteCode(normalizeInviteCode('abcd2345'))).toBe(true);
    expect(isWellFormedInviteCode('ABCD0345')).toBe(false);
    expect(isWellFormedInviteCode('ABCD234')).toBe(false);
  });
});

describe('leave decider (the user stream)', () => {
  const leave = (groupId: string) => ({ groupId, userId: 'u1', at });
  it('records that a member left, and the place is free again', () => {
    const events = leaveDecider.decide(leave('g1'), given([joined('g1', 'creator'), joined('g2')]));
    expect(events).toEqual([{ type: 'MemberLeft', data: { groupId: 'g1', userId: 'u1', reason: 'left', leftAt: at.toISOString() } }]);
    expect(events.reduce(leaveDecider.evolve, given([joined('g1', 'creator'), joined('g2')])).groupIds).toEqual(['g2']);
  });
  it('refuses anyone who is not a member with the same 404 as a missing group', () => {
    for (const state of [given([joined('g2')]), given([])]) {
      expectRefusal(() => leaveDecider.decide(leave('g1'), state), { kind: 'not_found', code: 'group.not_found', message: MESSAGES.groupNotFound });
    }
  });
});

describe('the owner of a group (ownerDecider)', () => {
  const live: GroupState = { created: true, deleted: false, details: { name: 'Family', description: 'Us' }, inviteCode: 'ABCD2345', removedWithCode: {} };
  // In join order: the creator (owner) first, then the longest-standing member.
  const members = ['owner', 'ann', 'bob'];
  const action = (a: Partial<OwnerAction> & Pick<OwnerAction, 'kind'>, actorId = 'owner') =>
    ({ groupId: 'g1', actorId, membersInJoinOrder: members, at, ...a }) as OwnerAction;

  it('is the first member in join order: the creator, then the longest-standing member', () => {
    expect(ownerOf(members)).toBe('owner');
    expect(ownerOf(['ann', 'bob'])).toBe('ann');
    expect(ownerOf([])).toBeNull();
  });

  it('renames: name and description checked as at creation; an absent field stays', () => {
    expect(ownerDecider.decide(action({ kind: 'rename', name: '  Cousins ' }), live)).toEqual([
      { type: 'GroupRenamed', data: { groupId: 'g1', name: 'Cousins', description: 'Us', renamedBy: 'owner', renamedAt: at.toISOString() } },
    ]);
    expect(ownerDecider.decide(action({ kind: 'rename', description: '' }), live)[0].data).toMatchObject({ name: 'Family', description: null });
    expectRefusal(() => ownerDecider.decide(action({ kind: 'rename', name: ' ' }), live), { kind: 'invalid', code: 'group.name_required' });
    expectRefusal(() => ownerDecider.decide(action({ kind: 'rename', name: 'x'.repeat(81) }), live), { kind: 'invalid', code: 'group.name_too_long' });
    expectRefusal(() => ownerDecider.decide(action({ kind: 'rename' }), live), { kind: 'invalid', code: 'group.nothing_to_change' });
    expect(ownerDecider.decide(action({ kind: 'rename', name: 'Family' }), live)).toEqual([]);
  });

  it('refuses members who are not the owner (403) and everyone else, or any deleted group, with the 404 of a missing group', () => {
    for (const kind of ['rename', 'remove', 'changeInviteCode', 'delete'] as const) {
      expectRefusal(() => ownerDecider.decide(action({ kind, name: 'X', userId: 'bob' } as never, 'ann'), live), { kind: 'forbidden', code: 'group.owner_only' });
      expectRefusal(() => ownerDecider.decide(action({ kind, name: 'X', userId: 'bob' } as never, 'stranger'), live), { kind: 'not_found', code: 'group.not_found' });
      expectRefusal(() => ownerDecider.decide(action({ kind, name: 'X', userId: 'bob' } as never), { ...live, deleted: true }), { kind: 'not_found', code: 'group.not_found' });
    }
  });

  it('removes a member, never themselves nor a non-member', () => {
    expect(ownerDecider.decide(action({ kind: 'remove', userId: 'bob' }), live)).toEqual([
      { type: 'MemberRemoved', data: { groupId: 'g1', userId: 'bob', removedBy: 'owner', removedAt: at.toISOString() } },
    ]);
    expectRefusal(() => ownerDecider.decide(action({ kind: 'remove', userId: 'owner' }), live), { kind: 'invalid', code: 'group.cannot_remove_self' });
    expectRefusal(() => ownerDecider.decide(action({ kind: 'remove', userId: 'zed' }), live), { kind: 'not_found', code: 'group.member_not_found' });
  });

  it('keeps a removed member out with the code the group had then; a new code lets them back', () => {
    const removed = ownerDecider.decide(action({ kind: 'remove', userId: 'bob' }), live).reduce(ownerDecider.evolve, live);
    expect(removedWithThisCode(removed, 'bob', 'ABCD2345')).toBe(true);
    expect(removedWithThisCode(removed, 'ann', 'ABCD2345')).toBe(false);
    const newCode = ownerDecider.decide(action({ kind: 'changeInviteCode', inviteCode: 'WXYZ6789' }), removed).reduce(ownerDecider.evolve, removed);
    expect(removedWithThisCode(newCode, 'bob', 'WXYZ6789')).toBe(false);
    // Not fooled by a user id that names a property every object has.
    expect(removedWithThisCode(live, 'constructor', 'ABCD2345')).toBe(false);
  });

  it('gives the group a new invite code, the one its stream names from then on', () => {
    const created: GroupCreated = {
      type: 'GroupCreated',
      data: { groupId: 'g1', name: 'Family', description: 'Us', inviteCode: 'ABCD2345', createdBy: 'owner', createdAt: at.toISOString() },
    };
    const state = ownerDecider.evolve(ownerDecider.initialState, created);
    expect(state.inviteCode).toBe('ABCD2345');
    const [changed] = ownerDecider.decide(action({ kind: 'changeInviteCode', inviteCode: 'WXYZ6789' }), state);
    expect(changed).toEqual({ type: 'GroupInviteCodeChanged', data: { groupId: 'g1', inviteCode: 'WXYZ6789', changedBy: 'owner', changedAt: at.toISOString() } });
    expect(ownerDecider.evolve(state, changed)).toEqual({ ...state, inviteCode: 'WXYZ6789' });
  });

  it('deletes, after which the stream refuses everything', () => {
    const [deleted] = ownerDecider.decide(action({ kind: 'delete' }), live);
    expect(deleted).toEqual({ type: 'GroupDeleted', data: { groupId: 'g1', deletedBy: 'owner', deletedAt: at.toISOString() } });
    expect(ownerDecider.evolve(live, deleted).deleted).toBe(true);
  });
});

describe('a deleted group takes no place under the free plan', () => {
  it('is not counted by the membership decider', () => {
    const state = { groupIds: ['a', 'b', 'c'] };
    const join: JoinGroup = { groupId: 'd', userId: 'u1', role: 'member', isPremium: false, at };
    expectRefusal(() => membershipDecider.decide(join, state), { kind: 'forbidden', code: 'plan.group_limit' });
    expect(membershipDecider.decide({ ...join, deletedGroupIds: ['b'] }, state)).toHaveLength(1);
  });
});
