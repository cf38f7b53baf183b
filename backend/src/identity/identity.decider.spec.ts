import { identityDecider, IdentityEvent, SignIn, userIdFor } from './identity.decider';

const signIn: SignIn = {
  issuer: 'http://localhost:3000/oidc',
  subject: 'ada@example.com',
  email: 'ada@example.com',
  firstName: 'Ada',
  profileImageUrl: null,
};
const given = (events: IdentityEvent[]) => events.reduce(identityDecider.evolve, identityDecider.initialState);

describe('identity decider', () => {
  it('registers a user at the first sign-in, with an id derived from issuer and subject', () => {
    const events = identityDecider.decide(signIn, given([]));
    expect(events).toEqual([
      {
        type: 'UserRegistered',
        data: { userId: userIdFor(signIn.issuer, signIn.subject), issuer: signIn.issuer, subject: signIn.subject, email: 'ada@example.com', firstName: 'Ada', profileImageUrl: null },
      },
    ]);
  });

  it('gives the same subject at another issuer another account', () => {
    expect(userIdFor('https://a.example', 'x')).not.toEqual(userIdFor('https://b.example', 'x'));
  });

  it('records nothing when a registered user signs in again with the same claims', () => {
    const registered = identityDecider.decide(signIn, given([]));
    expect(identityDecider.decide(signIn, given(registered))).toEqual([]);
  });

  it('ignores the other events of the user stream (group memberships)', () => {
    const registered = identityDecider.decide(signIn, given([]));
    const joined = { type: 'MemberJoined', data: { groupId: 'g1', userId: 'u1', role: 'member', joinedAt: '2026-11-20T08:00:00Z' } };
    expect(identityDecider.decide(signIn, given([...registered, joined as unknown as IdentityEvent]))).toEqual([]);
  });

  it('records changed claims as a profile update', () => {
    const registered = identityDecider.decide(signIn, given([]));
    const events = identityDecider.decide({ ...signIn, firstName: 'Augusta' }, given(registered));
    expect(events).toEqual([
      { type: 'UserProfileUpdated', data: { userId: userIdFor(signIn.issuer, signIn.subject), email: 'ada@example.com', firstName: 'Augusta', profileImageUrl: null } },
    ]);
  });
});
