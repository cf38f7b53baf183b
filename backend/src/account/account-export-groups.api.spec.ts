import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';

/** What the export says of the groups behind care actions, after the person's place in a group changed. */
describe('the export of a person removed from a group', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.destroy());
  const as = (cookie?: string) => api(app.baseUrl, cookie);

  it("names the group of a care action only while the person is in it: a later name is not theirs to learn (a review, 11-27)", async () => {
    const ana = await signIn(app.baseUrl, 'ana@example.com', 'Ana');
    const ben = await signIn(app.baseUrl, 'ben@example.com', 'Ben');
    const benId = (await as(ben).get('/api/auth/user')).body.id as string;
    const { clientSecret } = (await as(ana).post('/api/create-subscription')).body;
    expect((await as(ana).post('/api/billing/sandbox/confirm', { clientSecret, cardNumber: '4242424242424242' })).status).toBe(200);
    const group = (await as(ana).post('/api/groups', { name: 'Family' })).body as { id: string; inviteCode: string };
    expect((await as(ben).post('/api/groups/join', { inviteCode: group.inviteCode })).status).toBe(200);
    expect((await as(ana).post('/api/care-actions', { groupId: group.id, recipientId: benId, kind: 'flowers' })).status).toBe(201);
    const received = async () => (await as(ben).get('/api/account/export?format=json')).body.careActionsReceived as Array<{ groupId: string; groupName: string | null }>;
    expect(await received()).toEqual([expect.objectContaining({ groupId: group.id, groupName: 'Family' })]);

    expect((await as(ana).delete(`/api/groups/${group.id}/members/${benId}`)).status).toBe(204);
    expect((await as(ana).patch(`/api/groups/${group.id}`, { name: 'Family (without Ben)' })).status).toBe(200);
    expect((await as(ben).get(`/api/groups/${group.id}`)).status).toBe(404);
    expect(await received()).toEqual([expect.objectContaining({ groupId: group.id, groupName: null })]);
    const csv = (await as(ben).get('/api/account/export?format=csv')).text;
    expect(csv).not.toContain('without Ben');
    // The sender, still in it, reads its name as it is now.
    const sent = (await as(ana).get('/api/account/export?format=json')).body.careActionsSent;
    expect(sent).toEqual([expect.objectContaining({ groupName: 'Family (without Ben)' })]);
  });
});
