import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteKeyStore } from '../identity/key-stores';
import { createKeyStore } from '../infrastructure';
import { containerRuntimeMayExist, sharedMongoDatabase } from '../testing/containers';
import { runKeys } from './keys-command';
import { captureCli } from '../testing/cli-capture';

jest.setTimeout(180_000); // a MongoDB container, when there is a runtime, takes a while to start

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'joy-keys-cli-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** An embedded install's keys.sqlite with two people and a deleted account; their keys. */
async function sourceKeys(): Promise<{ ada: Buffer; bob: Buffer }> {
  const keys = new SqliteKeyStore(join(dir, 'keys.sqlite'));
  const ada = (await keys.keyFor('ada'))!;
  const bob = (await keys.keyFor('bob'))!;
  await keys.keyFor('cy');
  await keys.destroy('cy');
  await keys.close();
  return { ada, bob };
}

describe('keys export', () => {
  it('writes every key and tombstone to a 0600 file, with a warning', async () => {
    const { ada, bob } = await sourceKeys();
    const file = join(dir, 'keys.ndjson');
    const cli = captureCli({ DATA_DIR: dir });
    expect(await runKeys(['export', '--to', file], cli.io)).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toEqual([
      { userId: 'ada', key: ada.toString('base64'), destroyedAt: null },
      { userId: 'bob', key: bob.toString('base64'), destroyedAt: null },
      { userId: 'cy', key: null, destroyedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
    ]);
    expect(cli.err()).toContain('Exported 2 keys and 1 tombstones');
    expect(cli.err()).toContain('WARNING: this file holds the keys that decrypt every person\'s personal data');
  });

  it('stops when asked (Ctrl-C), leaving no file', async () => {
    await sourceKeys();
    const asked = new AbortController();
    asked.abort();
    const file = join(dir, 'keys.ndjson');
    const cli = captureCli({ DATA_DIR: dir });
    expect(await runKeys(['export', '--to', file], { ...cli.io, signal: asked.signal })).toBe(130);
    expect(cli.err()).toContain(`Stopped: no keys file was written (${file} does not exist)`);
    expect(existsSync(file) || existsSync(`${file}.partial`)).toBe(false);
  });

  it('refuses to start from a DATA_DIR without keys.sqlite (and creates none)', async () => {
    const cli = captureCli({ DATA_DIR: join(dir, 'empty') });
    expect(await runKeys(['export', '--to', join(dir, 'k.ndjson')], cli.io)).toBe(1);
    expect(cli.err()).toContain(`No key store at ${join(dir, 'empty', 'keys.sqlite')}`);
  });
});

/** The keys import into each key store the app can be configured with. */
function describeImportInto(name: string, target: (() => Promise<NodeJS.ProcessEnv | null>) | null, skipReason = '') {
  const suite = target ? describe : describe.skip;
  suite(`keys import into ${name}${target ? '' : ` (skipped: ${skipReason})`}`, () => {
    let env: NodeJS.ProcessEnv;
    let file: string;
    let keys: { ada: Buffer; bob: Buffer };
    beforeEach(async () => {
      keys = await sourceKeys();
      file = join(dir, 'keys.ndjson');
      expect(await runKeys(['export', '--to', file], captureCli({ DATA_DIR: dir }).io)).toBe(0);
      env = (await target!())!;
    });
    const open = () => createKeyStore({ mongoUrl: env.MONGO_URL || null, dataDir: env.DATA_DIR! });

    it('the same keys decrypt the same people; a deleted account stays deleted; a second run changes nothing', async () => {
      const cli = captureCli(env);
      expect(await runKeys(['import', file], cli.io)).toBe(0);
      expect(cli.err()).toContain('Imported 3 keys and tombstones');
      const store = open();
      expect(await store.existingKey('ada')).toEqual(keys.ada);
      expect(await store.existingKey('bob')).toEqual(keys.bob);
      expect(await store.isDestroyed('cy')).toBe(true);
      expect(await store.keyFor('cy')).toBeNull(); // never re-created
      await store.close();

      const again = captureCli(env);
      expect(await runKeys(['import', file], again.io)).toBe(0);
      expect(again.err()).toContain('Imported 0 keys and tombstones');
      expect(again.err()).toContain('(3 were already there)');
    });

    it('refuses, writing nothing, when a person already has a different key there', async () => {
      const store = open();
      const other = (await store.keyFor('bob'))!; // the app ran on the new store first, and Bob signed in
      await store.close();
      const cli = captureCli(env);
      expect(await runKeys(['import', file], cli.io)).toBe(1);
      expect(cli.err()).toContain('already holds a different key (or a tombstone) for 1 of these people (bob): nothing was imported');
      const after = open();
      expect(await after.existingKey('ada')).toBeNull();
      expect(await after.existingKey('bob')).toEqual(other);
      await after.close();
    });

    it('refuses a damaged file, naming the line, writing nothing', async () => {
      const lines = readFileSync(file, 'utf8').trim().split('\n');
      const bad = join(dir, 'bad.ndjson');
      writeFileSync(bad, [lines[0], '{"userId":"bob","key":"c2hvcnQ="}', lines[2]].join('\n'), { mode: 0o600 });
      const cli = captureCli(env);
      expect(await runKeys(['import', bad], cli.io)).toBe(1);
      expect(cli.err()).toContain('line 2: key must be 32 bytes in base64, or null: nothing was imported');
      const after = open();
      expect(await after.existingKey('ada')).toBeNull();
      await after.close();
    });
  });
}

describeImportInto('SQLite (keys.sqlite of another DATA_DIR)', async () => {
  mkdirSync(join(dir, 'target'));
  return { DATA_DIR: join(dir, 'target') };
});

const mongo = sharedMongoDatabase('joy_keys_cli');
describeImportInto(
  'MongoDB (collection user-keys)',
  process.env.MONGO_URL || containerRuntimeMayExist()
    ? async () => {
        const started = await mongo.get();
        if (!started) return null;
        await started.client.db(mongo.dbName).collection('user-keys').deleteMany({}); // each case starts empty
        const url = new URL(started.server.url);
        url.pathname = `/${mongo.dbName}`;
        return { DATA_DIR: join(dir, 'target'), MONGO_URL: url.toString() };
      }
    : null,
  'no MongoDB: set MONGO_URL (e.g. mongodb://localhost:27017) or make a container runtime reachable',
);
