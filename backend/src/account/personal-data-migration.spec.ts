import { ID_TOKEN_KEY_ID } from '../identity/built-in-provider';
import { VAPID_KEY_ID } from '../reminders/vapid';
import Database from 'better-sqlite3';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { userIdFor } from '../identity/identity.decider';
import { LOOKUP_SECRET_ID } from '../identity/lookup-hash';
import { SqliteKeyStore } from '../identity/key-stores';
import { readProfile } from '../identity/profiles';
import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';
import { migratePersonalDataInSqlite } from './personal-data-migration';

jest.setTimeout(60_000);

/**
 * Events written before personal data was encrypted: schemaVersion 1, plaintext, exactly as the app stored
 * them (stored-JSON fixtures, inserted raw into the SQLite file).
 */
function writeV1Fixtures(file: string, issuer: string) {
  const ada = userIdFor(issuer, 'augusta.byronfield@example.com');
  const bart = userIdFor(issuer, 'bartholomew.quince@example.com');
  const meta = (eventId: string, actorUserId: string, occurredAt: string) =>
    JSON.stringify({ eventId, schemaVersion: 1, correlationId: `c-${eventId}`, causationId: `c-${eventId}`, actorUserId, occurredAt });
  const rows: [string, number, string, string, object, string][] = [
    ['user-' + ada, 1, 'v1-ada-1', 'UserRegistered',
      { userId: ada, issuer, subject: 'augusta.byronfield@example.com', email: 'augusta.byronfield@example.com', firstName: 'Augusta', profileImageUrl: null },
      meta('v1-ada-1', ada, '2026-10-01T08:00:00.000Z')],
    ['user-' + bart, 1, 'v1-bart-1', 'UserRegistered',
      { userId: bart, issuer, subject: 'bartholomew.quince@example.com', email: 'bartholomew.quince@example.com', firstName: 'Bartholomew', profileImageUrl: 'https://example.com/bart.png' },
      meta('v1-bart-1', bart, '2026-10-01T08:05:00.000Z')],
    ['ratings-' + ada, 1, 'v1-rating-1', 'RatingSubmitted',
      { ratingId: 'v1-rating-1', userId: ada, relationships: 4, health: 3, purpose: 5, growth: 2, joy: 4, overallScore: 3.6, submittedAt: '2026-10-02T08:30:00.000Z' },
      meta('v1-rating-1', ada, '2026-10-02T08:30:00.000Z')],
    ['user-' + ada, 2, 'v1-ada-2', 'UserProfileUpdated',
      { userId: ada, email: 'augusta.byronfield@example.com', firstName: 'Augustabelle', profileImageUrl: 'https://example.com/augusta.png' },
      meta('v1-ada-2', ada, '2026-10-03T08:00:00.000Z')],
  ];
  const db = new Database(file);
  const insert = db.prepare('INSERT INTO events (stream_id, stream_version, event_id, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)');
  db.transaction(() => rows.forEach(([stream, version, id, type, data, metadata]) => insert.run(stream, version, id, type, JSON.stringify(data), metadata)))();
  db.close();
  return { ada, bart };
}

function rawBytes(dataDir: string): Buffer {
  return Buffer.concat(['events.sqlite', 'events.sqlite-wal'].map((f) => join(dataDir, f)).filter(existsSync).map((f) => readFileSync(f)));
}

function storedRows(file: string) {
  const db = new Database(file, { readonly: true });
  const rows = db.prepare<[], { type: string; data: string; metadata: string }>("SELECT type, data, metadata FROM events WHERE type IN ('UserRegistered', 'UserProfileUpdated') ORDER BY position").all();
  db.close();
  return rows.map((r) => ({ type: r.type, data: JSON.parse(r.data), schemaVersion: JSON.parse(r.metadata).schemaVersion as number }));
}

describe('migration of plaintext identity events (schemaVersion 1) on the embedded default', () => {
  let app: TestApp;
  let ids: { ada: string; bart: string };
  const file = () => join(app.config.dataDir, 'events.sqlite');

  beforeAll(async () => {
    app = await startTestApp();
    await app.stop();
    ids = writeV1Fixtures(file(), `${app.baseUrl}/oidc`);
    expect(rawBytes(app.config.dataDir).indexOf('augusta.byronfield@example.com')).toBeGreaterThan(-1); // the fixture is there
    await app.restart(); // the start-up migration runs here
  });
  afterAll(() => app.destroy());

  it('re-keys every v1 identity event in place: personal fields encrypted, schemaVersion 2, issuer and ids kept', () => {
    const rows = storedRows(file());
    expect(rows.map((r) => [r.type, r.schemaVersion])).toEqual([
      ['UserRegistered', 2],
      ['UserRegistered', 2],
      ['UserProfileUpdated', 2],
    ]);
    const [adaRegistered, bartRegistered, adaUpdated] = rows.map((r) => r.data);
    expect(adaRegistered).toEqual({
      userId: ids.ada,
      issuer: `${app.baseUrl}/oidc`,
      subject: expect.stringMatching(/^enc:v1:/),
      email: expect.stringMatching(/^enc:v1:/),
      firstName: expect.stringMatching(/^enc:v1:/),
      profileImageUrl: null,
    });
    expect(bartRegistered.profileImageUrl).toMatch(/^enc:v1:/);
    expect(adaUpdated.firstName).toMatch(/^enc:v1:/);
  });

  it('leaves no plaintext in the events file, and keeps the keys in a separate file', () => {
    const bytes = rawBytes(app.config.dataDir);
    for (const text of ['augusta.byronfield@example.com', 'Augusta', 'Augustabelle', 'bartholomew.quince', 'Bartholomew', 'example.com/bart.png']) {
      expect([text, bytes.indexOf(text)]).toEqual([text, -1]);
    }
    expect(existsSync(join(app.config.dataDir, 'keys.sqlite'))).toBe(true);
    const keys = new Database(join(app.config.dataDir, 'keys.sqlite'), { readonly: true });
    // Beside the people's keys, the install's lookup secret (issue 14: keyed hashes of e-mails and subjects), its
    // VAPID key (issue 19: reminders by Web Push) and the built-in sign-in's ID-token signing key.
    expect(keys.prepare('SELECT user_id FROM user_keys ORDER BY user_id').pluck().all()).toEqual(
      [ids.ada, ids.bart, LOOKUP_SECRET_ID, VAPID_KEY_ID, ID_TOKEN_KEY_ID].sort(),
    );
    keys.close();
  });

  it('is idempotent: running it again changes nothing', async () => {
    const before = storedRows(file());
    expect(await migratePersonalDataInSqlite(file(), app.running.infra.keys)).toEqual({ rekeyed: 0, redacted: 0 });
    expect(storedRows(file())).toEqual(before);
  });

  it('redacts (never encrypts) the personal fields of an account whose key is already destroyed', async () => {
    const dir = app.config.dataDir;
    const copy = join(dir, 'redact-test.sqlite');
    const db = new Database(copy);
    db.exec('CREATE TABLE events (position INTEGER PRIMARY KEY AUTOINCREMENT, stream_id TEXT, stream_version INTEGER, event_id TEXT UNIQUE, type TEXT, data TEXT, metadata TEXT)');
    db.prepare('INSERT INTO events (stream_id, stream_version, event_id, type, data, metadata) VALUES (?, 1, ?, ?, ?, ?)').run(
      'user-gone', 'e-gone', 'UserRegistered',
      JSON.stringify({ userId: 'gone', issuer: 'https://id.example', subject: 'gone@example.com', email: 'gone@example.com', firstName: 'Gone', profileImageUrl: null }),
      JSON.stringify({ eventId: 'e-gone', schemaVersion: 1, correlationId: 'c', causationId: 'c', actorUserId: 'gone', occurredAt: '2026-10-01T08:00:00.000Z' }),
    );
    db.close();
    const keys = new SqliteKeyStore(join(dir, 'redact-keys.sqlite'));
    await keys.destroy('gone');
    expect(await migratePersonalDataInSqlite(copy, keys)).toEqual({ rekeyed: 0, redacted: 1 });
    await keys.close();
    expect(storedRows(copy)[0]).toEqual({
      type: 'UserRegistered',
      schemaVersion: 2,
      data: { userId: 'gone', issuer: 'https://id.example', subject: null, email: null, firstName: null, profileImageUrl: null },
    });
    expect(readFileSync(copy).indexOf('gone@example.com')).toBe(-1);
  });

  it('still reads the profiles right (decrypted at query time, the same shape as before)', async () => {
    const { readModels, keys } = app.running.infra;
    expect(await readProfile(readModels, keys, ids.ada)).toEqual({
      id: ids.ada, email: 'augusta.byronfield@example.com', firstName: 'Augustabelle', profileImageUrl: 'https://example.com/augusta.png',
    });
    expect(await readProfile(readModels, keys, ids.bart)).toEqual({
      id: ids.bart, email: 'bartholomew.quince@example.com', firstName: 'Bartholomew', profileImageUrl: 'https://example.com/bart.png',
    });
  });

  it('signing in reaches the same (derived-id) account with its data; the decider compares decrypted claims', async () => {
    const cookie = await signIn(app.baseUrl, 'augusta.byronfield@example.com', 'Augustabelle');
    const me = (await api(app.baseUrl, cookie).get('/api/auth/user')).body;
    // The development provider sends no picture: the one changed claim is recorded, encrypted (v2).
    expect(me).toEqual({ id: ids.ada, email: 'augusta.byronfield@example.com', firstName: 'Augustabelle', profileImageUrl: null });
    expect((await api(app.baseUrl, cookie).get('/api/joy-ratings')).body).toEqual([expect.objectContaining({ id: 'v1-rating-1', overallScore: 3.6 })]);
    const rows = storedRows(file());
    expect(rows).toHaveLength(4);
    expect(rows[3]).toMatchObject({ type: 'UserProfileUpdated', schemaVersion: 2, data: { email: expect.stringMatching(/^enc:v1:/), profileImageUrl: null } });
    // Signing in again with the same claims appends nothing.
    await signIn(app.baseUrl, 'augusta.byronfield@example.com', 'Augustabelle');
    expect(storedRows(file())).toHaveLength(4);
  });

  it('and deletion then forgets them: no plaintext, a new empty account at the next sign-in', async () => {
    const cookie = await signIn(app.baseUrl, 'augusta.byronfield@example.com', 'Augustabelle');
    expect((await api(app.baseUrl, cookie).delete('/api/account').send({ confirm: 'DELETE' })).status).toBe(204);
    const bytes = rawBytes(app.config.dataDir);
    expect(bytes.indexOf('augusta.byronfield')).toBe(-1);
    expect(bytes.indexOf('Augusta')).toBe(-1);
    const again = await signIn(app.baseUrl, 'augusta.byronfield@example.com', 'Augusta');
    const me = (await api(app.baseUrl, again).get('/api/auth/user')).body;
    expect(me.id).not.toBe(ids.ada);
    expect((await api(app.baseUrl, again).get('/api/joy-ratings')).body).toEqual([]);
    // After a restart (read models rebuilt from the events), the deleted account stays gone and Bart stays.
    await app.stop();
    await app.restart();
    expect(await app.running.infra.readModels.get('user-profiles', ids.ada)).toBeNull();
    expect(await app.running.infra.readModels.get('user-profiles', ids.bart)).not.toBeNull();
    expect(await app.running.infra.readModels.find('ratings', { userId: ids.ada })).toEqual([]);
    expect((await api(app.baseUrl, again).get('/api/auth/user')).body.id).toBe(me.id);
  });
  it('looks at the events appended since its last run: a plaintext event imported later is re-keyed at the next start', async () => {
    await app.stop();
    const db = new Database(file());
    const carol = userIdFor(`${app.baseUrl}/oidc`, 'carol.imported@example.com');
    db.prepare('INSERT INTO events (stream_id, stream_version, event_id, type, data, metadata) VALUES (?, 1, ?, ?, ?, ?)').run(
      'user-' + carol, 'v1-carol-1', 'UserRegistered',
      JSON.stringify({ userId: carol, issuer: `${app.baseUrl}/oidc`, subject: 'carol.imported@example.com', email: 'carol.imported@example.com', firstName: 'Carol', profileImageUrl: null }),
      JSON.stringify({ eventId: 'v1-carol-1', schemaVersion: 1, correlationId: 'c', causationId: 'c', actorUserId: carol, occurredAt: '2026-10-04T08:00:00.000Z' }),
    );
    db.close();
    await app.restart();
    expect(storedRows(file()).every((row) => row.schemaVersion === 2)).toBe(true);
    expect(rawBytes(app.config.dataDir).indexOf('carol.imported@example.com')).toBe(-1);
    expect(await readProfile(app.running.infra.readModels, app.running.infra.keys, carol)).toEqual(expect.objectContaining({ firstName: 'Carol' }));
  });
});
