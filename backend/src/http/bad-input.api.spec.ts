import request from 'supertest';
import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';

/** Every endpoint that takes a body, with one valid body to mutate. */
const endpoints: { path: string; valid: Record<string, unknown> }[] = [
  { path: '/api/joy-ratings', valid: { relationships: 3, health: 4, purpose: 2, growth: 5, joy: 3 } },
  { path: '/api/groups', valid: { name: 'Book club', description: 'We read' } },
  { path: '/api/groups/join', valid: { inviteCode: 'ABCDEFGH' } },
];

const huge = 'x'.repeat(100 * 1024);

function malformedBodies(valid: Record<string, unknown>): [string, unknown][] {
  const [field] = Object.keys(valid);
  const numeric = Object.keys(valid).filter((k) => typeof valid[k] === 'number');
  const withNumbers = (n: number) => ({ ...valid, ...Object.fromEntries(numeric.map((k) => [k, n])) });
  const numberCases: [string, unknown][] = numeric.length
    ? [['out-of-range numbers', withNumbers(1e308)], ['negative numbers', withNumbers(-3)], ['fractional numbers', withNumbers(2.5)]]
    : [];
  return [
    ...numberCases,
    ['an empty object', {}],
    ['an array', [valid]],
    ['null', null],
    ['a number', 42],
    ['a string', 'hello'],
    ['wrong types', Object.fromEntries(Object.keys(valid).map((k) => [k, typeof valid[k] === 'number' ? 'three' : 3]))],
    ['booleans', Object.fromEntries(Object.keys(valid).map((k) => [k, true]))],
    ['nested objects', Object.fromEntries(Object.keys(valid).map((k) => [k, { $gt: '' }]))],
    ['a 100 KB string', { ...valid, [field]: huge }],
    ['an unknown field', { ...valid, isAdmin: true }],
    ['a __proto__ key', JSON.parse(`{"__proto__": {"isAdmin": true}, ${JSON.stringify(valid).slice(1, -1)}}`)],
    ['a constructor key', { ...valid, constructor: { prototype: { isAdmin: true } } }],
    ['a prototype key', { ...valid, prototype: { isAdmin: true } }],
  ];
}

describe('bad input never breaks anything', () => {
  let app: TestApp;
  let cookie: string;
  beforeAll(async () => {
    app = await startTestApp();
    cookie = await signIn(app.baseUrl, 'fuzz@example.com', 'Fuzz');
  });
  afterAll(() => app.destroy());

  for (const { path, valid } of endpoints) {
    describe(`POST ${path}`, () => {
      it.each(malformedBodies(valid))('answers %s with a clear 4xx and appends nothing', async (_label, body) => {
        const before = await app.running.infra.store.headPosition();
        const res = await api(app.baseUrl, cookie).post(path).set('Content-Type', 'application/json').send(JSON.stringify(body));
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        expect(res.body).toEqual(expect.objectContaining({ statusCode: res.status, message: expect.any(String) }));
        expect(res.body.message.length).toBeGreaterThan(5);
        expect(await app.running.infra.store.headPosition()).toBe(before);
      });

      it.each([
        ['an array', JSON.stringify([valid])],
        ['an empty array', '[]'],
        ['null', 'null'],
        ['a number', '42'],
        ['a string', '"hello"'],
      ])('answers %s with 400 saying the body must be a JSON object', async (_label, raw) => {
        const before = await app.running.infra.store.headPosition();
        const res = await api(app.baseUrl, cookie).post(path).set('Content-Type', 'application/json').send(raw);
        const message = 'Request body must be a JSON object';
        expect(res.body).toEqual({ statusCode: 400, code: 'request.invalid', message, errors: [{ field: 'body', message }] });
        expect(await app.running.infra.store.headPosition()).toBe(before);
      });

      it('answers a body said to be in a charset other than UTF-8 with 415, and takes utf-8 however it is written', async () => {
        const before = await app.running.infra.store.headPosition();
        const utf16 = await api(app.baseUrl, cookie).post(path).set('Content-Type', 'application/json; charset=utf-16').send(JSON.stringify(valid));
        expect(utf16.status).toBe(415);
        expect(utf16.body).toEqual({ statusCode: 415, code: 'request.not_json', message: 'Request body must be UTF-8 JSON' });
        expect(await app.running.infra.store.headPosition()).toBe(before);
        const latin1 = await api(app.baseUrl, cookie).post(path).set('Content-Type', 'application/json; charset="ISO-8859-1"').send(JSON.stringify(valid));
        expect(latin1.status).toBe(415);
        // The same body as UTF-8, spelled as clients do: not refused for its charset (it may still be refused on its own terms).
        for (const type of ['application/json; charset=UTF-8', 'application/json;charset="utf-8"']) {
          const res = await api(app.baseUrl, cookie).post(path).set('Content-Type', type).send(JSON.stringify({}));
          expect(res.status).toBe(400);
          expect(res.body.code).toBe('request.invalid');
        }
      });

      it('answers bytes that are not UTF-8 with 400 saying so (never stored as "\uFFFD"), and appends nothing', async () => {
        const before = await app.running.infra.store.headPosition();
        const latin1 = Buffer.concat([Buffer.from('{"name":"Caf'), Buffer.from([0xe9, 0xff]), Buffer.from('"}')]);
        const res = await api(app.baseUrl, cookie).post(path).set('Content-Type', 'application/json').serialize((bytes: Buffer) => bytes as unknown as string).send(latin1);
        expect(res.body).toEqual({ statusCode: 400, code: 'request.malformed_json', message: 'Request body is not valid UTF-8: send the JSON encoded as UTF-8' });
        expect(await app.running.infra.store.headPosition()).toBe(before);
      });

      it.each([
        ['invalid JSON', 'application/json', '{"a": 1,'],
        ['a JSON body sent as text', 'text/plain', '{}'],
        ['a form', 'application/x-www-form-urlencoded', 'a=1&b=2'],
        ['XML', 'application/xml', '<a>1</a>'],
      ])('answers %s with a clear 4xx and appends nothing', async (_label, type, raw) => {
        const before = await app.running.infra.store.headPosition();
        const res = await api(app.baseUrl, cookie).post(path).set('Content-Type', type).send(raw);
        expect([400, 415]).toContain(res.status);
        expect(res.body.message).toEqual(expect.any(String));
        expect(await app.running.infra.store.headPosition()).toBe(before);
      });
    });
  }

  // The name rule over HTTP, once (groups/groups.dto.spec.ts and names/name-rule.spec.ts have the rest of it).
  it('refuses a group name with a right-to-left override: 400 naming the field, nothing stored', async () => {
    const before = await app.running.infra.store.headPosition();
    const res = await api(app.baseUrl, cookie).post('/api/groups', { name: 'Family\u202Eylimaf' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('name must not contain control, direction-changing or invisible characters');
    expect(res.body).toEqual({ statusCode: 400, code: 'request.invalid', message: res.body.message, errors: [{ field: 'name', message: res.body.message }] });
    expect(await app.running.infra.store.headPosition()).toBe(before);
  });

  it('does not let a __proto__ key pollute any object', async () => {
    await api(app.baseUrl, cookie).post('/api/groups').set('Content-Type', 'application/json').send('{"__proto__": {"polluted": "yes"}, "name": "x"}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const me = await api(app.baseUrl, cookie).get('/api/auth/user');
    expect(me.body.polluted).toBeUndefined();
  });

  it('answers a JSON body over 100 KB with 413 before reading it, naming the limit', async () => {
    const res = await api(app.baseUrl, cookie).post('/api/groups').set('Content-Type', 'application/json').send(JSON.stringify({ name: 'x'.repeat(200 * 1024) }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ statusCode: 413, code: 'request.too_large', message: 'Request body is too large (100 KB at most)' });
  });

  it.each([
    ['arrays 10,000 deep', `${'['.repeat(10_000)}${']'.repeat(10_000)}`],
    ['objects 33 deep', `${'{"a":'.repeat(33)}1${'}'.repeat(33)}`],
    ['a deep value beside valid fields', `{"name":"Club","description":${'['.repeat(5000)}${']'.repeat(5000)}}`],
  ])('answers JSON nested %s with 400 naming the body, before parsing it', async (_label, raw) => {
    const before = await app.running.infra.store.headPosition();
    const res = await api(app.baseUrl, cookie).post('/api/groups').set('Content-Type', 'application/json').send(raw);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, code: 'request.invalid', message: 'Request body is nested too deeply (32 levels at most)' });
    expect(await app.running.infra.store.headPosition()).toBe(before);
  });

  it('still accepts brackets inside strings, however many', async () => {
    const res = await api(app.baseUrl, cookie).post('/api/groups', { name: '[[[[{{{{', description: '['.repeat(400) + '\\"{' });
    expect(res.status).toBe(201);
  });

  it('answers a webhook body over 1 MB with 413, never 500', async () => {
    const res = await api(app.baseUrl).post('/api/billing/webhook').set('Content-Type', 'application/json').send(JSON.stringify({ pad: 'x'.repeat(1100 * 1024) }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ statusCode: 413, code: 'request.too_large', message: 'Request body is too large (1 MB at most)' });
  });

  it('never echoes a long input in an error answer (< 4 KB in all)', async () => {
    const long = 'y'.repeat(12 * 1024);
    for (const res of [
      await api(app.baseUrl, cookie).get(`/api/${long}`),
      await api(app.baseUrl, cookie).post('/api/groups', { name: long }),
      await api(app.baseUrl, cookie).post('/api/groups/join', { inviteCode: long }),
      await api(app.baseUrl, cookie).post('/api/joy-ratings', { relationships: long, health: long, purpose: long, growth: long, joy: long, [long]: 1 }),
    ]) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.text.length).toBeLessThan(4096);
      expect(res.text).not.toContain('y'.repeat(300));
    }
  });

  it('refuses a stray field on the routes that take no body (a "dryRun" on a delete is not ignored), and changes nothing', async () => {
    const group = (await api(app.baseUrl, cookie).post('/api/groups', { name: 'Kept' })).body;
    const rating = (await api(app.baseUrl, cookie).post('/api/joy-ratings', endpoints[0].valid)).body;
    const before = await app.running.infra.store.headPosition();
    const agent = request(app.baseUrl);
    const routes: [string, string][] = [
      ['delete', `/api/groups/${group.id}`],
      ['post', `/api/groups/${group.id}/leave`],
      ['post', `/api/groups/${group.id}/invite-code`],
      ['delete', `/api/groups/${group.id}/members/someone`],
      ['delete', `/api/joy-ratings/${rating.id}`],
      ['post', '/api/care-actions/some-care/thank'],
      ['post', '/api/account/passkeys/options'],
      ['delete', '/api/account/passkeys/some-passkey'],
    ];
    for (const [method, path] of routes) {
      const res = await (method === 'delete' ? agent.delete(path) : agent.post(path)).set('Cookie', cookie).send({ dryRun: true });
      expect([path, res.body]).toEqual([path, { statusCode: 400, code: 'request.invalid', message: 'dryRun is not an accepted field', errors: [{ field: 'dryRun', message: 'dryRun is not an accepted field' }] }]);
    }
    expect(await app.running.infra.store.headPosition()).toBe(before);
    expect((await api(app.baseUrl, cookie).get(`/api/groups/${group.id}`)).body.inviteCode).toBe(group.inviteCode);
    expect((await api(app.baseUrl, cookie).get('/api/joy-ratings')).body.map((r: { id: string }) => r.id)).toContain(rating.id);
    // Without a body, or with an empty one, they act.
    expect((await agent.delete(`/api/joy-ratings/${rating.id}`).set('Cookie', cookie).send({})).status).toBe(204);
    expect((await agent.delete(`/api/groups/${group.id}`).set('Cookie', cookie)).status).toBe(204);
  });

  it('answers a method a path does not take with 405 and the methods it takes (Allow), an unknown path with 404, and changes nothing', async () => {
    const before = await app.running.infra.store.headPosition();
    const agent = request(app.baseUrl);
    const put = await agent.put('/api/joy-ratings').set('Cookie', cookie).send(endpoints[0].valid);
    expect([put.status, put.headers.allow, put.body]).toEqual([
      405,
      'GET, HEAD, POST',
      { statusCode: 405, code: 'request.method_not_allowed', message: 'PUT is not allowed on /api/joy-ratings: it takes GET, HEAD, POST' },
    ]);
    // A path with a parameter: a rating is corrected or deleted, never posted to.
    const rating = await agent.post('/api/joy-ratings/some-rating').set('Cookie', cookie).send(endpoints[0].valid);
    expect([rating.status, rating.headers.allow]).toEqual([405, 'DELETE, PUT']);
    expect(await app.running.infra.store.headPosition()).toBe(before);
    const unknown = await agent.get('/api/no-such-thing').set('Cookie', cookie);
    expect([unknown.status, unknown.headers.allow, unknown.body.code]).toEqual([404, undefined, 'request.not_found']);
  });

  it('refuses a bracketed query parameter (from[]=…) with 400 naming it, where it was left out and all-time figures answered', async () => {
    const agent = request(app.baseUrl);
    const summary = await agent.get('/api/joy-ratings/summary?from[]=2026-11-01').set('Cookie', cookie);
    const message = 'The query parameter "from[]" is not taken: write from=value, once';
    expect(summary.body).toEqual({ statusCode: 400, code: 'request.invalid', message, errors: [{ field: 'from[]', message }] });
    for (const query of ['limit[]=1', 'before[0]=x', 'limit[a]=1&limit=2', '[]=1']) {
      const res = await agent.get(`/api/joy-ratings?${query}`).set('Cookie', cookie);
      expect([query, res.status, res.body.code]).toEqual([query, 400, 'request.invalid']);
    }
    // Brackets inside a value are the value's business.
    expect((await agent.get('/api/joy-ratings/summary?from=%5B2026%5D').set('Cookie', cookie)).body.errors).toEqual([{ field: 'from', message: expect.any(String) }]);
    expect((await agent.get('/api/joy-ratings?limit=5').set('Cookie', cookie)).status).toBe(200);
  });

  it('answers a path parameter that is not valid %-encoding with 400 saying how to write a %', async () => {
    const res = await request(app.baseUrl).get('/api/groups/50%off').set('Cookie', cookie);
    expect(res.body).toEqual({ statusCode: 400, code: 'request.invalid', message: 'The address holds "50%off", which is not valid %-encoding: a % in a path is written %25' });
    expect((await request(app.baseUrl).get('/api/groups/50%25off').set('Cookie', cookie)).body.code).toBe('group.not_found');
  });
});
