import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';
import { MESSAGES } from './groups.decider';

interface Group { id: string; name: string; description: string | null; inviteCode: string; createdAt: string }
interface Member { id: string; firstName: string; isOwner: boolean }

/** The owner's rename, removal, new invite code and deletion; owner hand-over; what a newcomer sees of the group's past. */
describe("a group's owner over HTTP", () => {
  let app: TestApp;
  const as = (cookie?: string) => api(app.baseUrl, cookie);
  const head = () => app.running.infra.store.headPosition();
  const idOf = async (cookie: string) => (await as(cookie).get('/api/auth/user')).body.id as string;
  const names = async (cookie: string, groupId: string) =>
    ((await as(cookie).get(`/api/groups/${groupId}/members`)).body as Member[]).map((m) => `${m.firstName}${m.isOwner ? ' (owner)' : ''}`);
  const rate = async (cookie: string, score: number) => {
    const res = await as(cookie).post('/api/joy-ratings', { relationships: score, health: score, purpose: score, growth: score, joy: score });
    expect(res.status).toBe(201);
    return res.body as { id: string; createdAt: string };
  };
  const notFound = { statusCode: 404, code: 'group.not_found', message: 'Group not found' };
  const ownerOnly = { statusCode: 403, code: 'group.owner_only', message: MESSAGES.ownerOnly };

  let owner: string;
  let member: string;
  let other: string;
  let outsider: string;
  let group: Group;
  /** The code the owner gave the group after removing Max. */
  let newCode: string;

  beforeAll(async () => {
    app = await startTestApp();
    owner = await signIn(app.baseUrl, 'olga@owner.example', 'Olga');
    member = await signIn(app.baseUrl, 'max@owner.example', 'Max');
    other = await signIn(app.baseUrl, 'nia@owner.example', 'Nia');
    outsider = await signIn(app.baseUrl, 'out@owner.example', 'Out');
    await as(outsider).post('/api/groups', { name: 'Elsewhere' }); // a member of another group
    group = (await as(owner).post('/api/groups', { name: 'Family', description: 'Sunday calls' })).body;
    for (const cookie of [member, other]) expect((await as(cookie).post('/api/groups/join', { inviteCode: group.inviteCode })).status).toBe(200);
  });
  afterAll(() => app.destroy());

  it('refuses every owner route to a signed-out caller (401), an outsider (404) and a member who is not the owner (403), changing nothing', async () => {
    const maxId = await idOf(member);
    const before = await head();
    const calls = (cookie?: string) => [
      () => as(cookie).patch(`/api/groups/${group.id}`, { name: 'Mine' }),
      () => as(cookie).delete(`/api/groups/${group.id}/members/${maxId}`),
      () => as(cookie).post(`/api/groups/${group.id}/invite-code`),
      () => as(cookie).delete(`/api/groups/${group.id}`),
    ];
    for (const call of calls()) expect((await call()).status).toBe(401);
    for (const call of calls(outsider)) expect((await call()).body).toEqual(notFound);
    for (const call of calls(other)) expect((await call()).body).toEqual(ownerOnly);
    expect(await head()).toBe(before);
    expect(await names(owner, group.id)).toEqual(['Olga (owner)', 'Max', 'Nia']);
    expect((await as(member).get(`/api/groups/${group.id}`)).body).toMatchObject({ name: 'Family', ownerId: await idOf(owner) });
  });

  it('renames the group for every member at once; an absent field stays', async () => {
    // It waits for the projections of a rename only: one of a leave or a deletion never sees a rename's position
    // and was waited for until the relay's watermark (every rename took 400 ms).
    const waits = jest.spyOn(app.running.infra.pipeline, 'waitFor');
    const res = await as(owner).patch(`/api/groups/${group.id}`, { name: '  The Family ' });
    expect(waits.mock.calls.map(([, options]) => options?.eventTypes)).toEqual([['GroupRenamed']]);
    waits.mockRestore();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...group, name: 'The Family' });
    expect((await as(member).get('/api/groups')).body).toEqual([{ ...group, name: 'The Family' }]);
    const described = await as(owner).patch(`/api/groups/${group.id}`, { description: '' });
    expect(described.body).toEqual({ ...group, name: 'The Family', description: null });
    expect((await as(other).get(`/api/groups/${group.id}`)).body).toMatchObject({ name: 'The Family', description: null });
    const events = await app.running.infra.store.readStream(`group-${group.id}`);
    expect(events.map((e) => e.type)).toEqual(['GroupCreated', 'GroupRenamed', 'GroupRenamed']);
  });

  const badRenames: [string, object, string, string][] = [
    ['a blank name', { name: '   ' }, 'name', MESSAGES.nameRequired],
    ['a name of 81 characters', { name: 'n'.repeat(81) }, 'name', MESSAGES.nameTooLong],
    ['a numeric name', { name: 7 }, 'name', 'name must be a string'],
    ['a null name', { name: null }, 'name', MESSAGES.nameRequired],
    ['a description of 501 characters', { description: 'd'.repeat(501) }, 'description', MESSAGES.descriptionTooLong],
    ['a name with a direction override', { name: 'Fam\u202Eily' }, 'name', expect.stringContaining('name') as unknown as string],
    ['an unknown field', { name: 'Ok', inviteCode: 'ABCD2345' }, 'inviteCode', 'inviteCode is not an accepted field'],
  ];
  it.each(badRenames)('refuses to rename with %s: 400 naming the field, nothing appended', async (_label, body, field, message) => {
    const before = await head();
    const res = await as(owner).patch(`/api/groups/${group.id}`, body);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field, message }]);
    expect(await head()).toBe(before);
  });

  it('refuses an empty rename with 400 naming name', async () => {
    const res = await as(owner).patch(`/api/groups/${group.id}`, {});
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, code: 'group.nothing_to_change', message: MESSAGES.nothingToChange, errors: [{ field: 'name', message: MESSAGES.nothingToChange }] });
  });

  it('removes a member: gone from the group for everyone, 404 for them, their place freed; never the owner themself nor a non-member', async () => {
    const [maxId, outId, olgaId] = [await idOf(member), await idOf(outsider), await idOf(owner)];
    const before = await head();
    const self = await as(owner).delete(`/api/groups/${group.id}/members/${olgaId}`);
    expect(self.status).toBe(400);
    expect(self.body.code).toBe('group.cannot_remove_self');
    expect((await as(owner).delete(`/api/groups/${group.id}/members/${outId}`)).body).toEqual({ statusCode: 404, code: 'group.member_not_found', message: MESSAGES.memberNotFound });
    expect(await head()).toBe(before);

    expect((await as(owner).delete(`/api/groups/${group.id}/members/${maxId}`)).status).toBe(204);
    expect(await names(other, group.id)).toEqual(['Olga (owner)', 'Nia']);
    expect((await as(member).get('/api/groups')).body).toEqual([]);
    expect((await as(member).get(`/api/groups/${group.id}`)).body).toEqual(notFound);
    // Max is told which group, by its name then (renamed earlier in this file); nobody else has a removal to read.
    const removals = (await as(member).get('/api/groups/removals')).body;
    expect(removals).toEqual([{ groupId: group.id, groupName: 'The Family', removedAt: expect.any(String), groupDeleted: false }]);
    expect(Date.now() - Date.parse(removals[0].removedAt)).toBeLessThan(60_000);
    for (const cookie of [owner, other, outsider]) expect((await as(cookie).get('/api/groups/removals')).body).toEqual([]);
    const left = (await app.running.infra.store.readStream(`user-${maxId}`)).filter((e) => e.type === 'MemberLeft');
    expect(left.map((e) => e.data)).toEqual([{ groupId: group.id, userId: maxId, reason: 'removed', leftAt: expect.any(String) }]);
    // Removed twice: they are no longer a member.
    expect((await as(owner).delete(`/api/groups/${group.id}/members/${maxId}`)).status).toBe(404);
  });

  it('gives the group a new invite code: the old one stops at once (the removed member cannot rejoin with it), the new one works', async () => {
    const [maxId, olgaId] = [await idOf(member), await idOf(owner)];
    const oldCode = group.inviteCode;
    // Max, removed above, is not let back in with the code he had (403, however written; nothing appended).
    const beforeRejoin = await head();
    expect((await as(member).post('/api/groups/join', { inviteCode: oldCode.toLowerCase() })).body).toEqual({
      statusCode: 403,
      code: 'group.removed_by_owner',
      message: MESSAGES.removedByOwner,
    });
    expect(await head()).toBe(beforeRejoin);
    expect(await names(owner, group.id)).toEqual(['Olga (owner)', 'Nia']);

    const res = await as(owner).post(`/api/groups/${group.id}/invite-code`);
    expect(res.status).toBe(200);
    newCode = res.body.inviteCode;
    expect(newCode).toMatch(/^[A-HJKMNP-Z2-9]{8}$/);
    expect(newCode).not.toBe(oldCode);
    // The group as PATCH answers it (renamed earlier in this file), with its new code.
    expect(res.body).toEqual({ ...group, name: 'The Family', description: null, inviteCode: newCode });
    const stream = await app.running.infra.store.readStream(`group-${group.id}`);
    expect(stream.at(-1)).toMatchObject({ type: 'GroupInviteCodeChanged', data: { groupId: group.id, inviteCode: newCode, changedBy: olgaId, changedAt: expect.any(String) } });
    expect((await app.running.infra.store.readStream(`invite-${newCode}`)).map((e) => [e.type, e.data])).toEqual([['InviteCodeReserved', { code: newCode, groupId: group.id }]]);

    // The members see the new code at once, in the list and the group.
    expect((await as(other).get('/api/groups')).body).toEqual([res.body]);
    expect((await as(other).get(`/api/groups/${group.id}`)).body.inviteCode).toBe(newCode);

    // The old code, however written, opens nothing now, for the removed member and anyone else, and says it was
    // replaced (whoever holds it was given it); nothing appended.
    const before = await head();
    const ivo = await signIn(app.baseUrl, 'ivo@owner.example', 'Ivo');
    const afterSignIn = await head();
    for (const [cookie, inviteCode] of [[member, oldCode], [member, `${oldCode.slice(0, 4)}-${oldCode.slice(4)}`.toLowerCase()], [ivo, oldCode]]) {
      expect((await as(cookie).post('/api/groups/join', { inviteCode })).body).toEqual({ statusCode: 404, code: 'group.invite_replaced', message: MESSAGES.inviteCodeReplaced });
    }
    // Nia, still a member, is told she is one, with the old code as with the new one.
    expect((await as(other).post('/api/groups/join', { inviteCode: oldCode })).body).toEqual({ statusCode: 409, code: 'group.already_member', message: MESSAGES.alreadyMember });
    expect(await head()).toBe(afterSignIn);
    expect(afterSignIn).toBeGreaterThan(before);
    expect(await names(owner, group.id)).toEqual(['Olga (owner)', 'Nia']);

    // The new code works, and the answer carries it.
    const joined = await as(ivo).post('/api/groups/join', { inviteCode: newCode.toLowerCase() });
    expect(joined.status).toBe(200);
    expect(joined.body.inviteCode).toBe(newCode);
    expect(await names(ivo, group.id)).toEqual(['Olga (owner)', 'Nia', 'Ivo']);
    expect((await as(ivo).post(`/api/groups/${group.id}/leave`)).status).toBe(204);
    // Given the new code, Max is let back in (a member like any other, no longer told of the removal), and can leave again.
    expect((await as(member).post('/api/groups/join', { inviteCode: newCode })).status).toBe(200);
    expect(await names(owner, group.id)).toEqual(['Olga (owner)', 'Nia', 'Max']);
    expect((await as(member).get('/api/groups/removals')).body).toEqual([]);
    expect((await as(member).post(`/api/groups/${group.id}/leave`)).status).toBe(204);
  });

  it('hands the group to the longest-standing member when the owner leaves, who can then rename it', async () => {
    const nia = await signIn(app.baseUrl, 'nia2@owner.example', 'Nia');
    const ivy = await signIn(app.baseUrl, 'ivy@owner.example', 'Ivy');
    const kit = await signIn(app.baseUrl, 'kit@owner.example', 'Kit');
    const team = (await as(ivy).post('/api/groups', { name: 'Team' })).body as Group;
    for (const cookie of [nia, kit]) expect((await as(cookie).post('/api/groups/join', { inviteCode: team.inviteCode })).status).toBe(200);
    expect(await names(kit, team.id)).toEqual(['Ivy (owner)', 'Nia', 'Kit']);

    expect((await as(ivy).post(`/api/groups/${team.id}/leave`)).status).toBe(204);
    expect(await names(kit, team.id)).toEqual(['Nia (owner)', 'Kit']);
    expect((await as(kit).get(`/api/groups/${team.id}`)).body.ownerId).toBe(await idOf(nia));
    expect((await as(kit).patch(`/api/groups/${team.id}`, { name: 'Kit’s' })).body).toEqual(ownerOnly);
    expect((await as(nia).patch(`/api/groups/${team.id}`, { name: 'Team B' })).status).toBe(200);
    // The former owner who comes back is a member like any other.
    expect((await as(ivy).post('/api/groups/join', { inviteCode: team.inviteCode })).status).toBe(200);
    expect(await names(ivy, team.id)).toEqual(['Nia (owner)', 'Kit', 'Ivy']);
  });

  it('deletes the group: every member loses it, its code answers 404, and it frees a place under the free plan', async () => {
    const pam = await signIn(app.baseUrl, 'pam@owner.example', 'Pam');
    const ray = await signIn(app.baseUrl, 'ray@owner.example', 'Ray');
    const club = (await as(pam).post('/api/groups', { name: 'Club' })).body as Group;
    const two = (await as(ray).post('/api/groups', { name: 'Two' })).body as Group;
    const three = (await as(ray).post('/api/groups', { name: 'Three' })).body as Group;
    expect((await as(ray).post('/api/groups/join', { inviteCode: club.inviteCode })).status).toBe(200);
    const fourth = (await as(pam).post('/api/groups', { name: 'Fourth' })).body as Group;
    expect((await as(ray).post('/api/groups/join', { inviteCode: fourth.inviteCode })).body.code).toBe('plan.group_limit');

    expect((await as(ray).delete(`/api/groups/${club.id}`)).body).toEqual(ownerOnly);
    expect((await as(pam).delete(`/api/groups/${club.id}`)).status).toBe(204);
    for (const cookie of [pam, ray]) expect((await as(cookie).get(`/api/groups/${club.id}`)).body).toEqual(notFound);
    expect((await as(ray).get('/api/groups')).body.map((g: Group) => g.id)).toEqual([three.id, two.id]);
    expect((await as(pam).get('/api/groups')).body.map((g: Group) => g.id)).toEqual([fourth.id]);
    const join = await as(await signIn(app.baseUrl, 'new@owner.example', 'New')).post('/api/groups/join', { inviteCode: club.inviteCode });
    expect(join.body).toEqual({ statusCode: 404, code: 'group.invite_not_found', message: MESSAGES.inviteCodeNotFound });
    // Deleted twice, renamed or left after: the group is gone.
    expect((await as(pam).delete(`/api/groups/${club.id}`)).body).toEqual(notFound);
    const events = await head();
    expect((await as(ray).post(`/api/groups/${club.id}/leave`)).body).toEqual(notFound);
    expect(await head()).toBe(events);
    expect((await as(pam).patch(`/api/groups/${club.id}`, { name: 'Back' })).body).toEqual(notFound);
    expect((await as(pam).post(`/api/groups/${club.id}/invite-code`)).body).toEqual(notFound);
    expect(await head()).toBe(events);
    // Ray's place is free again.
    expect((await as(ray).post('/api/groups/join', { inviteCode: fourth.inviteCode })).status).toBe(200);
  });

  it('shows a newcomer the group activity from the moment they joined (and nobody the newcomer\'s earlier days); scores stay visible', async () => {
    const uma = await signIn(app.baseUrl, 'uma@owner.example', 'Uma');
    const vic = await signIn(app.baseUrl, 'vic@owner.example', 'Vic');
    const circle = (await as(uma).post('/api/groups', { name: 'Circle' })).body as Group;
    const umaEarlier = await rate(uma, 2);
    await rate(vic, 1); // before Vic joins
    expect((await as(vic).post('/api/groups/join', { inviteCode: circle.inviteCode })).status).toBe(200);

    const activity = async (cookie: string) => ((await as(cookie).get(`/api/groups/${circle.id}/ratings`)).body as { id: string }[]).map((r) => r.id);
    // Uma rated as a member: the group's activity, which Vic, who came later, does not see; Vic's own earlier day neither.
    expect(await activity(uma)).toEqual([umaEarlier.id]);
    expect(await activity(vic)).toEqual([]);
    // The members' latest scores and the average are not activity.
    expect((await as(vic).get(`/api/groups/${circle.id}/members`)).body.map((m: { latestScore: number }) => m.latestScore)).toEqual([2, 1]);
    expect((await as(vic).get(`/api/groups/${circle.id}`)).body).toMatchObject({ averageScore: 1.5, recentRatingsCount: 0 });

    const umaLater = await rate(uma, 4);
    const vicLater = await rate(vic, 5);
    expect(await activity(vic)).toEqual([vicLater.id, umaLater.id]);
    expect(await activity(uma)).toEqual([vicLater.id, umaLater.id, umaEarlier.id]);
    expect((await as(vic).get(`/api/groups/${circle.id}`)).body.recentRatingsCount).toBe(2);
    expect((await as(uma).get(`/api/groups/${circle.id}`)).body.recentRatingsCount).toBe(3);
  });

  it('keeps names, owners and removals across a restart (read models rebuilt from the events)', async () => {
    const before = { list: (await as(other).get('/api/groups')).body, members: await names(other, group.id) };
    await app.stop();
    await app.restart();
    expect({ list: (await as(other).get('/api/groups')).body, members: await names(other, group.id) }).toEqual(before);
    expect(before.members).toEqual(['Olga (owner)', 'Nia']);
    expect(before.list.map((g: Group) => g.inviteCode)).toEqual([newCode]);
  });
});
