import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';
import { waitUntil } from '../testing/wait';
import { CSV_COLUMNS } from './account-export';

jest.setTimeout(60_000);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.destroy());
const as = (cookie?: string) => api(app.baseUrl, cookie);
const idOf = async (cookie: string) => (await as(cookie).get('/api/auth/user')).body.id as string;
const subscribe = async (cookie: string) => {
  const { clientSecret } = (await as(cookie).post('/api/create-subscription')).body;
  expect((await as(cookie).post('/api/billing/sandbox/confirm', { clientSecret, cardNumber: '4242424242424242' })).status).toBe(200);
};
const exportJson = async (cookie: string) => {
  const res = await as(cookie).get('/api/account/export?format=json');
  expect(res.status).toBe(200);
  return res.body;
};
type Column = (typeof CSV_COLUMNS)[number];
/** The CSV's rows of one section, each as column → cell (the cells of these tests hold no commas or quotes). */
const csvSection = async (cookie: string, section: string): Promise<Record<Column, string>[]> => {
  const text = (await as(cookie).get('/api/account/export?format=csv')).text;
  const [header, ...rows] = text.replace(/^\uFEFF/, '').split('\r\n').filter((l) => l !== '');
  expect(header).toBe(CSV_COLUMNS.join(','));
  return rows
    .map((l) => l.split(','))
    .filter((cells) => cells[0] === section)
    .map((cells) => Object.fromEntries(CSV_COLUMNS.map((c, i) => [c, cells[i]])) as Record<Column, string>);
};
/** As the CSV writes a cell: one that begins like a formula (an id may begin with '-') carries a leading '. */
const cell = (value: string) => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);

/** What the export says of the groups behind care actions, after the person's place in a group changed. */
describe('the export of a person removed from a group', () => {
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

describe('the export of who owns a group now', () => {
  it('says the person owns a group once its owner left (ownership passes on by join order), their role as they joined', async () => {
    const oda = await signIn(app.baseUrl, 'oda@owners.example', 'Oda');
    const pia = await signIn(app.baseUrl, 'pia@owners.example', 'Pia');
    const quy = await signIn(app.baseUrl, 'quy@owners.example', 'Quy');
    const group = (await as(oda).post('/api/groups', { name: 'Walkers' })).body as { id: string; inviteCode: string };
    for (const cookie of [pia, quy]) expect((await as(cookie).post('/api/groups/join', { inviteCode: group.inviteCode })).status).toBe(200);
    const groupsOf = async (cookie: string) => (await exportJson(cookie)).groups;
    expect(await groupsOf(oda)).toEqual([{ id: group.id, name: 'Walkers', role: 'creator', owner: true, joinedAt: expect.any(String) }]);
    expect(await groupsOf(pia)).toEqual([{ id: group.id, name: 'Walkers', role: 'member', owner: false, joinedAt: expect.any(String) }]);

    expect((await as(oda).post(`/api/groups/${group.id}/leave`)).status).toBeLessThan(300);
    // The app shows Pia as the owner now (GET /api/groups/:id), and so does her export; Quy, who joined later, is not.
    expect((await as(pia).get(`/api/groups/${group.id}`)).body.ownerId).toBe(await idOf(pia));
    expect(await groupsOf(pia)).toEqual([{ id: group.id, name: 'Walkers', role: 'member', owner: true, joinedAt: expect.any(String) }]);
    expect(await groupsOf(quy)).toEqual([expect.objectContaining({ role: 'member', owner: false })]);
    expect(await csvSection(pia, 'group')).toEqual([expect.objectContaining({ group_id: cell(group.id), group_name: 'Walkers', role: 'member', owner: 'true' })]);
    expect(await csvSection(quy, 'group')).toEqual([expect.objectContaining({ role: 'member', owner: 'false' })]);
  });
});

describe('the export of settings', () => {
  const keys = { p256dh: 'B'.repeat(87), auth: 'A'.repeat(22) };
  const phone = 'https://8.8.8.8/push/rhea-phone-endpoint';
  const laptop = 'https://8.8.4.4/push/rhea-laptop-endpoint';

  it("holds the defaults of a person who never changed a setting: no zone, no reminder, no device, care accepted", async () => {
    const sol = await signIn(app.baseUrl, 'sol@settings-export.example', 'Sol');
    expect((await exportJson(sol)).settings).toEqual({ timeZone: null, reminderTime: null, reminderDevices: 0, acceptCareActions: true });
    expect(await csvSection(sol, 'settings')).toEqual([
      expect.objectContaining({ time_zone: '', reminder_time: '', reminder_devices: '0', accept_care_actions: 'true' }),
    ]);
  });

  it('holds the time zone, reminder time, how many devices get reminders and care consent as Settings shows them, never a device\'s endpoint or keys', async () => {
    const rhea = await signIn(app.baseUrl, 'rhea@settings-export.example', 'Rhea');
    // A reminder time far from now: no reminder goes out to these made-up devices during the test.
    const reminderTime = `${String((new Date().getUTCHours() + 12) % 24).padStart(2, '0')}:15`;
    expect((await as(rhea).patch('/api/settings', { timeZone: 'Asia/Kolkata', reminderTime, acceptCareActions: false })).status).toBe(200);
    for (const endpoint of [phone, laptop]) expect((await as(rhea).post('/api/push/subscriptions', { endpoint, keys })).status).toBe(201);

    const shown = (await as(rhea).get('/api/settings')).body;
    const data = await exportJson(rhea);
    expect(data.settings).toEqual({ timeZone: 'Asia/Kolkata', reminderTime, reminderDevices: 2, acceptCareActions: false });
    expect(data.settings).toEqual(expect.objectContaining({ timeZone: shown.timeZone, reminderTime: shown.reminderTime, acceptCareActions: shown.acceptCareActions }));
    // The name chosen in Settings is the profile's.
    expect(data.profile.firstName).toBe(shown.firstName);
    expect(await csvSection(rhea, 'settings')).toEqual([
      expect.objectContaining({ time_zone: 'Asia/Kolkata', reminder_time: reminderTime, reminder_devices: '2', accept_care_actions: 'false' }),
    ]);
    for (const format of ['json', 'csv']) {
      const text = (await as(rhea).get(`/api/account/export?format=${format}`)).text;
      for (const secret of [phone, laptop, 'rhea-phone', '8.8.8.8', keys.p256dh, keys.auth]) expect([format, text.includes(secret)]).toEqual([format, false]);
    }

    // A device turned off and the reminder turned off: the export follows.
    expect((await as(rhea).delete('/api/push/subscriptions').send({ endpoint: laptop })).status).toBe(204);
    expect((await as(rhea).patch('/api/settings', { reminderTime: null })).status).toBe(200);
    expect((await exportJson(rhea)).settings).toEqual({ timeZone: 'Asia/Kolkata', reminderTime: null, reminderDevices: 1, acceptCareActions: false });
  });

  it('imports back: a file with the settings section and the groups\' owner is one POST /api/account/import takes', async () => {
    const rhea = await signIn(app.baseUrl, 'rhea@settings-export.example', 'Rhea');
    expect((await as(rhea).post('/api/joy-ratings', { relationships: 4, health: 3, purpose: 5, growth: 2, joy: 4 })).status).toBe(201);
    expect((await as(rhea).post('/api/groups', { name: 'Rowers' })).status).toBe(201);
    const file = await exportJson(rhea);
    expect(file).toMatchObject({ formatVersion: 1, settings: { timeZone: 'Asia/Kolkata' }, groups: [{ name: 'Rowers', owner: true }] });
    const other = await signIn(app.baseUrl, 'rhea.elsewhere@settings-export.example', 'Rhea');
    // She lives where she did: the rating's day is today in Kolkata, which an account on UTC refuses for hours of every
    // day (docs/decisions.md, "An import refuses a day after the importer's today").
    expect((await as(other).patch('/api/settings', { timeZone: 'Asia/Kolkata' })).status).toBe(200);
    const res = await as(other).post('/api/account/import', file);
    expect([res.status, res.body]).toEqual([200, { imported: 1, skipped: 0 }]);
  });
});

describe('the export of care actions', () => {
  it('gives the CSV the fulfilled and thanked times the JSON has, for the sender and the recipient', async () => {
    const una = await signIn(app.baseUrl, 'una@care-export.example', 'Una');
    const vic = await signIn(app.baseUrl, 'vic@care-export.example', 'Vic');
    await subscribe(una);
    const group = (await as(una).post('/api/groups', { name: 'Neighbours' })).body as { id: string; inviteCode: string };
    expect((await as(vic).post('/api/groups/join', { inviteCode: group.inviteCode })).status).toBe(200);
    const sent = await as(una).post('/api/care-actions', { groupId: group.id, recipientId: await idOf(vic), kind: 'flowers' });
    expect(sent.status).toBe(201);
    const id = sent.body.id as string;
    await waitUntil(async () => (await as(vic).get('/api/care-actions/received')).body[0]?.status === 'fulfilled', 8000, 20);

    // Not thanked yet: an empty cell, as the JSON's null.
    expect((await exportJson(una)).careActionsSent).toEqual([expect.objectContaining({ id, thankedAt: null })]);
    expect(await csvSection(una, 'care_sent')).toEqual([expect.objectContaining({ id: cell(id), thanked_at: '' })]);

    const thanked = await as(vic).post(`/api/care-actions/${id}/thank`);
    expect(thanked.status).toBe(200);
    const thankedAt = thanked.body.thankedAt as string;
    expect(thankedAt).toEqual(expect.any(String));
    for (const [cookie, section, key] of [[una, 'care_sent', 'careActionsSent'], [vic, 'care_received', 'careActionsReceived']] as const) {
      const [json] = (await exportJson(cookie))[key];
      expect(json).toMatchObject({ id, status: 'fulfilled', fulfilledAt: expect.any(String), thankedAt });
      expect(await csvSection(cookie, section)).toEqual([
        expect.objectContaining({ id: cell(id), care_status: 'fulfilled', fulfilled_at: json.fulfilledAt, thanked_at: thankedAt }),
      ]);
    }
  });
});
