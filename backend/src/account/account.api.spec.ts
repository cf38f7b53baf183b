import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, RunningApp } from '../app';
import { freePort } from '../bench/app-process';
import { loadConfig, type AppConfig } from '../config';
import { metadataFor } from '../event-store/decider';
import type { EventToAppend } from '../event-store/event-store.port';
import { FACTOR_NAMES as FACTORS } from '@joy/domain';
import type { SqliteReadModelStore } from '../read-models/sqlite-read-model-store';
import type { VersionedReadModelStore } from '../read-models/versioned-read-model-store';
import { api, signIn } from '../testing/app-harness';
import { assertEventsMatchContract } from '../testing/event-contract';
import { CSV_COLUMNS } from './account-export';

jest.setTimeout(180_000);

const SEEDED = 10_000;
/** Distinctive, so that a byte search cannot match by chance inside ids or ciphertexts. */
const ZEL = { email: 'zelphina.quillfeather@example.com', firstName: 'Zelphina' };

/**
 * The whole app in embedded mode, like the test harness, but with Nest's logger ON and everything written to
 * stdout/stderr captured: the deletion test also checks that no personal data reached the logs.
 */
async function startLoggingApp() {
  const dataDir = mkdtempSync(join(tmpdir(), 'joy-account-'));
  const port = await freePort();
  const config: AppConfig = loadConfig({
    PORT: String(port),
    DATA_DIR: dataDir,
    FRONTEND_DIST: join(dataDir, 'no-frontend'),
    AUTH_DEV_LOGIN: '1',
    BILLING_SANDBOX: '1',
    RATE_LIMIT_SIGNIN_PER_15_MIN: '10000',
    RATE_LIMIT_WRITES_PER_MIN: '10000',
    // In-process: the app's event loop is the test's too (seeding 10,000 events), so no load shedding.
    SHED_EVENT_LOOP_DELAY_MS: '0',
  });
  const logs: string[] = [];
  const capture = (stream: NodeJS.WriteStream) =>
    jest.spyOn(stream, 'write').mockImplementation(((chunk: string | Uint8Array) => {
      logs.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    }) as never);
  const spies = [capture(process.stdout), capture(process.stderr)];
  const running: RunningApp = await createApp(config, { logger: ['log', 'warn', 'error', 'debug', 'verbose'] });
  await running.app.listen(port, '127.0.0.1');
  return {
    baseUrl: config.publicUrl,
    dataDir,
    running,
    logs,
    async destroy() {
      try {
        await assertEventsMatchContract(running.infra.store);
      } finally {
        await running.close().catch(() => undefined);
        spies.forEach((s) => s.mockRestore());
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

/** Every document of every read-model collection, as JSON (the embedded default's SQLite store). */
async function allReadModelJson(readModels: VersionedReadModelStore): Promise<Map<string, string>> {
  const store = readModels.inner as SqliteReadModelStore;
  const all = await Promise.all(store.collectionNames().map(async (name) => [name, JSON.stringify(await store.find(name, {}))] as const));
  return new Map(all);
}

/** The response of a GET as raw chunks, to see that the body arrives in pieces (streamed, not one buffer). */
function rawGet(url: string, cookie: string): Promise<{ headers: http.IncomingHttpHeaders; chunks: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { cookie } }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ headers: res.headers, chunks: parts.length, body: Buffer.concat(parts).toString('utf8') }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

describe('account: export and deletion over HTTP (embedded default)', () => {
  let app: Awaited<ReturnType<typeof startLoggingApp>>;
  let zel: string;
  let zel2: string; // a second session of the same person
  let bob: string;
  let cy: string;
  const ids: Record<string, string> = {};
  let group: { id: string; inviteCode: string };
  let bobRatingId: string;
  let cyRatingId: string;
  const as = (cookie?: string) => api(app.baseUrl, cookie);
  const rate = async (cookie: string, score: number) => {
    const res = await as(cookie).post('/api/joy-ratings', Object.fromEntries(FACTORS.map((f) => [f, score])));
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const subscribe = async (cookie: string) => {
    const { clientSecret } = (await as(cookie).post('/api/create-subscription')).body;
    expect((await as(cookie).post('/api/billing/sandbox/confirm', { clientSecret, cardNumber: '4242424242424242' })).status).toBe(200);
  };
  /** The seeded ratings' factors: deterministic, the last one low (overall 1: Zelphina "needs support"). */
  const seededScores = (i: number) =>
    i === SEEDED - 1 ? [1, 1, 1, 1, 1] : [1 + (i % 5), 1 + ((i + 1) % 5), 1 + ((i + 2) % 5), 1 + ((i + 3) % 5), 1 + ((i * 7) % 5)];

  beforeAll(async () => {
    app = await startLoggingApp();
    zel = await signIn(app.baseUrl, ZEL.email, ZEL.firstName);
    zel2 = await signIn(app.baseUrl, ZEL.email, ZEL.firstName);
    bob = await signIn(app.baseUrl, 'bob@example.com', 'Bob');
    cy = await signIn(app.baseUrl, 'cy@example.com', 'Cy');
    for (const [name, cookie] of Object.entries({ zel, bob, cy })) ids[name] = (await as(cookie).get('/api/auth/user')).body.id;

    group = (await as(zel).post('/api/groups', { name: 'Sunrise Club' })).body;
    for (const cookie of [bob, cy]) expect((await as(cookie).post('/api/groups/join', { inviteCode: group.inviteCode })).status).toBe(200);
    await rate(zel, 4);
    bobRatingId = await rate(bob, 2);
    cyRatingId = await rate(cy, 4);
    await subscribe(zel);
    await subscribe(cy);
    expect((await as(zel).post('/api/care-actions', { groupId: group.id, recipientId: ids.bob, kind: 'flowers', message: 'Thinking of you' })).status).toBe(201);
    expect((await as(cy).post('/api/care-actions', { groupId: group.id, recipientId: ids.zel, kind: 'handwritten_card' })).status).toBe(201);

    // 10,000 ratings written straight into Zelphina's stream (fast), then read back through the API.
    const store = app.running.infra.store;
    const stream = `ratings-${ids.zel}`;
    let version = (await store.readStream(stream)).length;
    // Made after her rating of the API (a millisecond apart), as if she had rated 10,000 times since: ratings count
    // by the time they were made (an imported one may be older than the stream's last).
    const start = Date.parse((await as(zel).get('/api/joy-ratings/latest')).body.createdAt) + 1;
    let position = 0;
    for (let from = 0; from < SEEDED; from += 1000) {
      const batch: EventToAppend[] = [];
      for (let i = from; i < Math.min(SEEDED, from + 1000); i++) {
        const s = seededScores(i);
        const factors = Object.fromEntries(FACTORS.map((f, k) => [f, s[k]]));
        const overallScore = Math.round((s.reduce((a, b) => a + b, 0) / 5) * 10) / 10;
        batch.push({
          type: 'RatingSubmitted',
          data: { ratingId: `seeded-${i}`, userId: ids.zel, ...factors, overallScore, submittedAt: new Date(start + i).toISOString() },
          metadata: metadataFor({ actorUserId: ids.zel }, `seeded-${ids.zel}-${i}`),
        });
      }
      const result = await store.appendToStream(stream, batch, { expectedVersion: version });
      version = result.nextVersion;
      position = result.position;
    }
    await app.running.infra.pipeline.waitFor(position, { eventTypes: ['RatingSubmitted'], timeoutMs: 120_000 });
  });
  afterAll(() => app?.destroy());

  describe('export', () => {
    let thankedAt: string;
    beforeAll(async () => {
      // Bob thanks her for the flowers: the care she sent carries when, in the JSON and the CSV alike.
      const [flowers] = (await as(bob).get('/api/care-actions/received')).body;
      const thanked = await as(bob).post(`/api/care-actions/${flowers.id}/thank`);
      expect(thanked.status).toBe(200);
      thankedAt = thanked.body.thankedAt;
    });

    it('refuses a signed-out caller (401) and an unknown format (400)', async () => {
      expect((await as().get('/api/account/export?format=json')).status).toBe(401);
      const bad = await as(zel).get('/api/account/export?format=xml');
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe('format must be json or csv');
    });

    it('streams the JSON export as a download: profile, 10,001 ratings with all factors, groups, care sent and received', async () => {
      // A group Zel made and deleted is in none of her lists, so not in her export either.
      const gone = (await as(zel).post('/api/groups', { name: 'Short-lived' })).body;
      expect((await as(zel).delete(`/api/groups/${gone.id}`)).status).toBe(204);
      const raw = await rawGet(`${app.baseUrl}/api/account/export?format=json`, zel);
      expect(raw.headers['content-type']).toMatch(/^application\/json/);
      expect(raw.headers['content-disposition']).toMatch(/^attachment; filename="joy-export-\d{4}-\d{2}-\d{2}\.json"$/);
      expect(raw.headers['content-disposition']).toContain(new Date().toISOString().slice(0, 10));
      // Written in pieces as it is produced: chunked, no length known up front, many chunks.
      expect(raw.headers['transfer-encoding']).toBe('chunked');
      expect(raw.headers['content-length']).toBeUndefined();
      expect(raw.chunks).toBeGreaterThan(1);

      const data = JSON.parse(raw.body);
      expect(data.formatVersion).toBe(1);
      expect(Object.keys(data)).toEqual(['exportedAt', 'formatVersion', 'profile', 'settings', 'ratings', 'groups', 'careActionsSent', 'careActionsReceived']);
      expect(data.profile).toEqual({ id: ids.zel, email: ZEL.email, firstName: ZEL.firstName, profileImageUrl: null, registeredAt: expect.any(String) });
      // Her settings as Settings shows them (she never changed one), and on no device.
      expect(data.settings).toEqual({ timeZone: null, reminderTime: null, reminderDevices: 0, acceptCareActions: true });
      expect(data.ratings).toHaveLength(SEEDED + 1);
      // Oldest first: the one made through the API, then the seeded ones in order.
      expect(data.ratings[0]).toMatchObject({ relationships: 4, health: 4, purpose: 4, growth: 4, joy: 4, overallScore: 4 });
      expect(data.ratings[1]).toEqual({
        id: 'seeded-0', createdAt: expect.any(String), overallScore: 2.2, relationships: 1, health: 2, purpose: 3, growth: 4, joy: 1, day: expect.any(String), note: null,
      });
      expect(data.ratings[SEEDED]).toMatchObject({ id: `seeded-${SEEDED - 1}`, overallScore: 1, joy: 1 });
      for (const r of [data.ratings[0], data.ratings[5000]]) expect(Object.keys(r).sort()).toEqual(['createdAt', 'day', 'growth', 'health', 'id', 'joy', 'note', 'overallScore', 'purpose', 'relationships']);
      expect(data.groups).toEqual([{ id: group.id, name: 'Sunrise Club', role: 'creator', owner: true, joinedAt: expect.any(String) }]);
      expect(data.careActionsSent).toEqual([
        expect.objectContaining({ groupId: group.id, groupName: 'Sunrise Club', otherUserId: ids.bob, otherFirstName: 'Bob', kind: 'flowers', message: 'Thinking of you', thankedAt }),
      ]);
      expect(data.careActionsReceived).toEqual([
        expect.objectContaining({ otherUserId: ids.cy, otherFirstName: 'Cy', kind: 'handwritten_card', message: null }),
      ]);
      // Nobody else's data.
      expect(raw.body).not.toContain(bobRatingId);
      expect(raw.body).not.toContain(cyRatingId);
      expect(raw.body).not.toContain('bob@example.com');
      expect(raw.body).not.toContain('cy@example.com');
    });

    it('streams the CSV export: one file, a section column, one row per rating with all factors', async () => {
      const raw = await rawGet(`${app.baseUrl}/api/account/export?format=csv`, zel);
      expect(raw.headers['content-type']).toMatch(/^text\/csv/);
      expect(raw.headers['content-disposition']).toMatch(/^attachment; filename="joy-export-\d{4}-\d{2}-\d{2}\.csv"$/);
      expect(raw.headers['transfer-encoding']).toBe('chunked');
      expect(raw.chunks).toBeGreaterThan(1);

      // A byte-order mark first: Excel then reads the file as UTF-8 (Persian notes, emoji), not as the local code page.
      expect(raw.body.startsWith('\uFEFF')).toBe(true);
      const lines = raw.body.slice(1).split('\r\n').filter((l) => l !== '');
      expect(lines[0]).toBe(CSV_COLUMNS.join(','));
      const rows = lines.slice(1).map((l) => l.split(','));
      const bySection = (s: string) => rows.filter((r) => r[0] === s);
      expect(bySection('profile')).toHaveLength(1);
      expect(lines[1]).toContain(ZEL.email);
      expect(bySection('rating')).toHaveLength(SEEDED + 1);
      const col = (name: (typeof CSV_COLUMNS)[number]) => CSV_COLUMNS.indexOf(name);
      const seeded0 = bySection('rating').find((r) => r[col('id')] === 'seeded-0')!;
      expect([col('overall_score'), ...FACTORS.map((f) => col(f))].map((i) => seeded0[i])).toEqual(['2.2', '1', '2', '3', '4', '1']);
      expect(bySection('group')).toEqual([expect.arrayContaining(['group', group.id, 'Sunrise Club', 'creator'])]);
      expect(bySection('group')[0][col('owner')]).toBe('true');
      // One settings row, in words a spreadsheet shows as they are (not 1 and an empty cell).
      const settings = bySection('settings');
      expect(settings).toHaveLength(1);
      expect(['time_zone', 'reminder_time', 'reminder_devices', 'accept_care_actions'].map((c) => settings[0][col(c as (typeof CSV_COLUMNS)[number])])).toEqual(['', '', '0', 'true']);
      // A cell that begins as a formula would (ids are base64url: one in 64 begins with '-') carries a leading ' (docs/account-export.md).
      const cell = (value: string) => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);
      expect(bySection('care_sent')[0]).toEqual(expect.arrayContaining(['flowers', 'Thinking of you', cell(ids.bob), 'Bob']));
      expect(bySection('care_sent')[0][col('thanked_at')]).toBe(thankedAt);
      expect(bySection('care_received')[0][col('thanked_at')]).toBe('');
      expect(bySection('care_received')[0]).toEqual(expect.arrayContaining(['handwritten_card', cell(ids.cy), 'Cy']));
      expect(rows.every((r) => r.length === CSV_COLUMNS.length)).toBe(true);
      expect(raw.body).not.toContain(bobRatingId);
      expect(raw.body).not.toContain('bob@example.com');
    });
  });

  describe('deletion', () => {
    let before: { detail: any; members: any[]; ratings: any[] };

    beforeAll(async () => {
      before = {
        detail: (await as(bob).get(`/api/groups/${group.id}`)).body,
        members: (await as(bob).get(`/api/groups/${group.id}/members`)).body,
        ratings: (await as(bob).get(`/api/groups/${group.id}/ratings`)).body,
      };
    });

    it('refuses without the confirmation word, appending nothing (400)', async () => {
      const head = await app.running.infra.store.headPosition();
      for (const body of [undefined, {}, { confirm: 'delete' }, { confirm: 'yes' }, { confirm: 'DELETE', also: 1 }]) {
        const req = as(zel).delete('/api/account');
        const res = body === undefined ? await req : await req.send(body);
        expect(res.status).toBe(400);
      }
      const res = await as(zel).delete('/api/account').send({ confirm: 'nope' });
      expect(res.body).toEqual({ statusCode: 400, code: 'request.invalid', message: 'confirm must be "DELETE": type DELETE to confirm the deletion.', errors: [{ field: 'confirm', message: expect.any(String) }] });
      expect(await app.running.infra.store.headPosition()).toBe(head);
      expect((await as().delete('/api/account').send({ confirm: 'DELETE' })).status).toBe(401);
      expect((await as(zel).get('/api/auth/user')).status).toBe(200);
    });

    it('shows the group with Zelphina before (members, her low score among the suggestions)', async () => {
      expect(before.members.map((m) => m.id)).toEqual([ids.zel, ids.bob, ids.cy]);
      expect(before.detail.memberCount).toBe(3);
      expect((await as(cy).get(`/api/groups/${group.id}/care-suggestions`)).body.map((s: { userId: string }) => s.userId)).toEqual([ids.zel, ids.bob]);
    });

    it('deletes the account: 204, signed out, and every other session of hers ends too', async () => {
      const res = await as(zel).delete('/api/account').send({ confirm: 'DELETE' });
      expect(res.status).toBe(204);
      expect(String(res.headers['set-cookie'])).toMatch(/joy\.sid=;/);
      expect((await as(zel).get('/api/auth/user')).status).toBe(401);
      expect((await as(zel2).get('/api/auth/user')).status).toBe(401);
      expect((await as(zel2).get('/api/joy-ratings')).status).toBe(401);
      expect((await as(zel2).get('/api/account/export?format=json')).status).toBe(401);
    });

    it('ended her Joy Premium at once and recorded MemberLeft and UserDeleted', async () => {
      const store = app.running.infra.store;
      const sub = await store.readStream(`subscription-${ids.zel}`);
      expect(sub.at(-1)).toMatchObject({ type: 'SubscriptionEnded', data: { reason: 'canceled' } });
      const user = await store.readStream(`user-${ids.zel}`);
      // One MemberLeft per group on her stream, the one she deleted too (her stream alone does not know it is gone).
      expect(user.slice(-3).map((e) => e.type)).toEqual(['MemberLeft', 'MemberLeft', 'UserDeleted']);
      expect(user.slice(-3, -1).map((e) => e.data)).toContainEqual(expect.objectContaining({ groupId: group.id, userId: ids.zel, reason: 'account_deleted' }));
    });

    it("keeps the other members' views intact and correct: members, figures, ratings, suggestions", async () => {
      const members = (await as(bob).get(`/api/groups/${group.id}/members`)).body;
      // She owned the group: Bob, the longest-standing member left, owns it now.
      expect(members).toEqual(before.members.filter((m) => m.id !== ids.zel).map((m) => ({ ...m, isOwner: m.id === ids.bob })));
      expect(members.map((m: { firstName: string }) => m.firstName)).toEqual(['Bob', 'Cy']);
      expect((await as(bob).get(`/api/groups/${group.id}`)).body.ownerId).toBe(ids.bob);
      const detail = (await as(bob).get(`/api/groups/${group.id}`)).body;
      expect(detail).toMatchObject({ id: group.id, name: 'Sunrise Club', memberCount: 2, averageScore: 3, activeThisWeek: 2, recentRatingsCount: 2 });
      const ratings = (await as(cy).get(`/api/groups/${group.id}/ratings`)).body;
      // Before: her 10,001 ratings filled the group's newest 100; now only the others' remain, newest first.
      expect(before.ratings).toHaveLength(100);
      expect(ratings.map((r: { id: string; userId: string }) => [r.id, r.userId])).toEqual([
        [cyRatingId, ids.cy],
        [bobRatingId, ids.bob],
      ]);
      expect((await as(cy).get(`/api/groups/${group.id}/care-suggestions`)).body).toEqual([{ userId: ids.bob, firstName: 'Bob', latestScore: 2 }]);
      // Bob's care from her stays his, from a deleted user (no name).
      expect((await as(bob).get('/api/care-actions/received')).body).toEqual([expect.objectContaining({ senderId: ids.zel, senderFirstName: null, kind: 'flowers' })]);
      // The group still works for the others.
      expect((await as(cy).get('/api/groups')).body.map((g: { id: string }) => g.id)).toEqual([group.id]);
    });

    it('leaves nothing readable of her in the events file (raw bytes)', async () => {
      for (const file of ['events.sqlite', 'events.sqlite-wal']) {
        const path = join(app.dataDir, file);
        if (!existsSync(path)) continue;
        const bytes = readFileSync(path);
        expect(bytes.indexOf(ZEL.email)).toBe(-1);
        expect(bytes.indexOf('zelphina')).toBe(-1);
        expect(bytes.indexOf(ZEL.firstName)).toBe(-1);
        // Other people's events are encrypted as well.
        expect(bytes.indexOf('bob@example.com')).toBe(-1);
      }
    });

    it('leaves nothing of her in any read-model collection, and none of her own documents', async () => {
      const json = await allReadModelJson(app.running.infra.readModels as VersionedReadModelStore);
      expect(json.size).toBeGreaterThan(5);
      for (const [name, text] of json) {
        expect([name, text.toLowerCase().includes('zelphina')]).toEqual([name, false]);
      }
      // Her id remains only where other people's data refers to her (care she sent, the group she created) and
      // in anonymous weekly counts; none of her own documents (profile, ratings, memberships, subscription...) stays.
      const withId = [...json].filter(([, text]) => text.includes(ids.zel)).map(([name]) => name.replace(/__v\d+$/, ''));
      for (const name of withId) expect(['care-actions', 'groups', 'group-weekly-activity']).toContain(name);
      const readModels = app.running.infra.readModels;
      for (const collection of ['user-profiles', 'latest-ratings', 'memberships', 'group-member-stats', 'care-suggestions', 'subscriptions']) {
        expect([collection, await readModels.get(collection, ids.zel)]).toEqual([collection, null]);
      }
      expect(await readModels.find('ratings', { userId: ids.zel })).toEqual([]);
    });

    it('wrote no personal data of hers to the logs', () => {
      const text = app.logs.join('');
      expect(text.length).toBeGreaterThan(0);
      expect(text).toContain('Account deleted');
      expect(text.toLowerCase()).not.toContain('zelphina');
    });

    it('signing in again with the same e-mail makes a new, empty account', async () => {
      const again = await signIn(app.baseUrl, ZEL.email, ZEL.firstName);
      const me = (await as(again).get('/api/auth/user')).body;
      expect(me).toEqual({ id: expect.any(String), email: ZEL.email, firstName: ZEL.firstName, profileImageUrl: null });
      expect(me.id).not.toBe(ids.zel);
      expect((await as(again).get('/api/joy-ratings')).body).toEqual([]);
      expect((await as(again).get('/api/joy-ratings/latest')).body).toBeNull();
      expect((await as(again).get('/api/groups')).body).toEqual([]);
      expect((await as(again).get(`/api/groups/${group.id}`)).status).toBe(404);
      expect((await as(again).get('/api/subscription-status')).body).toMatchObject({ isPremium: false, status: 'free' });
      expect((await as(again).get('/api/care-actions/received')).body).toEqual([]);
      const exported = JSON.parse((await rawGet(`${app.baseUrl}/api/account/export?format=json`, again)).body);
      expect(exported).toMatchObject({ ratings: [], groups: [], careActionsSent: [], careActionsReceived: [] });
      // The old sessions stay ended.
      expect((await as(zel2).get('/api/auth/user')).status).toBe(401);
    });
  });
});
