import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';
import { MESSAGES } from './groups.decider';

interface Group { id: string; name: string; description: string | null; inviteCode: string; createdAt: string }

/** One app for the file: each block signs in people of its own. */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.destroy());

describe('groups over HTTP', () => {
  let ada: string;
  let bob: string;
  let cy: string;
  const ids: Record<string, string> = {};
  let family: Group;
  const head = () => app.running.infra.store.headPosition();
  const as = (cookie?: string) => api(app.baseUrl, cookie);
  const rate = async (cookie: string, score: number) => {
    const res = await as(cookie).post('/api/joy-ratings', { relationships: score, health: score, purpose: score, growth: score, joy: score });
    expect(res.status).toBe(201);
    return res.body as { id: string; createdAt: string; overallScore: number };
  };

  beforeAll(async () => {
    ada = await signIn(app.baseUrl, 'ada@example.com', 'Ada');
    bob = await signIn(app.baseUrl, 'bob@example.com', 'Bob');
    cy = await signIn(app.baseUrl, 'cy@example.com', '');
    for (const [name, cookie] of Object.entries({ ada, bob, cy })) ids[name] = (await as(cookie).get('/api/auth/user')).body.id;
  });

  it('refuses every groups route to a signed-out caller with 401', async () => {
    const before = await head();
    for (const res of [
      await as().get('/api/groups'),
      await as().post('/api/groups', { name: 'Family' }),
      await as().post('/api/groups/join', { inviteCode: 'ABCD2345' }),
      await as().get('/api/groups/some-id'),
      await as().get('/api/groups/some-id/members'),
      await as().get('/api/groups/some-id/ratings'),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ statusCode: 401, code: 'auth.unauthorized', message: 'Unauthorized' });
    }
    expect(await head()).toBe(before);
  });

  it('starts with no groups', async () => {
    expect((await as(ada).get('/api/groups')).body).toEqual([]);
  });

  it('creates a group with a code; the creator is its first member and sees it at once', async () => {
    const res = await as(ada).post('/api/groups', { name: '  Family  ', description: '  Sunday calls ' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), name: 'Family', description: 'Sunday calls', inviteCode: expect.stringMatching(/^[A-HJKMNP-Z2-9]{8}$/), createdAt: expect.any(String) });
    expect(Date.now() - Date.parse(res.body.createdAt)).toBeLessThan(60_000);
    family = res.body;

    expect((await as(ada).get('/api/groups')).body).toEqual([family]);
    expect((await as(ada).get(`/api/groups/${family.id}`)).body).toEqual({
      ...family, memberCount: 1, activeThisWeek: 0, averageScore: 0, recentRatingsCount: 0, ownerId: ids.ada,
    });
    expect((await as(ada).get(`/api/groups/${family.id}/members`)).body).toEqual([
      { id: ids.ada, firstName: 'Ada', email: 'ada@example.com', profileImageUrl: null, latestScore: null, isOwner: true },
    ]);
    expect((await as(ada).get(`/api/groups/${family.id}/ratings`)).body).toEqual([]);

    const events = await app.running.infra.store.readAll({ from: 0, limit: 1000 });
    const created = events.filter((e) => e.data.groupId === family.id);
    expect(created.map((e) => [e.type, e.streamId])).toEqual([
      ['InviteCodeReserved', `invite-${family.inviteCode}`],
      ['GroupCreated', `group-${family.id}`],
      ['MemberJoined', `user-${ids.ada}`],
    ]);
    expect(created[2].data).toEqual({ groupId: family.id, userId: ids.ada, role: 'creator', joinedAt: family.createdAt });
  });

  it('lets another user join with the code in lower case, written with a dash; a rating made before joining counts in the scores, not in the activity', async () => {
    const before = await rate(bob, 2); // Bob rated before he joined
    const written = `${family.inviteCode.slice(0, 4)}-${family.inviteCode.slice(4)}`.toLowerCase(); // "xcff-ucgq"
    const res = await as(bob).post('/api/groups/join', { inviteCode: ` ${written} ` });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(family);

    for (const cookie of [ada, bob]) expect((await as(cookie).get('/api/groups')).body).toEqual([family]);
    expect((await as(bob).get(`/api/groups/${family.id}/members`)).body).toEqual([
      { id: ids.ada, firstName: 'Ada', email: 'ada@example.com', profileImageUrl: null, latestScore: null, isOwner: true },
      { id: ids.bob, firstName: 'Bob', email: 'bob@example.com', profileImageUrl: null, latestScore: 2, isOwner: false },
    ]);
    expect((await as(ada).get(`/api/groups/${family.id}`)).body).toEqual({
      ...family, memberCount: 2, activeThisWeek: 1, averageScore: 2, recentRatingsCount: 0, ownerId: ids.ada,
    });
    // Join privacy: the group's activity starts when Bob joined (his earlier rating is his own).
    expect(before.overallScore).toBe(2);
    expect((await as(ada).get(`/api/groups/${family.id}/ratings`)).body).toEqual([]);
    expect((await as(bob).get(`/api/groups/${family.id}/ratings`)).body).toEqual([]);
  });

  it('moves the figures when members rate, and never shows the factor scores', async () => {
    const a1 = await rate(ada, 5);
    expect((await as(bob).get(`/api/groups/${family.id}`)).body).toMatchObject({ activeThisWeek: 2, averageScore: 3.5, recentRatingsCount: 1 });
    const b2 = await rate(bob, 3);
    const detail = (await as(bob).get(`/api/groups/${family.id}`)).body;
    expect(detail).toMatchObject({ memberCount: 2, activeThisWeek: 2, averageScore: 4, recentRatingsCount: 2 });
    const members = (await as(ada).get(`/api/groups/${family.id}/members`)).body;
    expect(members.map((m: { latestScore: number }) => m.latestScore)).toEqual([5, 3]);

    const ratings = await as(ada).get(`/api/groups/${family.id}/ratings`);
    expect(ratings.status).toBe(200);
    expect(ratings.body.map((r: { id: string }) => r.id)).toEqual([b2.id, a1.id]);
    // The overall score and when it was made, and the day it rates: never the factors (nor the note).
    for (const r of ratings.body) expect(Object.keys(r).sort()).toEqual(['createdAt', 'day', 'id', 'overallScore', 'userId']);
    expect(ratings.text).not.toMatch(/relationships|health|purpose|growth|"joy"/);
    expect(JSON.stringify(members) + JSON.stringify(detail)).not.toMatch(/relationships|health|purpose|growth|"joy"/);
  });

  it('answers a non-member, a missing group and a malformed id with the same 404', async () => {
    for (const path of [`/api/groups/${family.id}`, `/api/groups/${family.id}/members`, `/api/groups/${family.id}/ratings`]) {
      const res = await as(cy).get(path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ statusCode: 404, code: 'group.not_found', message: 'Group not found' });
    }
    expect((await as(cy).get('/api/groups')).body).toEqual([]);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', '%20', "x'%22;--"]) {
      for (const suffix of ['', '/members', '/ratings']) {
        const res = await as(ada).get(`/api/groups/${id}${suffix}`);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ statusCode: 404, code: 'group.not_found', message: 'Group not found' });
      }
    }
  });

  it('refuses a second join with 409 and appends nothing, however the code is written', async () => {
    const before = await head();
    const code = family.inviteCode;
    for (const [cookie, inviteCode] of [[bob, code], [ada, code], [bob, `${code.slice(0, 4)} - ${code.slice(4)}`], [ada, code.split('').join(' ')]]) {
      const res = await as(cookie).post('/api/groups/join', { inviteCode });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ statusCode: 409, code: 'group.already_member', message: 'You are already a member of this group.' });
    }
    expect(await head()).toBe(before);
  });

  it.each(['ZZZZ2345', 'abcd0000', 'A', 'ÄÖÜ'])('answers an unknown code %p with 404 and appends nothing', async (inviteCode) => {
    const before = await head();
    const res = await as(cy).post('/api/groups/join', { inviteCode });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ statusCode: 404, code: 'group.invite_not_found', message: 'Invite code not found.' });
    expect(await head()).toBe(before);
  });

  const badCreates: [string, object, string, string][] = [
    ['a missing name', { description: 'x' }, 'name', MESSAGES.nameRequired],
    ['an empty name', { name: '' }, 'name', MESSAGES.nameRequired],
    ['a blank name', { name: ' \t\n ' }, 'name', MESSAGES.nameRequired],
    ['a null name', { name: null }, 'name', MESSAGES.nameRequired],
    ['a numeric name', { name: 42 }, 'name', 'name must be a string'],
    ['a name of 81 characters', { name: 'n'.repeat(81) }, 'name', 'name must be at most 80 characters'],
    ['a description of 501 characters', { name: 'Ok', description: 'd'.repeat(501) }, 'description', 'description must be at most 500 characters'],
    ['a numeric description', { name: 'Ok', description: 5 }, 'description', 'description must be a string'],
    ['an unknown field', { name: 'Ok', inviteCode: 'ABCD2345' }, 'inviteCode', 'inviteCode is not an accepted field'],
  ];
  it.each(badCreates)('refuses to create with %s: 400 naming the field, nothing appended', async (_label, body, field, message) => {
    const before = await head();
    const res = await as(cy).post('/api/groups', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, code: 'request.invalid', message, errors: [{ field, message }] });
    expect(res.body.message).toContain(field);
    expect(await head()).toBe(before);
  });

  const badJoins: [string, object, string, string][] = [
    ['a missing code', {}, 'inviteCode', MESSAGES.inviteCodeRequired],
    ['a blank code', { inviteCode: '   ' }, 'inviteCode', MESSAGES.inviteCodeRequired],
    ['a numeric code', { inviteCode: 12345678 }, 'inviteCode', 'inviteCode must be a string'],
    ['only dashes and spaces', { inviteCode: ' - ' }, 'inviteCode', MESSAGES.inviteCodeRequired],
    ['an overlong code', { inviteCode: 'ABCD23456' }, 'inviteCode', 'An invite code has 8 letters and numbers, like K7PX9QMB.'],
    ['an overlong code with a dash', { inviteCode: 'ABCD-23456' }, 'inviteCode', MESSAGES.inviteCodeTooLong],
    ['an unknown field', { inviteCode: 'ABCD2345', groupId: 'x' }, 'groupId', 'groupId is not an accepted field'],
  ];
  it.each(badJoins)('refuses to join with %s: 400 naming the field, nothing appended', async (_label, body, field, message) => {
    const before = await head();
    const res = await as(cy).post('/api/groups/join', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, code: 'request.invalid', message, errors: [{ field, message }] });
    expect(await head()).toBe(before);
  });

  it('accepts a name of 80 and a description of 500 characters after trimming, and an empty description as null', async () => {
    const res = await as(cy).post('/api/groups', { name: `  ${'n'.repeat(80)}  `, description: ` ${'d'.repeat(500)} ` });
    expect(res.status).toBe(201);
    expect(res.body.name).toHaveLength(80);
    expect(res.body.description).toHaveLength(500);
    const empty = await as(cy).post('/api/groups', { name: 'Quiet', description: '   ' });
    expect(empty.body.description).toBeNull();
    // Newest membership first.
    expect((await as(cy).get('/api/groups')).body.map((g: Group) => g.id)).toEqual([empty.body.id, res.body.id]);
    // Characters as people count them: 80 flags are a name of 80, one more is refused, naming it.
    const flags = await as(cy).post('/api/groups', { name: '🇲🇽'.repeat(80) });
    expect(flags.status).toBe(201);
    expect(flags.body.name).toBe('🇲🇽'.repeat(80));
    expect((await as(cy).patch(`/api/groups/${flags.body.id}`, { name: '🇲🇽'.repeat(81) })).body).toEqual({
      statusCode: 400,
      code: 'request.invalid',
      message: 'name must be at most 80 characters',
      errors: [{ field: 'name', message: 'name must be at most 80 characters' }],
    });
  });

  it("refuses a free user's 4th group, created or joined, with 403 and appends nothing", async () => {
    const dan = await signIn(app.baseUrl, 'dan@example.com', 'Dan');
    expect((await as(dan).post('/api/groups/join', { inviteCode: family.inviteCode })).status).toBe(200);
    expect((await as(dan).post('/api/groups', { name: 'Two' })).status).toBe(201);
    expect((await as(dan).post('/api/groups', { name: 'Three' })).status).toBe(201);
    const other = (await as(cy).get('/api/groups')).body[0] as Group;

    const before = await head();
    for (const res of [await as(dan).post('/api/groups', { name: 'Four' }), await as(dan).post('/api/groups/join', { inviteCode: other.inviteCode })]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ statusCode: 403, code: 'plan.group_limit', message: 'Free plan allows up to 3 groups. Upgrade to Joy Premium for unlimited groups.' });
    }
    expect(await head()).toBe(before);
    expect((await as(dan).get('/api/groups')).body).toHaveLength(3);
    // Already a member still says so, even at the limit.
    expect((await as(dan).post('/api/groups/join', { inviteCode: family.inviteCode })).status).toBe(409);
  });

  it('gives a premium user more than 3 groups', async () => {
    const eve = await signIn(app.baseUrl, 'eve@example.com', 'Eve');
    const eveId = (await as(eve).get('/api/auth/user')).body.id;
    await app.running.infra.readModels.put('subscriptions', eveId, { isPremium: true, status: 'active' }, Number.MAX_SAFE_INTEGER);
    for (const name of ['One', 'Two', 'Three', 'Four']) expect((await as(eve).post('/api/groups', { name })).status).toBe(201);
    expect((await as(eve).post('/api/groups/join', { inviteCode: family.inviteCode })).status).toBe(200);
    expect((await as(eve).get('/api/groups')).body).toHaveLength(5);
    expect((await as(ada).get(`/api/groups/${family.id}`)).body.memberCount).toBe(4);
  });

  it('keeps groups and members across a restart (read models rebuilt from the events)', async () => {
    const before = {
      list: (await as(bob).get('/api/groups')).body,
      detail: (await as(bob).get(`/api/groups/${family.id}`)).body,
      members: (await as(bob).get(`/api/groups/${family.id}/members`)).body,
      ratings: (await as(bob).get(`/api/groups/${family.id}/ratings`)).body,
    };
    await app.stop();
    await app.restart();
    expect({
      list: (await as(bob).get('/api/groups')).body,
      detail: (await as(bob).get(`/api/groups/${family.id}`)).body,
      members: (await as(bob).get(`/api/groups/${family.id}/members`)).body,
      ratings: (await as(bob).get(`/api/groups/${family.id}/ratings`)).body,
    }).toEqual(before);
  });
});

describe('leaving a group over HTTP', () => {
  const as = (cookie?: string) => api(app.baseUrl, cookie);
  const head = () => app.running.infra.store.headPosition();

  it('lets a member leave: gone from their list, 404 for them, one member fewer for the others; nobody else can make them leave', async () => {
    const [ann, ben, outsider] = [
      await signIn(app.baseUrl, 'ann@leave.example', 'Ann'),
      await signIn(app.baseUrl, 'ben@leave.example', 'Ben'),
      await signIn(app.baseUrl, 'out@leave.example', 'Out'),
    ];
    const family = (await as(ann).post('/api/groups', { name: 'Family' })).body as Group;
    await as(outsider).post('/api/groups', { name: 'Elsewhere' }); // a member of another group
    expect((await as(ben).post('/api/groups/join', { inviteCode: family.inviteCode })).status).toBe(200);

    const before = await head();
    for (const refused of [await as(outsider).post(`/api/groups/${family.id}/leave`), await as(ben).post('/api/groups/no-such-group/leave')]) {
      expect(refused.status).toBe(404);
      expect(refused.body).toEqual({ statusCode: 404, code: 'group.not_found', message: 'Group not found' });
    }
    expect((await as().post(`/api/groups/${family.id}/leave`)).status).toBe(401);
    expect(await head()).toBe(before);

    const left = await as(ben).post(`/api/groups/${family.id}/leave`);
    expect(left.status).toBe(204);
    expect((await as(ben).get('/api/groups')).body).toEqual([]);
    expect((await as(ben).get(`/api/groups/${family.id}`)).status).toBe(404);
    expect((await as(ben).post(`/api/groups/${family.id}/leave`)).status).toBe(404);
    expect((await as(ann).get(`/api/groups/${family.id}`)).body.memberCount).toBe(1);
    expect((await as(ann).get(`/api/groups/${family.id}/members`)).body.map((m: { firstName: string }) => m.firstName)).toEqual(['Ann']);
    // The code still lets them back in while the group has members.
    expect((await as(ben).post('/api/groups/join', { inviteCode: family.inviteCode })).status).toBe(200);
  });

  it('frees a place under the free plan: at 3 groups, leaving one lets a free user join another', async () => {
    const cat = await signIn(app.baseUrl, 'cat@leave.example', 'Cat');
    const dot = await signIn(app.baseUrl, 'dot@leave.example', 'Dot');
    const groups = [] as Group[];
    for (const name of ['One', 'Two', 'Three']) groups.push((await as(cat).post('/api/groups', { name })).body);
    const friends = (await as(dot).post('/api/groups', { name: 'Friends' })).body as Group;
    expect((await as(cat).post('/api/groups/join', { inviteCode: friends.inviteCode })).status).toBe(403);
    expect((await as(cat).post(`/api/groups/${groups[0].id}/leave`)).status).toBe(204);
    expect((await as(cat).post('/api/groups/join', { inviteCode: friends.inviteCode })).status).toBe(200);
    expect((await as(cat).get('/api/groups')).body.map((g: Group) => g.name).sort()).toEqual(['Friends', 'Three', 'Two']);
  });

  it('ends a group when its last member leaves: its invite code answers 404', async () => {
    const eli = await signIn(app.baseUrl, 'eli@leave.example', 'Eli');
    const fay = await signIn(app.baseUrl, 'fay@leave.example', 'Fay');
    const solo = (await as(eli).post('/api/groups', { name: 'Solo' })).body as Group;
    expect((await as(eli).post(`/api/groups/${solo.id}/leave`)).status).toBe(204);
    const join = await as(fay).post('/api/groups/join', { inviteCode: solo.inviteCode });
    expect(join.status).toBe(404);
    expect(join.body.code).toBe('group.invite_not_found');
    expect((await as(fay).get('/api/groups')).body).toEqual([]);
  });
});

describe('groups under concurrent requests', () => {
  const as = (cookie?: string) => api(app.baseUrl, cookie);

  it('lets exactly one of 10 simultaneous joins of one user to one group through; the rest get 409', async () => {
    const ada = await signIn(app.baseUrl, 'ada@race.example', 'Ada');
    const bob = await signIn(app.baseUrl, 'bob@race.example', 'Bob');
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
    const users = await Promise.all(Array.from({ length: 7 }, (_, i) => signIn(app.baseUrl, `u${i}@race.example`, `U${i}`)));
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
    const cy = await signIn(app.baseUrl, 'cy@race.example', 'Cy');
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

describe('Active This Week', () => {
  it('counts a member who rated this week, whatever day the rating was for (a review, 11-27)', async () => {
    const as = (cookie?: string) => api(app.baseUrl, cookie);
    const dee = await signIn(app.baseUrl, 'dee@example.com', 'Dee');
    const eli = await signIn(app.baseUrl, 'eli@example.com', 'Eli');
    const group = (await as(dee).post('/api/groups', { name: 'Readers' })).body as Group;
    expect((await as(eli).post('/api/groups/join', { inviteCode: group.inviteCode })).status).toBe(200);
    const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000);
    // Eli's latest rating by its day was made 15 days ago (brought in from an export)…
    const old = { id: 'old', createdAt: daysAgo(15).toISOString(), day: daysAgo(15).toISOString().slice(0, 10), relationships: 4, health: 4, purpose: 4, growth: 4, joy: 4 };
    expect((await as(eli).post('/api/account/import', { formatVersion: 1, ratings: [old] })).status).toBe(200);
    expect((await as(dee).get(`/api/groups/${group.id}`)).body).toMatchObject({ activeThisWeek: 0 });
    // …and today Eli fills in a day before it: Eli rated this week.
    const scores = { relationships: 3, health: 3, purpose: 3, growth: 3, joy: 3 };
    expect((await as(eli).post('/api/joy-ratings', { ...scores, day: daysAgo(20).toISOString().slice(0, 10) })).status).toBe(201);
    expect((await as(dee).get(`/api/groups/${group.id}`)).body).toMatchObject({ activeThisWeek: 1, recentRatingsCount: 1 });
  });
});

describe('creating a group with an Idempotency-Key', () => {
  it('creates one group for one key: a retry, or two at once, answer it; another group under the key, or a gone one, is 409', async () => {
    const fay = await signIn(app.baseUrl, 'fay@example.com', 'Fay');
    const as = api(app.baseUrl, fay);
    const create = (key: string, body: object = { name: 'Book club' }) => as.post('/api/groups').set('Idempotency-Key', key).send(body);
    const [first, atOnce] = await Promise.all([create('club-1'), create('club-1')]);
    expect([first.status, atOnce.status, atOnce.body]).toEqual([201, 201, first.body]);
    // Renamed since: the retry answers the group as it is now.
    expect((await as.patch(`/api/groups/${first.body.id}`).send({ name: 'Books' })).status).toBe(200);
    const again = await create('club-1');
    expect([again.status, again.body]).toEqual([201, { ...first.body, name: 'Books' }]);
    expect((await as.get('/api/groups')).body.map((g: Group) => g.id)).toEqual([first.body.id]);
    const other = await create('club-1', { name: 'Chess' });
    expect([other.status, other.body]).toEqual([409, { statusCode: 409, code: 'group.idempotency_key_reused', message: MESSAGES.keyReused }]);
    expect((await as.delete(`/api/groups/${first.body.id}`)).status).toBe(204);
    const gone = await create('club-1');
    expect([gone.status, gone.body.message]).toEqual([409, MESSAGES.keyDone]);
    expect((await as.get('/api/groups')).body).toEqual([]);
    // Without a key, each request is a group of its own.
    expect((await create('club-2')).body.id).not.toBe((await create('club-3')).body.id);
  });
});
