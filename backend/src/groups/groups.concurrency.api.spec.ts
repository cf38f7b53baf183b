import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';

describe('groups under concurrent requests', () => {
  let app: TestApp;
  const as = (cookie?: string) => api(app.baseUrl, cookie);

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.destroy());

  it('lets exactly one of 10 simultaneous joins of one user to one group through; the rest get 409', async () => {
    const ada = await signIn(app.baseUrl, 'ada@example.com', 'Ada');
    const bob = await signIn(app.baseUrl, 'bob@example.com', 'Bob');
    const bobId = (await as(bob).get('/api/auth/user')).body.id;
    const group = (await as(ada).post('/api/groups', { name: 'Family' })).body;

    const results = await Promise.all(Array.from({ length: 10 }, () => as(bob).post('/api/groups/join', { inviteCode: group.inviteCode })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of results.filter((r) => r.status === 409)) expect(r.body.message).toBe('You are already a member of this group.');

    const joins = (await app.running.infra.store.readStream(`user-${bobId}`)).filter((e) => e.type === 'MemberJoined');
    expect(joins).toHaveLength(1);
    expect(joins[0].data).toMatchObject({ groupId: group.id, role: 'member' });
    expect((await as(ada).get(`/api/groups/${group.id}`)).body.memberCount).toBe(2);
  });

  it('gives 20 simultaneous creations (7 users, up to 3 each) 20 different invite codes', async () => {
    const users = await Promise.all(Array.from({ length: 7 }, (_, i) => signIn(app.baseUrl, `u${i}@example.com`, `U${i}`)));
    // 6 users × 3 + 1 user × 2 = 20, every user within the free plan.
    const creations = users.flatMap((cookie, i) => Array.from({ length: i < 6 ? 3 : 2 }, (_, n) => ({ cookie, name: `Group ${i}.${n}` })));
    expect(creations).toHaveLength(20);

    const results = await Promise.all(creations.map(({ cookie, name }) => as(cookie).post('/api/groups', { name })));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    const codes = results.map((r) => r.body.inviteCode as string);
    expect(new Set(codes).size).toBe(20);

    const reserved = (await app.running.infra.store.readAll({ from: 0, limit: 10_000 })).filter((e) => e.type === 'InviteCodeReserved');
    expect(new Set(reserved.map((e) => e.streamId)).size).toBe(reserved.length);
    for (const [i, cookie] of users.entries()) {
      expect((await as(cookie).get('/api/groups')).body).toHaveLength(i < 6 ? 3 : 2);
    }
  });

  it('keeps a free user at 3 groups when 5 creations race', async () => {
    const cy = await signIn(app.baseUrl, 'cy@example.com', 'Cy');
    const results = await Promise.all(Array.from({ length: 5 }, (_, n) => as(cy).post('/api/groups', { name: `Race ${n}` })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    for (const r of results.filter((r) => r.status !== 201)) {
      expect(r.status).toBe(403);
      expect(r.body.message).toBe('Free plan allows up to 3 groups. Upgrade to Joy Premium for unlimited groups.');
    }
    // A group that lost the race for the last slot has no members: nobody sees it.
    expect((await as(cy).get('/api/groups')).body).toHaveLength(3);
  });
});
