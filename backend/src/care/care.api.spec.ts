import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { CSV_COLUMNS } from '../account/account-export';
import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';
import { RecordingCareFulfilment } from './care-fulfilment';
import { CARE_MESSAGES, careDecider, careStream } from './care.decider';
import { decideAndAppend } from '../event-store/decider';
import { waitUntil } from '../testing/wait';

jest.setTimeout(30_000);

interface Group { id: string; inviteCode: string }

describe('care actions over HTTP', () => {
  let app: TestApp;
  let ada: string; // premium
  let bob: string; // free, rates low
  let cy: string; // premium, rates low, joins late
  let dan: string; // premium, in another group only
  const ids: Record<string, string> = {};
  let family: Group;
  const as = (cookie?: string) => api(app.baseUrl, cookie);
  const head = () => app.running.infra.store.headPosition();
  const rate = async (cookie: string, score: number) => {
    const res = await as(cookie).post('/api/joy-ratings', { relationships: score, health: score, purpose: score, growth: score, joy: score });
    expect(res.status).toBe(201);
  };
  /** Joy Premium through billing's sandbox checkout, as a user would get it. */
  const subscribe = async (cookie: string) => {
    const { clientSecret } = (await as(cookie).post('/api/create-subscription')).body;
    const paid = await as(cookie).post('/api/billing/sandbox/confirm', { clientSecret, cardNumber: '4242424242424242' });
    expect(paid.status).toBe(200);
    expect((await as(cookie).get('/api/subscription-status')).body.isPremium).toBe(true);
  };
  const eventually = (condition: () => Promise<boolean>) => waitUntil(condition, 8000, 20);
  const send = (cookie: string, body: object) => as(cookie).post('/api/care-actions', body);

  beforeAll(async () => {
    app = await startTestApp();
    ada = await signIn(app.baseUrl, 'ada@example.com', 'Ada');
    bob = await signIn(app.baseUrl, 'bob@example.com', 'Bob');
    cy = await signIn(app.baseUrl, 'cy@example.com', 'Cy');
    dan = await signIn(app.baseUrl, 'dan@example.com', 'Dan');
    for (const [name, cookie] of Object.entries({ ada, bob, cy, dan })) ids[name] = (await as(cookie).get('/api/auth/user')).body.id;
    family = (await as(ada).post('/api/groups', { name: 'Family' })).body;
    await as(dan).post('/api/groups', { name: 'Elsewhere' });
    expect((await as(bob).post('/api/groups/join', { inviteCode: family.inviteCode })).status).toBe(200);
    for (const cookie of [ada, cy, dan]) await subscribe(cookie);
  });
  afterAll(() => app.destroy());

  it('refuses every care route to a signed-out caller with 401', async () => {
    const before = await head();
    for (const res of [
      await as().post('/api/care-actions', { groupId: family.id, recipientId: ids.bob, kind: 'flowers' }),
      await as().get('/api/care-actions/received'),
      await as().get('/api/care-actions/sent'),
      await as().get(`/api/groups/${family.id}/care-suggestions`),
      await as().post('/api/care-actions/00000000-0000-4000-8000-000000000000/thank'),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ statusCode: 401, code: 'auth.unauthorized', message: 'Unauthorized' });
    }
    expect(await head()).toBe(before);
  });

  it('suggests care for another member whose latest score is below 3, never to themselves, and drops it at 3 or more', async () => {
    expect((await as(ada).get(`/api/groups/${family.id}/care-suggestions`)).body).toEqual([]);
    await rate(bob, 2);
    await rate(ada, 1);
    const forAda = await as(ada).get(`/api/groups/${family.id}/care-suggestions`);
    expect(forAda.status).toBe(200);
    expect(forAda.body).toEqual([{ userId: ids.bob, firstName: 'Bob', latestScore: 2 }]);
    expect((await as(bob).get(`/api/groups/${family.id}/care-suggestions`)).body).toEqual([{ userId: ids.ada, firstName: 'Ada', latestScore: 1 }]);
    await rate(ada, 3);
    expect((await as(bob).get(`/api/groups/${family.id}/care-suggestions`)).body).toEqual([]);
  });

  it('counts a low rating made before joining once the member joins', async () => {
    await rate(cy, 1);
    expect((await as(cy).post('/api/groups/join', { inviteCode: family.inviteCode })).status).toBe(200);
    expect((await as(ada).get(`/api/groups/${family.id}/care-suggestions`)).body).toEqual([
      { userId: ids.cy, firstName: 'Cy', latestScore: 1 },
      { userId: ids.bob, firstName: 'Bob', latestScore: 2 },
    ]);
  });

  it('answers suggestions of a group to a non-member, a missing group and a malformed id with 404', async () => {
    for (const id of [family.id, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await as(dan).get(`/api/groups/${id}/care-suggestions`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ statusCode: 404, code: 'group.not_found', message: 'Group not found' });
    }
  });

  it('refuses a free sender with 403 and appends nothing', async () => {
    const before = await head();
    const res = await send(bob, { groupId: family.id, recipientId: ids.cy, kind: 'flowers' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ statusCode: 403, code: 'plan.premium_required', message: CARE_MESSAGES.premiumOnly });
    expect(await head()).toBe(before);
  });

  it('answers a sender outside the group with the groups’ 404, whether or not the group exists', async () => {
    const before = await head();
    for (const groupId of [family.id, '00000000-0000-4000-8000-000000000000']) {
      const res = await send(dan, { groupId, recipientId: ids.bob, kind: 'flowers' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ statusCode: 404, code: 'group.not_found', message: 'Group not found' });
    }
    expect(await head()).toBe(before);
  });

  it('refuses care to oneself and to someone outside the group with 400', async () => {
    const before = await head();
    const self = await send(ada, { groupId: family.id, recipientId: ids.ada, kind: 'flowers' });
    expect(self.status).toBe(400);
    expect(self.body).toEqual({ statusCode: 400, code: 'care.to_self', message: CARE_MESSAGES.toSelf });
    for (const recipientId of [ids.dan, 'nobody']) {
      const res = await send(ada, { groupId: family.id, recipientId, kind: 'flowers' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ statusCode: 400, code: 'care.recipient_not_member', message: CARE_MESSAGES.recipientNotMember });
    }
    expect(await head()).toBe(before);
  });

  it.each([
    ['no groupId', { recipientId: 'x', kind: 'flowers' }, 'groupId is required'],
    ['no recipientId', { groupId: 'g', kind: 'flowers' }, 'recipientId is required'],
    ['no kind', { groupId: 'g', recipientId: 'x' }, CARE_MESSAGES.kindInvalid],
    ['an unknown kind', { groupId: 'g', recipientId: 'x', kind: 'roses' }, CARE_MESSAGES.kindInvalid],
    ['a kind label instead of the kind', { groupId: 'g', recipientId: 'x', kind: 'Flowers' }, CARE_MESSAGES.kindInvalid],
    ['a message of 501 characters', { groupId: 'g', recipientId: 'x', kind: 'flowers', message: 'x'.repeat(501) }, CARE_MESSAGES.messageTooLong],
    ['a message that is a number', { groupId: 'g', recipientId: 'x', kind: 'flowers', message: 7 }, CARE_MESSAGES.messageNotText],
    ['a numeric groupId', { groupId: 3, recipientId: 'x', kind: 'flowers' }, 'groupId must be a string'],
    ['an unknown field', { groupId: 'g', recipientId: 'x', kind: 'flowers', amount: 5 }, 'amount is not an accepted field'],
  ])('refuses %s with 400 naming the field', async (_label, body, message) => {
    const before = await head();
    const res = await send(ada, body);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(message);
    expect(await head()).toBe(before);
  });

  let flowers: { id: string };
  it('sends a premium member’s care: 201 with the care action; fulfilled once by the reactor; listed for both', async () => {
    const res = await send(ada, { groupId: family.id, recipientId: ids.bob, kind: 'flowers', message: '  Thinking of you, Bob  ' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String), groupId: family.id, senderId: ids.ada, recipientId: ids.bob, kind: 'flowers',
      message: 'Thinking of you, Bob', sentAt: expect.any(String), status: 'sent',
    });
    flowers = res.body;
    // Read-your-writes for the sender.
    const sent = (await as(ada).get('/api/care-actions/sent')).body;
    expect(sent[0]).toMatchObject({ id: flowers.id, recipientId: ids.bob, recipientFirstName: 'Bob', kind: 'flowers' });

    // The reactor orders it and records the fulfilment.
    const store = app.running.infra.store;
    await eventually(async () => (await store.readStream(careStream(flowers.id))).length === 2);
    const stream = await store.readStream(careStream(flowers.id));
    expect(stream.map((e) => e.type)).toEqual(['CareActionSent', 'CareActionFulfilled']);
    const recorded = new RecordingCareFulfilment(join(app.config.dataDir, 'care-orders.sqlite'));
    try {
      const orders = recorded.orders().filter((o) => o.careActionId === flowers.id);
      expect(orders).toHaveLength(1);
      expect(stream[1].data).toMatchObject({ careActionId: flowers.id, orderId: orders[0].orderId });
    } finally {
      recorded.close();
    }

    await eventually(async () => (await as(bob).get('/api/care-actions/received')).body[0]?.status === 'fulfilled');
    expect((await as(bob).get('/api/care-actions/received')).body).toEqual([
      { id: flowers.id, groupId: family.id, senderId: ids.ada, senderFirstName: 'Ada', kind: 'flowers', message: 'Thinking of you, Bob', sentAt: res.body.sentAt, status: 'fulfilled', thankedAt: null },
    ]);
    expect((await as(ada).get('/api/care-actions/received')).body).toEqual([]);
  });

  it('sends without a message (null), newest first in the lists', async () => {
    const res = await send(cy, { groupId: family.id, recipientId: ids.bob, kind: 'care_package', message: '   ' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ kind: 'care_package', message: null });
    const received = (await as(bob).get('/api/care-actions/received')).body;
    expect(received.map((r: { id: string }) => r.id)).toEqual([res.body.id, flowers.id]);
    expect(received[0]).toMatchObject({ senderFirstName: 'Cy', message: null });
    expect((await as(cy).get('/api/care-actions/sent')).body.map((r: { id: string }) => r.id)).toEqual([res.body.id]);
    expect((await as(dan).get('/api/care-actions/sent')).body).toEqual([]);
  });

  it('lets the recipient thank the sender once, as an event the sender sees; anyone else gets 404, a second thanks 409', async () => {
    const before = await head();
    for (const [cookie, id] of [[dan, flowers.id], [ada, flowers.id], [cy, flowers.id], [bob, '00000000-0000-4000-8000-000000000000'], [bob, 'x'.repeat(65)]]) {
      const res = await as(cookie).post(`/api/care-actions/${id}/thank`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ statusCode: 404, code: 'care.not_found', message: CARE_MESSAGES.notFound });
    }
    expect(await head()).toBe(before);
    expect((await as(ada).get('/api/care-actions/sent')).body.find((c: { id: string }) => c.id === flowers.id)).toMatchObject({ thankedAt: null });

    const res = await as(bob).post(`/api/care-actions/${flowers.id}/thank`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: flowers.id, senderId: ids.ada, senderFirstName: 'Ada', kind: 'flowers', thankedAt: expect.any(String) });
    const thankedAt = res.body.thankedAt as string;
    expect(Math.abs(Date.parse(thankedAt) - Date.now())).toBeLessThan(60_000);
    // Read-your-writes: both lists show it at once.
    expect((await as(ada).get('/api/care-actions/sent')).body.find((c: { id: string }) => c.id === flowers.id)).toMatchObject({ recipientFirstName: 'Bob', thankedAt });
    expect((await as(bob).get('/api/care-actions/received')).body.map((c: { id: string; thankedAt: string | null }) => [c.id, c.thankedAt])).toEqual([
      [expect.any(String), null],
      [flowers.id, thankedAt],
    ]);
    const stream = await app.running.infra.store.readStream(careStream(flowers.id));
    expect(stream.map((e) => e.type)).toEqual(['CareActionSent', 'CareActionFulfilled', 'CareActionThanked']);
    expect(stream[2].data).toEqual({ careActionId: flowers.id, recipientId: ids.bob, thankedAt });
    expect(stream[2].metadata.actorUserId).toBe(ids.bob);

    const again = await head();
    const twice = await as(bob).post(`/api/care-actions/${flowers.id}/thank`);
    expect(twice.status).toBe(409);
    expect(twice.body).toEqual({ statusCode: 409, code: 'care.already_thanked', message: CARE_MESSAGES.alreadyThanked });
    expect(await head()).toBe(again);
  });

  it('fulfils nothing twice after a restart (the reactor replays from the start on the embedded default)', async () => {
    const store = () => app.running.infra.store;
    await eventually(async () => (await store().readAll({ from: 0, limit: 10_000 })).filter((e) => e.type === 'CareActionFulfilled').length === 2);
    await app.stop();
    await app.restart();
    // The reactor replays every event after the restart: wait until it has been through all of them.
    const head = await store().headPosition();
    await eventually(async () => (await app.running.infra.pipeline.reactorStatus()).every((r) => r.checkpoint >= head));
    const events = await store().readAll({ from: 0, limit: 10_000 });
    expect(events.filter((e) => e.type === 'CareActionFulfilled')).toHaveLength(2);
    const recorded = new RecordingCareFulfilment(join(app.config.dataDir, 'care-orders.sqlite'));
    try {
      expect(recorded.orders()).toHaveLength(2);
    } finally {
      recorded.close();
    }
    expect((await as(bob).get('/api/care-actions/received')).body.map((r: { status: string }) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    // The thanks is kept too.
    expect((await as(ada).get('/api/care-actions/sent')).body[0]).toMatchObject({ id: flowers.id, thankedAt: expect.any(String) });
  });

  // The send reads "accepts care" from a read model that may be a moment behind the recipient's settings (or an
  // outage may hold the order back for hours): the fulfilment looks again at the streams before ordering.
  it('cancels care whose recipient stopped accepting care before it was ordered: the sender is told why, the recipient never sees it', async () => {
    expect((await as(bob).patch('/api/settings', { acceptCareActions: false })).status).toBe(200);
    // A send that read Bob's settings just before the change (the handler's facts, as it would have seen them).
    const careActionId = '6f1c1d2e-3b4a-4c5d-8e9f-0a1b2c3d4e5f';
    await decideAndAppend(
      app.running.infra.store,
      careStream(careActionId),
      careDecider,
      {
        type: 'SendCareAction', careActionId, groupId: family.id, senderId: ids.ada, recipientId: ids.bob, kind: 'handwritten_card', message: 'Chin up',
        senderIsPremium: true, groupMemberIds: [ids.ada, ids.bob, ids.cy], recipientAcceptsCare: true, recent: { bySender: [], bySenderToRecipient: [], toRecipient: [] }, at: new Date(),
      },
      { actorUserId: ids.ada },
      { eventIds: () => [careActionId] },
    );
    await eventually(async () => (await as(ada).get('/api/care-actions/sent')).body[0]?.status === 'cancelled');
    expect((await as(ada).get('/api/care-actions/sent')).body[0]).toMatchObject({ id: careActionId, recipientFirstName: 'Bob', status: 'cancelled', cancelReason: 'recipient_declined' });
    expect((await as(ada).get('/api/care-actions/sent')).body[1]).toMatchObject({ id: flowers.id, status: 'fulfilled', cancelReason: null });
    expect((await as(bob).get('/api/care-actions/received')).body.map((c: { id: string }) => c.id)).not.toContain(careActionId);
    const thank = await as(bob).post(`/api/care-actions/${careActionId}/thank`);
    expect(thank.status).toBe(404);
    const recorded = new RecordingCareFulfilment(join(app.config.dataDir, 'care-orders.sqlite'));
    try {
      expect(recorded.orders().map((o) => o.careActionId)).not.toContain(careActionId);
    } finally {
      recorded.close();
    }
    // Both exports keep it, cancelled, with when and why.
    for (const cookie of [ada, bob]) {
      const exported = (await as(cookie).get('/api/account/export?format=json')).body as { careActionsSent: { id: string }[]; careActionsReceived: { id: string }[] };
      const mine = [...exported.careActionsSent, ...exported.careActionsReceived].find((c) => c.id === careActionId);
      expect(mine).toMatchObject({ status: 'cancelled', cancelReason: 'recipient_declined', cancelledAt: expect.any(String), fulfilledAt: null });
    }
    const csv = (await as(ada).get('/api/account/export?format=csv')).text.replace(/^\uFEFF/, '').split('\r\n');
    const header = csv[0].split(',');
    const row = csv.find((line) => line.includes(careActionId))!.split(',');
    const cell = (column: string) => row[header.indexOf(column)];
    expect([cell('section'), cell('care_status'), cell('cancel_reason'), cell('fulfilled_at')]).toEqual(['care_sent', 'cancelled', 'recipient_declined', '']);
    expect(Date.parse(cell('cancelled_at'))).not.toBeNaN();
  });

  it('sends once for one Idempotency-Key: a retry answers the same care action, even at the limit; another send with it is 409', async () => {
    const circle = (await as(cy).post('/api/groups', { name: 'Circle' })).body as Group;
    expect((await as(dan).post('/api/groups/join', { inviteCode: circle.inviteCode })).status).toBe(200);
    const body = { groupId: circle.id, recipientId: ids.dan, kind: 'handwritten_card', message: 'Thinking of you' };
    const withKey = (key: string, sent: object = body) => as(cy).post('/api/care-actions').set('Idempotency-Key', key).send(sent);
    const first = await withKey('card-1');
    expect(first.status).toBe(201);
    // The answer was lost; the same request again, twice at once.
    const [again, atOnce] = await Promise.all([withKey('card-1'), withKey('card-1')]);
    // The same care action, with its status as it is now (it may be ordered already).
    const same = { ...first.body, status: expect.stringMatching(/^(sent|fulfilled)$/) };
    expect([again.status, again.body, atOnce.body]).toEqual([201, same, same]);
    const sentToDan = async () => ((await as(cy).get('/api/care-actions/sent')).body as { recipientId: string }[]).filter((c) => c.recipientId === ids.dan).length;
    await eventually(async () => (await sentToDan()) === 1);
    // Two more sends reach the limit of 3 a day to one person; the first one's retry still answers, and sends nothing.
    for (const key of ['card-2', 'card-3']) expect((await withKey(key)).status).toBe(201);
    expect((await withKey('card-1')).body).toEqual(same);
    expect((await withKey('card-4')).status).toBe(429);
    // The same key for another care action: refused, nothing sent.
    const other = await withKey('card-1', { ...body, kind: 'flowers' });
    expect([other.status, other.body]).toEqual([409, { statusCode: 409, code: 'care.idempotency_key_reused', message: CARE_MESSAGES.keyReused }]);
    expect(await sentToDan()).toBe(3);
    // Another person's same key is theirs: it does not meet Cy's care action.
    const fromDan = await as(dan).post('/api/care-actions').set('Idempotency-Key', 'card-1').send({ groupId: circle.id, recipientId: ids.cy, kind: 'handwritten_card' });
    expect([fromDan.status, fromDan.body.id === first.body.id]).toEqual([201, false]);
  });
  it("keeps a message of several lines in one cell of the recipient's CSV: its second line never starts a row (or a formula)", async () => {
    const eve = await signIn(app.baseUrl, 'eve@example.com', 'Eve');
    ids.eve = (await as(eve).get('/api/auth/user')).body.id;
    const notes = (await as(dan).post('/api/groups', { name: 'Notes' })).body as Group;
    expect((await as(eve).post('/api/groups/join', { inviteCode: notes.inviteCode })).status).toBe(200);
    const message = "Thinking of you\n=cmd|' /C calc'!A0";
    expect((await send(dan, { groupId: notes.id, recipientId: ids.eve, kind: 'handwritten_card', message })).status).toBe(201);
    expect((await as(eve).post('/api/joy-ratings', { relationships: 2, health: 2, purpose: 2, growth: 2, joy: 2, note: 'Slept badly\nwoke at 4' })).status).toBe(201);
    await eventually(async () => (await as(eve).get('/api/care-actions/received')).body.length === 1);

    const csv = (await as(eve).get('/api/account/export?format=csv')).text;
    // As a spreadsheet reads it (any line break outside quotes ends a row): every row has every column, and each
    // text is whole in its own cell.
    const rows = parse(csv, { bom: true, record_delimiter: ['\r\n', '\n'] }) as string[][];
    expect(rows[0]).toEqual([...CSV_COLUMNS]);
    expect(rows.every((r) => r.length === CSV_COLUMNS.length)).toBe(true);
    const cell = (section: string, column: (typeof CSV_COLUMNS)[number]) => rows.find((r) => r[0] === section)![CSV_COLUMNS.indexOf(column)];
    expect(cell('care_received', 'care_message')).toBe(message);
    expect(cell('rating', 'note')).toBe('Slept badly\nwoke at 4');
    // One row per item (before, the second lines made rows of their own).
    expect(rows.map((r) => r[0]).sort()).toEqual(['care_received', 'group', 'profile', 'rating', 'section', 'settings']);
  });
});
