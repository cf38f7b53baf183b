import { expectRefusal } from '../testing/refusals';
import {
  generateInviteCode,
  groupDecider,
  INVITE_CODE_ALPHABET,
  isWellFormedInviteCode,
  JoinGroup,
  leaveDecider,
  MemberJoined,
  membershipDecider,
  MESSAGES,
  normalizeInviteCode,
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
    expect(groupDecider.decide(create('Family', description), fresh)[0].data.description).toBeNull();
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

  it('are entered case-insensitively, spaces around ignored', () => {
    expect(normalizeInviteCode('  abcd2345 ')).toBe('ABCD2345');
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
