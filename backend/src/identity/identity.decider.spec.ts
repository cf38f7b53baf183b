import { expectRefusal } from '../testing/refusals';
import {
  IDENTITY_MESSAGES,
  identityDecider,
  identityLinkDecider,
  IdentityLinkEvent,
  SignIn,
  unlinkEvents,
  userIdFor,
  UserStreamEvent,
} from './identity.decider';

const signIn: SignIn = {
  type: 'SignIn',
  userId: 'u-ada',
  issuer: 'http://localhost:3000/oidc',
  subject: 'ada@example.com',
  email: 'ada@example.com',
  firstName: 'Ada',
  profileImageUrl: null,
};
const given = (events: UserStreamEvent[]) => events.reduce(identityDecider.evolve, identityDecider.initialState);
const joined = (groupId: string): UserStreamEvent => ({
  type: 'MemberJoined',
  data: { groupId, userId: 'u-ada', role: 'member', joinedAt: '2026-11-20T08:00:00.000Z' },
});
const at = new Date('2026-11-21T09:00:00.000Z');

describe('identity decider (the user stream)', () => {
  it('registers the linked account at the first sign-in', () => {
    expect(identityDecider.decide(signIn, given([]))).toEqual([
      {
        type: 'UserRegistered',
        data: { userId: 'u-ada', issuer: signIn.issuer, subject: signIn.subject, email: 'ada@example.com', firstName: 'Ada', profileImageUrl: null },
      },
    ]);
  });

  it('derives the identity hash from issuer and subject (another issuer: another identity)', () => {
    expect(userIdFor('https://a.example', 'x')).not.toEqual(userIdFor('https://b.example', 'x'));
    expect(userIdFor('https://a.example', 'x')).toHaveLength(22);
  });

  it('records nothing when a registered user signs in again with the same claims', () => {
    const registered = identityDecider.decide(signIn, given([]));
    expect(identityDecider.decide(signIn, given(registered))).toEqual([]);
  });

  it('ignores group memberships for the profile', () => {
    const registered = identityDecider.decide(signIn, given([]));
    expect(identityDecider.decide(signIn, given([...registered, joined('g1')]))).toEqual([]);
  });

  it('records changed claims as a profile update', () => {
    const registered = identityDecider.decide(signIn, given([]));
    expect(identityDecider.decide({ ...signIn, firstName: 'Augusta' }, given(registered))).toEqual([
      { type: 'UserProfileUpdated', data: { userId: 'u-ada', email: 'ada@example.com', firstName: 'Augusta', profileImageUrl: null } },
    ]);
  });

  describe('deleting the account', () => {
    it('leaves every group it is still in, then records the deletion', () => {
      const registered = identityDecider.decide(signIn, given([]));
      const left: UserStreamEvent = { type: 'MemberLeft', data: { groupId: 'g1', userId: 'u-ada', reason: 'account_deleted', leftAt: at.toISOString() } };
      const state = given([...registered, joined('g1'), joined('g2'), left, joined('g3')]);
      expect(identityDecider.decide({ type: 'DeleteAccount', userId: 'u-ada', at }, state)).toEqual([
        { type: 'MemberLeft', data: { groupId: 'g2', userId: 'u-ada', reason: 'account_deleted', leftAt: '2026-11-21T09:00:00.000Z' } },
        { type: 'MemberLeft', data: { groupId: 'g3', userId: 'u-ada', reason: 'account_deleted', leftAt: '2026-11-21T09:00:00.000Z' } },
        { type: 'UserDeleted', data: { userId: 'u-ada', deletedAt: '2026-11-21T09:00:00.000Z' } },
      ]);
    });

    it('keeps nothing personal in the folded state afterwards, and a second deletion appends nothing', () => {
      const registered = identityDecider.decide(signIn, given([]));
      const deleted = identityDecider.decide({ type: 'DeleteAccount', userId: 'u-ada', at }, given(registered));
      const state = given([...registered, ...deleted]);
      expect(state).toMatchObject({ deleted: true, email: null, firstName: null, subject: null, groupIds: [] });
      expect(identityDecider.decide({ type: 'DeleteAccount', userId: 'u-ada', at }, state)).toEqual([]);
    });

    it('refuses to sign in to a deleted account, and to delete an account that was never registered', () => {
      const registered = identityDecider.decide(signIn, given([]));
      const deleted = identityDecider.decide({ type: 'DeleteAccount', userId: 'u-ada', at }, given(registered));
      expectRefusal(() => identityDecider.decide(signIn, given([...registered, ...deleted])), { kind: 'conflict', code: 'account.deleted', message: IDENTITY_MESSAGES.deleted });
      expectRefusal(() => identityDecider.decide({ type: 'DeleteAccount', userId: 'u-x', at }, given([])), { kind: 'not_found', code: 'account.not_found', message: IDENTITY_MESSAGES.notRegistered });
    });
  });
});

describe('identity link decider (identity-<hash>)', () => {
  const link = (events: IdentityLinkEvent[]) => events.reduce(identityLinkDecider.evolve, identityLinkDecider.initialState);

  it('links the candidate at the first sign-in, and nothing more afterwards', () => {
    const linked = identityLinkDecider.decide({ candidateUserId: 'legacy', at }, link([]));
    expect(linked).toEqual([{ type: 'IdentityLinked', data: { userId: 'legacy', linkedAt: '2026-11-21T09:00:00.000Z' } }]);
    expect(identityLinkDecider.decide({ candidateUserId: 'other', at }, link(linked))).toEqual([]);
    expect(link(linked).userId).toBe('legacy');
  });

  it('after a deletion, links a NEW account, never the deleted one again', () => {
    const linked = identityLinkDecider.decide({ candidateUserId: 'legacy', at }, link([]));
    const unlinked = unlinkEvents(link(linked), 'legacy', at);
    expect(unlinked).toEqual([{ type: 'IdentityUnlinked', data: { userId: 'legacy', reason: 'account_deleted', unlinkedAt: '2026-11-21T09:00:00.000Z' } }]);
    const state = link([...linked, ...unlinked]);
    expect(state.userId).toBeNull();
    const relinked = identityLinkDecider.decide({ candidateUserId: 'legacy', at }, state);
    expect(relinked).toHaveLength(1);
    expect(relinked[0].data.userId).not.toBe('legacy');
    expect(relinked[0].data.userId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(unlinkEvents(state, 'legacy', at)).toEqual([]); // unlinking twice: nothing
  });
});
