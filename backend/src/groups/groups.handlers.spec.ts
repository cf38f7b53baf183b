import { expectRejection } from '../testing/refusals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { metadataFor } from '../event-store/decider';
import type { ReadModelStore } from '../read-models/read-model-store.port';
import { SqliteEventStore } from '../event-store/sqlite-event-store';
import { MESSAGES } from './groups.decider';
import { CreateGroupCommand, CreateGroupHandler, JoinGroupCommand, JoinGroupHandler, OwnerActionCommand, OwnerActionHandler } from './groups.handlers';
import { INVITE_CODE_ATTEMPTS } from './invite-codes';

/** The command handlers against a real (embedded) event store; projections are not involved. */
describe('group command handlers', () => {
  let dir: string;
  let store: SqliteEventStore;
  const pipeline = { waitFor: async () => undefined };
  const free = async () => false;
  const codes = (...list: string[]) => {
    const queue = [...list];
    return jest.fn(() => queue.shift() ?? 'ZZZZZZZZ');
  };
  const register = (userId: string) =>
    store.appendToStream(`user-${userId}`, [{ type: 'UserRegistered', data: { userId }, metadata: metadataFor({ actorUserId: userId }, `reg-${userId}`) }], { expectedVersion: 0 });
  const typesIn = async (stream: string) => (await store.readStream(stream)).map((e) => e.type);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'joy-groups-'));
    store = new SqliteEventStore(join(dir, 'events.sqlite'), { synchronous: 'NORMAL' });
    await register('ada');
    await register('bob');
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('retries with another code when the generated one is already reserved', async () => {
    const generator = codes('AAAA2222', 'AAAA2222', 'BBBB3333');
    const first = await new CreateGroupHandler(store, pipeline, free, generator).execute(new CreateGroupCommand('ada', 'Family', undefined));
    expect(first.inviteCode).toBe('AAAA2222');

    const second = await new CreateGroupHandler(store, pipeline, free, generator).execute(new CreateGroupCommand('bob', 'Friends', ''));
    expect(generator).toHaveBeenCalledTimes(3);
    expect(second.inviteCode).toBe('BBBB3333');
    expect(second).toEqual({ id: expect.any(String), name: 'Friends', description: null, inviteCode: 'BBBB3333', createdAt: expect.any(String) });

    // The first code still belongs to the first group only; the second group's stream names its own code.
    expect((await store.readStream('invite-AAAA2222')).map((e) => e.data)).toEqual([{ code: 'AAAA2222', groupId: first.id }]);
    expect((await store.readStream('invite-BBBB3333')).map((e) => e.data)).toEqual([{ code: 'BBBB3333', groupId: second.id }]);
    expect((await store.readStream(`group-${second.id}`))[0].data).toMatchObject({ inviteCode: 'BBBB3333', createdBy: 'bob' });
    expect(await typesIn('user-bob')).toEqual(['UserRegistered', 'MemberJoined']);
  });

  it("finishes a creation cut off between the group and its creator's membership when the same key comes again; eight at once give one group", async () => {
    // The process dies after writing the group, before its creator's membership (another stream).
    const cutOff = Object.assign(Object.create(store), {
      appendToStream: (stream: string, ...rest: Parameters<SqliteEventStore['appendToStream']> extends [string, ...infer R] ? R : never) =>
        stream.startsWith('user-') ? Promise.reject(new Error('the process died here')) : store.appendToStream(stream, ...rest),
    }) as SqliteEventStore;
    await expect(new CreateGroupHandler(cutOff, pipeline, free, codes('AAAA2222')).execute(new CreateGroupCommand('ada', 'Family', undefined, 'key-1'))).rejects.toThrow('died');
    expect(await typesIn('user-ada')).toEqual(['UserRegistered']);

    // The client's retry with its key gets the group, and the creator is in it (was: 409 "deleted or left since").
    let n = 0;
    const create = new CreateGroupHandler(store, pipeline, free, () => `BBBB${String(2000 + n++)}`);
    const retried = await create.execute(new CreateGroupCommand('ada', 'Family', undefined, 'key-1'));
    expect(retried).toEqual({ id: expect.any(String), name: 'Family', description: null, inviteCode: 'AAAA2222', createdAt: expect.any(String) });
    expect((await store.readStream('user-ada')).filter((e) => e.type === 'MemberJoined').map((e) => e.data)).toEqual([
      { groupId: retried.id, userId: 'ada', role: 'creator', joinedAt: expect.any(String) },
    ]);
    const head = await store.headPosition();
    expect(await create.execute(new CreateGroupCommand('ada', 'Family', undefined, 'key-1'))).toEqual(retried);
    expect(await store.headPosition()).toBe(head);

    // Eight requests with one key at once: one group, every answer the same, one membership.
    const answers = await Promise.all(Array.from({ length: 8 }, () => create.execute(new CreateGroupCommand('ada', 'Friends', undefined, 'key-2'))));
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect((await typesIn('user-ada')).filter((t) => t === 'MemberJoined')).toHaveLength(2);

    // Left since: the key is done with (a new key makes a new group).
    await store.appendToStream('user-ada', [{ type: 'MemberLeft', data: { groupId: answers[0].id, userId: 'ada', reason: 'left', leftAt: new Date().toISOString() }, metadata: metadataFor({ actorUserId: 'ada' }, 'left-1') }], { expectedVersion: 'any' });
    await expectRejection(create.execute(new CreateGroupCommand('ada', 'Friends', undefined, 'key-2')), { kind: 'conflict', code: 'group.idempotency_key_reused', message: MESSAGES.keyDone });
  });

  it('gives up after a bounded number of collisions', async () => {
    await new CreateGroupHandler(store, pipeline, free, codes('AAAA2222')).execute(new CreateGroupCommand('ada', 'Family', undefined));
    const always = jest.fn(() => 'AAAA2222');
    await expect(new CreateGroupHandler(store, pipeline, free, always).execute(new CreateGroupCommand('bob', 'Friends', undefined))).rejects.toThrow(
      /No free invite code/,
    );
    expect(always).toHaveBeenCalledTimes(INVITE_CODE_ATTEMPTS);
  });

  it("fails fast on the free-plan limit: a 4th group's code and group are never written", async () => {
    const generator = codes('AAAA2222', 'BBBB3333', 'CCCC4444', 'DDDD5555');
    const create = new CreateGroupHandler(store, pipeline, free, generator);
    for (const name of ['One', 'Two', 'Three']) await create.execute(new CreateGroupCommand('ada', name, undefined));
    const head = await store.headPosition();
    await expectRejection(create.execute(new CreateGroupCommand('ada', 'Four', undefined)), { kind: 'forbidden', code: 'plan.group_limit', message: MESSAGES.freePlanLimit });
    expect(await store.headPosition()).toBe(head);
    expect(generator).toHaveBeenCalledTimes(3);
  });

  it('lets a premium user create a 4th group', async () => {
    const create = new CreateGroupHandler(store, pipeline, async () => true, codes('AAAA2222', 'BBBB3333', 'CCCC4444', 'DDDD5555'));
    for (const name of ['One', 'Two', 'Three', 'Four']) await create.execute(new CreateGroupCommand('ada', name, undefined));
    expect((await typesIn('user-ada')).filter((t) => t === 'MemberJoined')).toHaveLength(4);
  });

  it('joins by a code in any case, and refuses a code reserved for a group that was never written', async () => {
    const group = await new CreateGroupHandler(store, pipeline, free, codes('AAAA2222')).execute(new CreateGroupCommand('ada', 'Family', undefined));
    // The group's read model: it has a member (the creator), so its code still opens it.
    const groups = { get: async () => ({ members: [{ userId: 'ada' }] }) } as unknown as ReadModelStore;
    const joinHandler = new JoinGroupHandler(store, pipeline, free, groups);
    expect(await joinHandler.execute(new JoinGroupCommand('bob', ' aaaa2222 '))).toEqual(group);
    expect((await store.readStream('user-bob'))[1].data).toMatchObject({ groupId: group.id, userId: 'bob', inviteCode: 'AAAA2222', role: 'member' });

    // A create that crashed right after reserving its code.
    await store.appendToStream('invite-CCCC4444', [{ type: 'InviteCodeReserved', data: { code: 'CCCC4444', groupId: 'lost' }, metadata: metadataFor({ actorUserId: 'ada' }, 'lost') }], { expectedVersion: 0 });
    await expectRejection(joinHandler.execute(new JoinGroupCommand('bob', 'CCCC4444')), { kind: 'not_found', code: 'group.invite_not_found', message: MESSAGES.inviteCodeNotFound });
  });

  // A review (11-27): a join at the moment the owner deleted the group answered "Joined group successfully!" for a
  // group the person's list would never show.
  it('answers 404 to a join that the owner’s deletion overtook between the checks and the join', async () => {
    const group = await new CreateGroupHandler(store, pipeline, free, codes('AAAA2222')).execute(new CreateGroupCommand('ada', 'Family', undefined));
    const groups = { get: async () => ({ members: [{ userId: 'ada' }] }) } as unknown as ReadModelStore;
    // The deletion lands just before Bob's MemberJoined: after the handler read the group, before it appended.
    const racing = Object.assign(Object.create(store) as SqliteEventStore, {
      async appendToStream(...args: Parameters<SqliteEventStore['appendToStream']>) {
        if (args[0] === 'user-bob') {
          const deleted = { type: 'GroupDeleted', data: { groupId: group.id, deletedBy: 'ada', deletedAt: new Date().toISOString() }, metadata: metadataFor({ actorUserId: 'ada' }, 'del') };
          await store.appendToStream(`group-${group.id}`, [deleted], { expectedVersion: 'any' });
        }
        return store.appendToStream(...args);
      },
    });
    await expectRejection(new JoinGroupHandler(racing, pipeline, free, groups).execute(new JoinGroupCommand('bob', 'AAAA2222')), {
      kind: 'not_found',
      code: 'group.invite_not_found',
      message: MESSAGES.inviteCodeNotFound,
    });
  });

  it("gives a group a new code, retrying on a taken one; the old code, and a code reserved for a change never written, open nothing", async () => {
    const group = await new CreateGroupHandler(store, pipeline, free, codes('AAAA2222')).execute(new CreateGroupCommand('ada', 'Family', undefined));
    const other = await new CreateGroupHandler(store, pipeline, free, codes('BBBB3333')).execute(new CreateGroupCommand('bob', 'Friends', undefined));
    const groups = {
      get: async (_collection: string, id: string) => ({ ...group, members: [{ userId: id === group.id ? 'ada' : 'bob', role: 'creator', joinedAt: group.createdAt }] }),
    } as unknown as ReadModelStore;
    const generator = codes('BBBB3333', 'CCCC4444');
    const changed = await new OwnerActionHandler(store, pipeline, groups, generator).execute(
      new OwnerActionCommand({ kind: 'changeInviteCode', groupId: group.id, actorId: 'ada' }),
    );
    expect(changed).toEqual({ ...group, inviteCode: 'CCCC4444' });
    expect(generator).toHaveBeenCalledTimes(2);
    // Bob's group keeps its code; Ada's stream names the new one.
    expect((await store.readStream('invite-BBBB3333')).map((e) => e.data)).toEqual([{ code: 'BBBB3333', groupId: other.id }]);
    expect(await typesIn(`group-${group.id}`)).toEqual(['GroupCreated', 'GroupInviteCodeChanged']);

    // A change that crashed after reserving its code: the code names the group, the group's stream does not name it.
    await store.appendToStream('invite-DDDD5555', [{ type: 'InviteCodeReserved', data: { code: 'DDDD5555', groupId: group.id }, metadata: metadataFor({ actorUserId: 'ada' }, 'crashed') }], { expectedVersion: 0 });
    const join = new JoinGroupHandler(store, pipeline, free, groups);
    // The old code says it was replaced; the code of the change never written is unknown.
    await expectRejection(join.execute(new JoinGroupCommand('bob', 'AAAA2222')), { kind: 'not_found', code: 'group.invite_replaced', message: MESSAGES.inviteCodeReplaced });
    await expectRejection(join.execute(new JoinGroupCommand('bob', 'DDDD5555')), { kind: 'not_found', code: 'group.invite_not_found', message: MESSAGES.inviteCodeNotFound });
    expect(await join.execute(new JoinGroupCommand('bob', 'cccc-4444'))).toEqual(changed);
  });

  it('reserves no code for a member who is not the owner', async () => {
    const group = await new CreateGroupHandler(store, pipeline, free, codes('AAAA2222')).execute(new CreateGroupCommand('ada', 'Family', undefined));
    const groups = { get: async () => ({ ...group, members: [{ userId: 'ada', role: 'creator', joinedAt: group.createdAt }, { userId: 'bob', role: 'member', joinedAt: group.createdAt }] }) } as unknown as ReadModelStore;
    const head = await store.headPosition();
    const generator = codes('CCCC4444');
    await expectRejection(new OwnerActionHandler(store, pipeline, groups, generator).execute(new OwnerActionCommand({ kind: 'changeInviteCode', groupId: group.id, actorId: 'bob' })), {
      kind: 'forbidden',
      code: 'group.owner_only',
    });
    expect(generator).not.toHaveBeenCalled();
    expect(await store.headPosition()).toBe(head);
  });
});
