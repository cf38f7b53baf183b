import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type RunningApp } from '../app';
import { freePort } from '../bench/app-process';
import { EventStoreDbEventStore } from '../event-store/eventstoredb-event-store';
import { EventStoreDbStandIn } from '../event-store/standin/server';
import { SqliteEventStore } from '../event-store/sqlite-event-store';
import { loadConfig } from '../config';
import { signInWithPassword, signUp } from '../identity/dev-sign-in-client';
import { api } from '../testing/app-harness';
import { runBackup } from './backup-command';
import type { CliIo } from './cli-io';
import { runEvents } from './events-command';
import { runKeys } from './keys-command';

/**
 * Growing without losing anything: an embedded install is moved to another event store with the ops CLIs as an
 * operator would (events export → import, keys export → import), and the app started on the new store serves the
 * same people, names, ratings and groups; a deleted account stays deleted.
 */
jest.setTimeout(120_000);

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'joy-growing-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const cli = (env: NodeJS.ProcessEnv) => {
  let err = '';
  const io: CliIo = { out: () => undefined, err: (t) => void (err += t), env };
  return { io, err: () => err };
};

/** The app on a given port: the same port keeps the same public URL, so the same sign-in issuer. */
async function startOn(port: number, env: Record<string, string>): Promise<RunningApp> {
  const config = loadConfig({
    PORT: String(port),
    FRONTEND_DIST: join(work, 'no-frontend'),
    RATE_LIMIT_SIGNIN_PER_15_MIN: '10000',
    RATE_LIMIT_WRITES_PER_MIN: '10000',
    // In-process: the app's event loop is the test's too, so no load shedding.
    SHED_EVENT_LOOP_DELAY_MS: '0',
    ...env,
  });
  const running = await createApp(config, { logger: false });
  await running.app.listen(port, '127.0.0.1');
  return running;
}

/** People with accounts of the built-in sign-in (passwords), as on a real install. */
const PEOPLE = [
  { firstName: 'Ada', email: 'ada@grow.example', password: 'ada-moves-house-2026' },
  { firstName: 'Bob', email: 'bob@grow.example', password: 'bob-moves-house-2026' },
  { firstName: 'Cy', email: 'cy@grow.example', password: 'cy-moves-house-2026' },
] as const;

async function signInAs(baseUrl: string, person: (typeof PEOPLE)[number]): Promise<string> {
  const { cookie, status } = await signInWithPassword(baseUrl, person.email, person.password);
  if (!cookie) throw new Error(`${person.firstName} could not sign in (the form answered ${status})`);
  return cookie;
}

/** Everything a person sees of their data and their groups. */
async function whatTheySee(baseUrl: string, cookie: string) {
  const as = api(baseUrl, cookie);
  const user = (await as.get('/api/auth/user')).body;
  const ratings = (await as.get('/api/joy-ratings')).body;
  const latest = (await as.get('/api/joy-ratings/latest')).body;
  const groups = (await as.get('/api/groups')).body as { id: string }[];
  const details = [];
  for (const group of groups) {
    details.push({
      group: (await as.get(`/api/groups/${group.id}`)).body,
      members: (await as.get(`/api/groups/${group.id}/members`)).body,
      ratings: (await as.get(`/api/groups/${group.id}/ratings`)).body,
    });
  }
  return { user, ratings, latest, groups, details };
}

/** An embedded install used by three people (one of whom deleted their account), what they saw, then stopped. */
async function embeddedInstall(port: number, dataDir: string) {
  const app = await startOn(port, { DATA_DIR: dataDir });
  const baseUrl = `http://localhost:${port}`;
  const [ada, bob, cy] = await Promise.all(PEOPLE.map((person) => signUp(baseUrl, person)));
  const family = (await api(baseUrl, ada).post('/api/groups', { name: 'Family', description: 'Sunday calls' })).body;
  for (const cookie of [bob, cy]) expect((await api(baseUrl, cookie).post('/api/groups/join', { inviteCode: family.inviteCode })).status).toBe(200);
  let n = 0;
  for (const cookie of [ada, bob, cy, ada, bob, ada]) {
    n += 1;
    const score = 1 + (n % 5);
    expect((await api(baseUrl, cookie).post('/api/joy-ratings', { relationships: score, health: 3, purpose: 4, growth: 2, joy: score })).status).toBe(201);
  }
  expect((await api(baseUrl, cy).delete('/api/account').send({ confirm: 'DELETE' })).status).toBe(204);
  const seen = { ada: await whatTheySee(baseUrl, ada), bob: await whatTheySee(baseUrl, bob) };
  expect(seen.ada.user.firstName).toBe('Ada');
  expect(seen.ada.details[0].members.map((m: { firstName: string }) => m.firstName).sort()).toEqual(['Ada', 'Bob']);
  expect(seen.ada.ratings).toHaveLength(3);
  await app.close();
  return seen;
}

/**
 * Moves the install at `source` to the store `target` describes, with the CLIs as the README's Growing section
 * says (events and keys exported and imported; the built-in sign-in's accounts.sqlite from a backup), starts the app
 * there on the same port, and answers what the same people see after signing in again with their passwords.
 */
async function moveAndLook(port: number, source: string, target: Record<string, string>) {
  const events = join(work, `events-${port}.ndjson`);
  const keys = join(work, `keys-${port}.ndjson`);
  const backup = join(work, `backup-${port}`);
  expect(await runBackup(['--to', backup], cli({ DATA_DIR: source }).io)).toBe(0);
  copyFileSync(join(backup, 'accounts.sqlite'), join(target.DATA_DIR, 'accounts.sqlite'));
  const exported = cli({ DATA_DIR: source });
  expect(await runEvents(['export', '--to', events], exported.io)).toBe(0);
  expect(await runKeys(['export', '--to', keys], cli({ DATA_DIR: source }).io)).toBe(0);
  const imported = cli(target);
  expect(await runEvents(['import', events], imported.io)).toBe(0);
  expect(imported.err()).toMatch(/Imported \d+ events/);
  expect(await runKeys(['import', keys], cli(target).io)).toBe(0);

  // A second import into the now non-empty store is refused.
  const again = cli(target);
  expect(await runEvents(['import', events], again.io)).toBe(1);
  expect(again.err()).toContain('already holds events');

  const app = await startOn(port, target);
  try {
    const baseUrl = `http://localhost:${port}`;
    // The same passwords sign the same people in (their accounts are found through the install's lookup secret,
    // which travels with the keys). Signing in may write the person's own name again, so Ada looks before Bob
    // signs in: the name she sees for Bob is the one in the moved events, readable only with Bob's moved key.
    const ada = await whatTheySee(baseUrl, await signInAs(baseUrl, PEOPLE[0]));
    const bob = await whatTheySee(baseUrl, await signInAs(baseUrl, PEOPLE[1]));
    const seen = { ada, bob };
    // Cy deleted their account: their password signs nobody in.
    const cy = await signInWithPassword(baseUrl, PEOPLE[2].email, PEOPLE[2].password);
    return { seen, cy };
  } finally {
    await app.close();
  }
}

describe('moving an embedded install with events export/import and keys export/import', () => {
  it('to another embedded install (SQLite): the same people, names, ratings and groups', async () => {
    const port = await freePort();
    const source = join(work, 'sqlite-source');
    const target = join(work, 'sqlite-target');
    mkdirSync(target);
    const before = await embeddedInstall(port, source);
    const after = await moveAndLook(port, source, { DATA_DIR: target });
    expect(after.seen).toEqual(before);
    expect(after.cy.cookie).toBeNull();
  });

  it('to EventStoreDB (through the official client, on the gRPC stand-in): the same people, names, ratings and groups', async () => {
    const standIn = await EventStoreDbStandIn.start();
    try {
      const port = await freePort();
      const source = join(work, 'esdb-source');
      const target = join(work, 'esdb-target'); // keys.sqlite (no MONGO_URL), sessions, secrets
      mkdirSync(target);
      const before = await embeddedInstall(port, source);
      const after = await moveAndLook(port, source, { DATA_DIR: target, EVENTSTORE_URL: standIn.url });
      expect(after.seen).toEqual(before);
      expect(after.cy.cookie).toBeNull();

      // Every event of the embedded install is in EventStoreDB, in the same order, with the same streams,
      // versions, ids and metadata (the events the sign-ins after the move appended come after them).
      const [sqlite, esdb] = [new SqliteEventStore(join(source, 'events.sqlite')), new EventStoreDbEventStore(standIn.url)];
      const strip = ({ position: _, ...rest }: { position: number }) => rest;
      const moved = (await sqlite.readAll({ from: 0, limit: 100_000 })).map(strip);
      expect((await esdb.readAll({ from: 0, limit: 100_000 })).slice(0, moved.length).map(strip)).toEqual(moved);
      await Promise.all([sqlite.close(), esdb.close()]);
    } finally {
      await standIn.stop();
    }
  });
});
