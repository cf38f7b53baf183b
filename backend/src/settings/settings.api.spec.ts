import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';
import { CARE_MESSAGES } from '../care/care.decider';
import { KEY_STORE } from '../identity/key-store';
import { decryptField } from '../identity/personal-data';
import { SETTINGS_MESSAGES } from './settings.decider';
import { SETTINGS_FIELD_MESSAGES } from './settings.dto';
import { TIME_ZONE_LOOKUP } from './time-zone';

jest.setTimeout(30_000);

describe('settings and declining care actions, over HTTP', () => {
  let app: TestApp;
  let ada: string; // premium sender
  let bob: string; // rates low
  let cy: string; // premium sender too
  const ids: Record<string, string> = {};
  let groupId: string;
  let inviteCode: string;
  const as = (cookie?: string) => api(app.baseUrl, cookie);
  const head = () => app.running.infra.store.headPosition();
  const subscribe = async (cookie: string) => {
    const { clientSecret } = (await as(cookie).post('/api/create-subscription')).body;
    expect((await as(cookie).post('/api/billing/sandbox/confirm', { clientSecret, cardNumber: '4242424242424242' })).status).toBe(200);
  };
  const care = (cookie: string, recipient: string) => as(cookie).post('/api/care-actions', { groupId, recipientId: ids[recipient], kind: 'handwritten_card' });
  const suggested = async (cookie: string) => (await as(cookie).get(`/api/groups/${groupId}/care-suggestions`)).body.map((s: { userId: string }) => s.userId);

  beforeAll(async () => {
    app = await startTestApp();
    ada = await signIn(app.baseUrl, 'ada@settings.example', 'Ada');
    bob = await signIn(app.baseUrl, 'bob@settings.example', 'Bob');
    cy = await signIn(app.baseUrl, 'cy@settings.example', 'Cy');
    for (const [name, cookie] of Object.entries({ ada, bob, cy })) ids[name] = (await as(cookie).get('/api/auth/user')).body.id;
    const group = (await as(ada).post('/api/groups', { name: 'Family' })).body;
    groupId = group.id;
    inviteCode = group.inviteCode;
    for (const cookie of [bob, cy]) expect((await as(cookie).post('/api/groups/join', { inviteCode: group.inviteCode })).status).toBe(200);
    for (const cookie of [ada, cy]) await subscribe(cookie);
    expect((await as(bob).post('/api/joy-ratings', { relationships: 1, health: 2, purpose: 1, growth: 2, joy: 1 })).status).toBe(201);
  });
  afterAll(() => app.destroy());

  it('refuses settings to a signed-out caller with 401', async () => {
    expect((await as().get('/api/settings')).status).toBe(401);
    expect((await as().patch('/api/settings', { acceptCareActions: false })).status).toBe(401);
  });

  it('starts with the name from sign-in, no zone, no reminder, and care actions accepted', async () => {
    expect((await as(bob).get('/api/settings')).body).toEqual({ firstName: 'Bob', timeZone: null, reminderTime: null, acceptCareActions: true });
  });

  it.each([
    ['a string for acceptCareActions', { acceptCareActions: 'no' }, 'acceptCareActions', 'acceptCareActions must be true or false'],
    ['an unknown setting', { acceptCareActions: false, isAdmin: true }, 'isAdmin', 'isAdmin is not an accepted field'],
    ['an unknown time zone', { timeZone: 'Mars/Olympus_Mons' }, 'timeZone', SETTINGS_FIELD_MESSAGES.timeZone],
    ['an offset instead of a zone', { timeZone: '+01:00' }, 'timeZone', SETTINGS_FIELD_MESSAGES.timeZone],
    ['a null time zone', { timeZone: null }, 'timeZone', SETTINGS_FIELD_MESSAGES.timeZone],
    ['a number as time zone', { timeZone: 1 }, 'timeZone', SETTINGS_FIELD_MESSAGES.timeZone],
    ['a reminder at 24:00', { reminderTime: '24:00' }, 'reminderTime', SETTINGS_FIELD_MESSAGES.reminderTime],
    ['a reminder without leading zero', { reminderTime: '7:30' }, 'reminderTime', SETTINGS_FIELD_MESSAGES.reminderTime],
    ['a reminder with seconds', { reminderTime: '07:30:00' }, 'reminderTime', SETTINGS_FIELD_MESSAGES.reminderTime],
    ['a blank first name', { firstName: '   ' }, 'firstName', SETTINGS_FIELD_MESSAGES.firstName],
    ['a null first name', { firstName: null }, 'firstName', SETTINGS_FIELD_MESSAGES.firstName],
    ['a first name of 81 characters', { firstName: 'a'.repeat(81) }, 'firstName', SETTINGS_FIELD_MESSAGES.firstName],
    ['a first name of 81 emoji', { firstName: '🌻'.repeat(81) }, 'firstName', SETTINGS_FIELD_MESSAGES.firstName],
    ['a null care choice', { acceptCareActions: null }, 'acceptCareActions', 'acceptCareActions must be true or false'],
    ['a first name with a direction override', { firstName: 'Bob\u202Egnp.exe' }, 'firstName', 'firstName must not contain control, direction-changing or invisible characters'],
  ])('refuses %s with 400 naming the field, changing nothing', async (_label, body, field, message) => {
    const before = await head();
    const res = await as(bob).patch('/api/settings', { acceptCareActions: false, ...body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('request.invalid');
    expect(res.body.errors).toEqual([{ field, message }]);
    expect(await head()).toBe(before);
    expect((await as(bob).get('/api/settings')).body.acceptCareActions).toBe(true);
  });

  it('refuses a change that names nothing, with 400', async () => {
    const before = await head();
    const res = await as(bob).patch('/api/settings', {});
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, code: 'settings.nothing_to_change', message: SETTINGS_MESSAGES.nothingToChange });
    expect(await head()).toBe(before);
  });

  it('sets the time zone (canonical spelling) and the reminder time, and turns the reminder off with null', async () => {
    // Waits for the projections of what was written only (those of a name change waited until a watermark: 400 ms).
    const waits = jest.spyOn(app.running.infra.pipeline, 'waitFor');
    const res = await as(cy).patch('/api/settings', { timeZone: 'america/new_york', reminderTime: '20:30' });
    expect(waits.mock.calls.map(([, options]) => options?.eventTypes)).toEqual([['UserSettingsChanged']]);
    waits.mockRestore();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ firstName: 'Cy', timeZone: 'America/New_York', reminderTime: '20:30', acceptCareActions: true });
    expect((await as(cy).get('/api/settings')).body).toEqual(res.body);
    expect(await app.running.app.get(TIME_ZONE_LOOKUP)(ids.cy)).toBe('America/New_York');
    expect(await app.running.app.get(TIME_ZONE_LOOKUP)(ids.bob)).toBe('UTC');
    const off = await as(cy).patch('/api/settings', { reminderTime: null });
    expect(off.body).toEqual({ firstName: 'Cy', timeZone: 'America/New_York', reminderTime: null, acceptCareActions: true });
    // Another person's settings are their own.
    expect((await as(ada).get('/api/settings')).body).toEqual({ firstName: 'Ada', timeZone: null, reminderTime: null, acceptCareActions: true });
  });

  it('takes a first name of 80 characters as people count them, emoji included', async () => {
    const eve = await signIn(app.baseUrl, 'eve@settings.example', 'Eve');
    const res = await as(eve).patch('/api/settings', { firstName: '🌻'.repeat(80) });
    expect(res.status).toBe(200);
    expect((await as(eve).get('/api/settings')).body.firstName).toBe('🌻'.repeat(80));
  });

  it('changes the first name as an encrypted event that others see, that a later sign-in keeps, and that deletion shreds', async () => {
    const dee = await signIn(app.baseUrl, 'dee@settings.example', 'Dee');
    const deeId = (await as(dee).get('/api/auth/user')).body.id;
    expect((await as(dee).post('/api/groups/join', { inviteCode: inviteCode })).status).toBe(200);
    const res = await as(dee).patch('/api/settings', { firstName: '  Dorothea  ' });
    expect(res.status).toBe(200);
    expect(res.body.firstName).toBe('Dorothea');
    expect((await as(dee).get('/api/auth/user')).body.firstName).toBe('Dorothea');
    const names = async () => (await as(ada).get(`/api/groups/${groupId}/members`)).body.map((m: { firstName: string }) => m.firstName);
    expect(await names()).toContain('Dorothea');

    const stored = (await app.running.infra.store.readStream(`user-${deeId}`)).filter((e) => e.type === 'FirstNameChanged');
    expect(stored).toHaveLength(1);
    expect(stored[0].metadata.schemaVersion).toBe(2);
    expect(stored[0].data.firstName).toMatch(/^enc:v1:/);
    expect(JSON.stringify(stored[0])).not.toContain('Dorothea');

    // Signing in again (the provider still says "Dee") keeps the chosen name.
    const again = await signIn(app.baseUrl, 'dee@settings.example', 'Dee');
    expect((await as(again).get('/api/settings')).body.firstName).toBe('Dorothea');
    expect(await names()).toContain('Dorothea');

    // Deleting the account destroys the key: the stored name can no longer be read.
    expect((await as(again).delete('/api/account').send({ confirm: 'DELETE' })).status).toBe(204);
    const key = await app.running.app.get(KEY_STORE).existingKey(deeId);
    expect(key).toBeNull();
    expect(decryptField(key, deeId, 'firstName', stored[0].data.firstName)).toBeNull();
  });

  it('lets a member decline care actions: senders get 403, suggestions no longer name them, and nothing is sent', async () => {
    expect(await suggested(ada)).toEqual([ids.bob]);
    const res = await as(bob).patch('/api/settings', { acceptCareActions: false });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ acceptCareActions: false });
    expect((await as(bob).get('/api/settings')).body).toMatchObject({ acceptCareActions: false });
    // Declining again changes nothing.
    const before = await head();
    expect((await as(bob).patch('/api/settings', { acceptCareActions: false })).status).toBe(200);
    expect(await head()).toBe(before);

    expect(await suggested(ada)).toEqual([]);
    const refused = await care(ada, 'bob');
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ statusCode: 403, code: 'care.declined', message: 'This member does not accept care actions.' });
    expect(await head()).toBe(before);
    expect((await as(bob).get('/api/care-actions/received')).body).toEqual([]);
  });

  it('takes care again once the member accepts it again, and keeps the choice across a restart', async () => {
    expect((await as(bob).patch('/api/settings', { acceptCareActions: true })).body).toMatchObject({ acceptCareActions: true });
    expect(await suggested(ada)).toEqual([ids.bob]);
    expect((await care(ada, 'bob')).status).toBe(201);
    await as(bob).patch('/api/settings', { acceptCareActions: false });
    await app.stop();
    await app.restart();
    expect((await as(bob).get('/api/settings')).body).toMatchObject({ acceptCareActions: false });
    expect((await care(ada, 'bob')).status).toBe(403);
    await as(bob).patch('/api/settings', { acceptCareActions: true });
  });

  it('limits care to one member to 3 a day per sender, with a clear 429 and Retry-After, even in a burst', async () => {
    const before = (await as(bob).get('/api/care-actions/received')).body.length; // 1 from ada
    const answers = await Promise.all(Array.from({ length: 20 }, () => care(ada, 'bob')));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(3 - before);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited).toHaveLength(20 - (3 - before));
    for (const res of limited) {
      expect(res.body).toEqual({ statusCode: 429, code: 'care.pair_limit', message: CARE_MESSAGES.pairLimit });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(23 * 3600);
    }
    expect((await as(bob).get('/api/care-actions/received')).body).toHaveLength(3);
    // Another sender is not held back by ada's limit.
    expect((await care(cy, 'bob')).status).toBe(201);
  });
});
