import type { GroupDetailView, GroupMemberView, RatingView } from '@joy/domain';
import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';

jest.setTimeout(30_000);

const scores = (n: number) => ({ relationships: n, health: n, purpose: n, growth: n, joy: n });
const NOT_FOUND = { statusCode: 404, code: 'rating.not_found', message: 'Rating not found' };

/** PUT and DELETE /api/joy-ratings/:id: a person corrects or withdraws their own ratings, and every view follows. */
describe('correcting and withdrawing ratings over HTTP', () => {
  let app: TestApp;
  let ada: string; // rates, corrects, withdraws
  let bob: string; // in Ada's group: sees her latest score and the group average
  const ids: Record<string, string> = {};
  let groupId: string;
  const as = (cookie?: string) => api(app.baseUrl, cookie);
  const head = () => app.running.infra.store.headPosition();
  const rate = async (cookie: string, body: object): Promise<RatingView> => {
    const res = await as(cookie).post('/api/joy-ratings', body);
    expect(res.status).toBe(201);
    return res.body;
  };
  const list = async (cookie: string): Promise<RatingView[]> => (await as(cookie).get('/api/joy-ratings')).body;
  const latest = async (cookie: string): Promise<RatingView | null> => JSON.parse((await as(cookie).get('/api/joy-ratings/latest')).text);
  const adaAsBobSeesHer = async () => {
    const members: GroupMemberView[] = (await as(bob).get(`/api/groups/${groupId}/members`)).body;
    const group: GroupDetailView = (await as(bob).get(`/api/groups/${groupId}`)).body;
    const activity: { id: string; userId: string; overallScore: number }[] = (await as(bob).get(`/api/groups/${groupId}/ratings`)).body;
    return {
      latestScore: members.find((m) => m.id === ids.ada)!.latestScore,
      averageScore: group.averageScore,
      // Her ratings in the group's recent activity, newest first: overall scores only.
      activity: activity.filter((r) => r.userId === ids.ada).map((r) => r.overallScore),
    };
  };

  beforeAll(async () => {
    app = await startTestApp();
    ada = await signIn(app.baseUrl, 'ada@example.com', 'Ada');
    bob = await signIn(app.baseUrl, 'bob@example.com', 'Bob');
    for (const [name, cookie] of Object.entries({ ada, bob })) ids[name] = (await as(cookie).get('/api/auth/user')).body.id;
    const group = (await as(ada).post('/api/groups', { name: 'Family' })).body;
    groupId = group.id;
    expect((await as(bob).post('/api/groups/join', { inviteCode: group.inviteCode })).status).toBe(200);
    await rate(bob, scores(4)); // the group average is the mean of Ada's latest and Bob's 4
  });
  afterAll(() => app.destroy());

  it('refuses both routes to a signed-out caller with 401', async () => {
    const mine = await rate(ada, scores(3));
    expect((await as().put(`/api/joy-ratings/${mine.id}`, scores(5))).status).toBe(401);
    expect((await as().delete(`/api/joy-ratings/${mine.id}`)).status).toBe(401);
    expect((await list(ada))[0]).toEqual(mine);
  });

  it('corrects an own rating: 200 with the new values, same id and time, in its place; list, latest and the group follow', async () => {
    const older = await rate(ada, { relationships: 2, health: 2, purpose: 2, growth: 2, joy: 1 });
    const newer = await rate(ada, scores(2));
    expect(await adaAsBobSeesHer()).toEqual({ latestScore: 2, averageScore: 3, activity: [2, 1.8, 3] });

    const res = await as(ada).put(`/api/joy-ratings/${newer.id}`, { relationships: 5, health: 4, purpose: 5, growth: 4, joy: 5 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: newer.id, createdAt: newer.createdAt, overallScore: 4.6, relationships: 5, health: 4, purpose: 5, growth: 4, joy: 5, day: newer.day, note: null });
    // Read-your-writes: every view shows it as soon as the answer is there.
    expect((await list(ada)).slice(0, 2)).toEqual([res.body, older]);
    expect(await latest(ada)).toEqual(res.body);
    expect(await adaAsBobSeesHer()).toEqual({ latestScore: 4.6, averageScore: 4.3, activity: [4.6, 1.8, 3] });

    // An older rating corrected: the latest and the group stay as they are.
    const fixed = await as(ada).put(`/api/joy-ratings/${older.id}`, scores(3));
    expect(fixed.body).toMatchObject({ id: older.id, createdAt: older.createdAt, overallScore: 3 });
    expect((await list(ada)).slice(0, 2).map((r) => r.overallScore)).toEqual([4.6, 3]);
    expect(await latest(ada)).toEqual(res.body);
    expect(await adaAsBobSeesHer()).toEqual({ latestScore: 4.6, averageScore: 4.3, activity: [4.6, 3, 3] });
  });

  it('stores nothing when the correction brings the values the rating already has', async () => {
    const [newest] = await list(ada);
    const before = await head();
    const same = await as(ada).put(`/api/joy-ratings/${newest.id}`, { relationships: 5, health: 4, purpose: 5, growth: 4, joy: 5 });
    expect(same.status).toBe(200);
    expect(same.body).toEqual(newest);
    expect(await head()).toBe(before);
  });

  const bad: [string, object, string][] = [
    ['a missing factor', { relationships: 3, health: 3, purpose: 3, growth: 3 }, 'joy'],
    ['zero', { ...scores(3), health: 0 }, 'health'],
    ['six', { ...scores(3), purpose: 6 }, 'purpose'],
    ['a fraction', { ...scores(3), growth: 2.5 }, 'growth'],
    ['a numeric string', { ...scores(3), relationships: '3' }, 'relationships'],
    ['an extra field', { ...scores(3), mood: 3 }, 'mood'],
    ['a client-sent overall score', { ...scores(3), overallScore: 5 }, 'overallScore'],
  ];
  it.each(bad)('refuses a correction with %s: 400 naming the field, the rating unchanged', async (_label, body, field) => {
    const [newest] = await list(ada);
    const before = await head();
    const res = await as(ada).put(`/api/joy-ratings/${newest.id}`, body);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(field);
    expect(await head()).toBe(before);
    expect((await list(ada))[0]).toEqual(newest);
  });

  it("answers another person's rating and an unknown id with the same 404, changing nothing", async () => {
    const bobs = (await list(bob))[0];
    const before = await head();
    for (const id of [bobs.id, '3f0c7a52-1111-4b7a-9a43-6a1f0f3b2c10', 'not-a-rating-id']) {
      const put = await as(ada).put(`/api/joy-ratings/${id}`, scores(1));
      const del = await as(ada).delete(`/api/joy-ratings/${id}`);
      expect([put.status, put.body]).toEqual([404, NOT_FOUND]);
      expect([del.status, del.body]).toEqual([404, NOT_FOUND]);
    }
    expect(await head()).toBe(before);
    expect((await list(bob))[0]).toEqual(bobs);
  });

  it('withdraws an own rating: 204; gone from the list; the one before is latest, for her and for the group', async () => {
    const [newest, previous] = await list(ada);
    const res = await as(ada).delete(`/api/joy-ratings/${newest.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const after = await list(ada);
    expect(after.map((r) => r.id)).not.toContain(newest.id);
    expect(after[0]).toEqual(previous);
    expect(await latest(ada)).toEqual(previous);
    expect(await adaAsBobSeesHer()).toEqual({ latestScore: 3, averageScore: 3.5, activity: [3, 3] });
  });

  it('refuses to correct or withdraw a withdrawn rating with the same 404', async () => {
    const victim = await rate(ada, scores(1));
    expect((await as(ada).delete(`/api/joy-ratings/${victim.id}`)).status).toBe(204);
    const before = await head();
    const put = await as(ada).put(`/api/joy-ratings/${victim.id}`, scores(5));
    expect([put.status, put.body]).toEqual([404, NOT_FOUND]);
    const again = await as(ada).delete(`/api/joy-ratings/${victim.id}`);
    expect([again.status, again.body]).toEqual([404, NOT_FOUND]);
    expect(await head()).toBe(before);
    expect((await list(ada)).map((r) => r.id)).not.toContain(victim.id);
  });

  it('lifts a care suggestion when the low rating is corrected, and the group forgets a member whose every rating is withdrawn', async () => {
    const low = await rate(ada, scores(1));
    const suggested = async () => (await as(bob).get(`/api/groups/${groupId}/care-suggestions`)).body.map((s: { userId: string }) => s.userId);
    expect(await suggested()).toEqual([ids.ada]);
    await as(ada).put(`/api/joy-ratings/${low.id}`, scores(4));
    expect(await suggested()).toEqual([]);

    for (const r of await list(ada)) expect((await as(ada).delete(`/api/joy-ratings/${r.id}`)).status).toBe(204);
    expect(await list(ada)).toEqual([]);
    expect(await latest(ada)).toBeNull();
    expect(await adaAsBobSeesHer()).toEqual({ latestScore: null, averageScore: 4, activity: [] });
  });

  it('exports the ratings as they stand: corrected values, withdrawn ones left out', async () => {
    const kept = await rate(ada, scores(2));
    const gone = await rate(ada, scores(3));
    await as(ada).put(`/api/joy-ratings/${kept.id}`, scores(5));
    await as(ada).delete(`/api/joy-ratings/${gone.id}`);
    const exported = await as(ada).get('/api/account/export?format=json').buffer(true).parse((res, done) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => done(null, JSON.parse(text)));
    });
    expect(exported.status).toBe(200);
    expect(exported.body.ratings).toEqual([{ ...kept, ...scores(5), overallScore: 5 }]);
  });

  it('keeps corrections and withdrawals across a restart (the read models rebuilt from the events)', async () => {
    const before = { list: await list(ada), latest: await latest(ada), seen: await adaAsBobSeesHer() };
    await app.stop();
    await app.restart();
    expect({ list: await list(ada), latest: await latest(ada), seen: await adaAsBobSeesHer() }).toEqual(before);
    expect(before.seen).toEqual({ latestScore: 5, averageScore: 4.5, activity: [5] });
  });
});
