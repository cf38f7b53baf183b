import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';

/**
 * Who may see what of a group: every group route, called by a member, by a signed-in non-member, and signed
 * out. A non-member learns nothing, not even whether the group exists. The outsider is a Joy Premium member of
 * another group, so every check before membership (signed in, premium, a member of some group) passes and the
 * membership check itself is what refuses.
 */
describe('authorisation matrix of the group routes', () => {
  let app: TestApp;
  let member: string;
  let outsider: string;
  let groupId: string;
  let otherGroupId: string;
  let memberId: string;
  const routes = () => [
    `/api/groups/${groupId}`,
    `/api/groups/${groupId}/members`,
    `/api/groups/${groupId}/ratings`,
    `/api/groups/${groupId}/care-suggestions`,
  ];

  beforeAll(async () => {
    app = await startTestApp();
    member = await signIn(app.baseUrl, 'member@example.com', 'Mia');
    outsider = await signIn(app.baseUrl, 'outsider@example.com', 'Otto');
    groupId = (await api(app.baseUrl, member).post('/api/groups', { name: 'Inner circle' })).body.id;
    await api(app.baseUrl, member).post('/api/joy-ratings', { relationships: 2, health: 2, purpose: 2, growth: 2, joy: 2 });
    memberId = (await api(app.baseUrl, member).get('/api/auth/user')).body.id;
    const outsiderId = (await api(app.baseUrl, outsider).get('/api/auth/user')).body.id;
    await app.running.infra.readModels.put('subscriptions', outsiderId, { isPremium: true, status: 'active' }, Number.MAX_SAFE_INTEGER);
    otherGroupId = (await api(app.baseUrl, outsider).post('/api/groups', { name: 'Outer circle' })).body.id;
    await api(app.baseUrl, outsider).post('/api/joy-ratings', { relationships: 1, health: 1, purpose: 1, growth: 1, joy: 1 });
  });
  afterAll(() => app.destroy());

  it('answers a member', async () => {
    for (const path of routes()) expect([path, (await api(app.baseUrl, member).get(path)).status]).toEqual([path, 200]);
  });

  it('answers a non-member 404 Group not found, exactly as for a group that does not exist', async () => {
    for (const path of routes()) {
      const res = await api(app.baseUrl, outsider).get(path);
      const missing = await api(app.baseUrl, outsider).get(path.replace(groupId, '00000000-0000-4000-8000-000000000000'));
      expect([path, res.status, res.body]).toEqual([path, 404, { statusCode: 404, code: 'group.not_found', message: 'Group not found' }]);
      expect(missing.body).toEqual(res.body);
      // The outsider's own group answers them: the refusal is about membership, not about the outsider.
      const own = path.replace(groupId, otherGroupId);
      expect([own, (await api(app.baseUrl, outsider).get(own)).status]).toEqual([own, 200]);
    }
    expect((await api(app.baseUrl, outsider).get('/api/groups')).body.map((g: { id: string }) => g.id)).toEqual([otherGroupId]);
  });

  it('answers a signed-out caller 401', async () => {
    for (const path of [...routes(), '/api/groups']) {
      expect([path, (await api(app.baseUrl).get(path)).status]).toEqual([path, 401]);
    }
    expect((await api(app.baseUrl).post('/api/groups', { name: 'x' })).status).toBe(401);
    expect((await api(app.baseUrl).post('/api/groups/join', { inviteCode: 'ABCDEFGH' })).status).toBe(401);
  });

  it('does not let a non-member send care through the group, even a premium member of another group', async () => {
    const before = await app.running.infra.store.headPosition();
    const res = await api(app.baseUrl, outsider).post('/api/care-actions', { groupId, recipientId: memberId, kind: 'flowers' });
    expect([res.status, res.body]).toEqual([404, { statusCode: 404, code: 'group.not_found', message: 'Group not found' }]);
    expect(await app.running.infra.store.headPosition()).toBe(before);
  });

  it("refuses care from the outsider's own group to someone who is not in it", async () => {
    const before = await app.running.infra.store.headPosition();
    const res = await api(app.baseUrl, outsider).post('/api/care-actions', { groupId: otherGroupId, recipientId: memberId, kind: 'flowers' });
    expect([res.status, res.body.code]).toEqual([400, 'care.recipient_not_member']);
    expect(await app.running.infra.store.headPosition()).toBe(before);
  });
});
