import { ProviderStorageFullError, providerStorage } from './provider-storage';

describe("the built-in provider's storage", () => {
  let t = 0;
  const clock = () => t;
  beforeEach(() => (t = 1_000_000));

  // A review (11-27): oidc-provider's own store kept 1,000 entries and dropped the oldest, so a flood of anonymous
  // GET /oidc/auth expired every sign-in form that people had open.
  it('never drops an open sign-in form for newer ones: when full, new forms are refused and the open ones keep working', async () => {
    const Adapter = providerStorage(100, clock);
    const forms = new Adapter('Interaction');
    await forms.upsert('mine', { uid: 'mine', returnTo: '/x' }, 3600);
    for (let i = 0; i < 99; i++) await forms.upsert(`flood-${i}`, { uid: `flood-${i}` }, 3600);
    await expect(forms.upsert('flood-99', {}, 3600)).rejects.toBeInstanceOf(ProviderStorageFullError);
    expect(await forms.find('mine')).toEqual({ uid: 'mine', returnTo: '/x' });
    // A sign-in under way still finishes: its session and code are kept.
    await new Adapter('Session').upsert('s1', { uid: 'su1', accountId: 'a' }, 3600);
    expect(await new Adapter('Session').findByUid('su1')).toMatchObject({ accountId: 'a' });
    // Once the flood's forms expire there is room again.
    t += 3601 * 1000;
    await forms.upsert('next', {}, 3600);
    expect(await forms.find('next')).toEqual({});
    expect(await forms.find('mine')).toBeUndefined();
  });

  it('keeps each entry until it expires, consumes codes, and revokes what a grant issued', async () => {
    const Adapter = providerStorage(1000, clock);
    const codes = new Adapter('AuthorizationCode');
    await codes.upsert('c1', { grantId: 'g1' }, 60);
    await codes.consume('c1');
    expect(await codes.find('c1')).toEqual({ grantId: 'g1', consumed: 1000 });
    t += 61 * 1000;
    expect(await codes.find('c1')).toBeUndefined();

    const tokens = new Adapter('AccessToken');
    await tokens.upsert('t1', { grantId: 'g2' }, 600);
    await codes.upsert('c2', { grantId: 'g2' }, 60);
    await tokens.revokeByGrantId('g2');
    expect(await tokens.find('t1')).toBeUndefined();
    expect(await codes.find('c2')).toBeUndefined();

    const sessions = new Adapter('Session');
    await sessions.upsert('s2', { uid: 'u2' }, 3600);
    await sessions.destroy('s2');
    expect(await sessions.findByUid('u2')).toBeUndefined();
    expect(await sessions.findByUserCode()).toBeUndefined();
  });
});
