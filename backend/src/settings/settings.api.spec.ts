import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';
import { CARE_MESSAGES } from '../care/care.decider';

jest.setTimeout(30_000);

describe('settings and declining care actions, over HTTP', () => {
  let app: TestApp;
  let ada: string; // premium sender
  let bob: string; // rates low
  let cy: string; // premium sender too
  const ids: Record<string, string> = {};
  let groupId: string;
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
    for (const cookie of [bob, cy]) expect((await as(cookie).post('/api/groups/join', { inviteCode: group.inviteCode })).status).toBe(200);
    for (const cookie of [ada, cy]) await subscribe(cookie);
    expect((await as(bob).post('/api/joy-ratings', { relationships: 1, health: 2, purpose: 1, growth: 2, joy: 1 })).status).toBe(201);
  });
  afterAll(() => app.destroy());

  it('refuses settings to a signed-out caller with 401', async () => {
    expect((await as().get('/api/settings')).status).toBe(401);
    expect((await as().patch('/api/settings', { acceptCareActions: false })).status).toBe(401);
  });

  it('accepts care actions by default', async () => {
    expect((await as(bob).get('/api/settings')).body).toEqual({ acceptCareActions: true });
  });

  it.each([
    ['a string', { acceptCareActions: 'no' }, 'acceptCareActions must be true or false'],
    ['an unknown setting', { acceptCareActions: false, isAdmin: true }, 'isAdmin is not an accepted field'],
    ['nothing to change', {}, 'Send at least one setting to change (acceptCareActions).'],
  ])('refuses %s with 400 naming the field, changing nothing', async (_label, body, message) => {
    const before = await head();
    const res = await as(bob).patch('/api/settings', body);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(message);
    expect(await head()).toBe(before);
  });

  it('lets a member decline care actions: senders get 403, suggestions no longer name them, and nothing is sent', async () => {
    expect(await suggested(ada)).toEqual([ids.bob]);
    const res = await as(bob).patch('/api/settings', { acceptCareActions: false });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ acceptCareActions: false });
    expect((await as(bob).get('/api/settings')).body).toEqual({ acceptCareActions: false });
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
    expect((await as(bob).patch('/api/settings', { acceptCareActions: true })).body).toEqual({ acceptCareActions: true });
    expect(await suggested(ada)).toEqual([ids.bob]);
    expect((await care(ada, 'bob')).status).toBe(201);
    await as(bob).patch('/api/settings', { acceptCareActions: false });
    await app.stop();
    await app.restart();
    expect((await as(bob).get('/api/settings')).body).toEqual({ acceptCareActions: false });
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
