import Database from 'better-sqlite3';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { AppProcess, startAppProcess } from '../bench/app-process';
import { allRatingsOf, api, signIn } from '../testing/app-harness';
import { waitUntil } from '../testing/wait';
import { runBackup } from './backup-command';
import { manyRatingsBody as rating } from '../bench/rating-bodies';
import { LOCK_FILES } from './data-dir-lock';
import { captureCli } from '../testing/cli-capture';

/**
 * `npm run backup` copies a running embedded install: the app runs in its own process (as people run it) and
 * people keep saving ratings while the built backup CLI copies DATA_DIR; the copy then starts as an install of
 * its own, and everything acknowledged before the backup started is in it, with the same people, names and
 * sessions.
 */
jest.setTimeout(120_000);

const BACKUP_CLI = resolve(__dirname, '..', '..', 'dist', 'ops', 'backup-cli.js');

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'joy-backup-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('npm run backup during writes', () => {
  let app: AppProcess;
  let restored: AppProcess | null = null;
  beforeAll(async () => {
    app = await startAppProcess({ RATE_LIMIT_WRITES_PER_MIN: '100000' });
  });
  afterAll(async () => {
    await restored?.destroy();
    await app.destroy();
  });

  it('gives a copy that starts as-is and holds every write acknowledged before it started', async () => {
    if (!existsSync(BACKUP_CLI)) throw new Error(`${BACKUP_CLI} is missing: run "npm run build" first (npm test does)`);
    const ada = await signIn(app.baseUrl, 'ada@backup.example', 'Ada');
    const bob = await signIn(app.baseUrl, 'bob@backup.example', 'Bob');
    const group = (await api(app.baseUrl, ada).post('/api/groups', { name: 'Family' })).body as { id: string; inviteCode: string };
    expect((await api(app.baseUrl, bob).post('/api/groups/join', { inviteCode: group.inviteCode })).status).toBe(200);

    const acknowledged: { id: string; cookie: string }[] = [];
    let stop = false;
    const writer = async (cookie: string, n: number) => {
      for (let i = 0; !stop; i++) {
        const res = await api(app.baseUrl, cookie).post('/api/joy-ratings', rating(n + i));
        expect(res.status).toBe(201);
        acknowledged.push({ id: res.body.id, cookie });
      }
    };
    const writers = [ada, bob].flatMap((cookie) => [0, 1, 2].map((n) => writer(cookie, n)));
    await waitUntil(() => acknowledged.length > 10, 30_000, 20);

    // Acknowledged before the backup starts: what the list holds now (the backup is started right after, on this
    // turn). A filter by the time of each answer dropped one made in the same millisecond as the start.
    const before = [...acknowledged];
    const to = join(work, 'nightly');
    const { stdout } = await promisify(execFile)(process.execPath, [BACKUP_CLI, '--to', to], {
      env: { ...process.env, DATA_DIR: app.dataDir, NODE_OPTIONS: '' },
    });
    const during = acknowledged.length - before.length;
    const afterBackup = acknowledged.length;
    await waitUntil(() => acknowledged.length >= afterBackup + 6, 30_000, 20); // writes go on after it, too
    stop = true;
    await Promise.all(writers);
    expect(before.length).toBeGreaterThan(10);
    expect(during).toBeGreaterThan(0); // the writes did go on while the backup ran

    expect(stdout).toMatch(/events\.sqlite\s+\d+\s+online backup, checked: \d+ events up to position \d+/);
    expect(stdout).toMatch(/keys\.sqlite\s+\d+\s+online backup, checked/);
    expect(stdout).toMatch(/sessions\.sqlite\s+\d+\s+online backup, checked/);
    expect(stdout).toMatch(/session-secret\s+\d+\s+copied/);
    // Every file the install keeps (whatever features add to DATA_DIR), without SQLite's -wal/-shm side files and
    // the running process's lock (a copy started later takes its own).
    const sideFile = /-(wal|shm|journal)$/;
    expect(readdirSync(app.dataDir)).toEqual(expect.arrayContaining([...LOCK_FILES]));
    expect(readdirSync(to).sort()).toEqual(readdirSync(app.dataDir).filter((f) => !sideFile.test(f) && !LOCK_FILES.includes(f)).sort());
    expect(statSync(to).mode & 0o777).toBe(0o700);
    expect(readdirSync(work)).toEqual(['nightly']); // no half-written staging directory left beside it
    for (const file of ['events.sqlite', 'keys.sqlite', 'sessions.sqlite']) {
      const db = new Database(join(to, file), { readonly: true, fileMustExist: true });
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      db.close();
    }

    // The copy starts as an install of its own; the same session cookies are still signed in there.
    restored = await startAppProcess({ DATA_DIR: to });
    const ratingsOf = async (cookie: string) => new Set((await allRatingsOf(restored!.baseUrl, cookie)).map((r) => r.id));
    const [adaRatings, bobRatings] = [await ratingsOf(ada), await ratingsOf(bob)];
    for (const write of before) expect((write.cookie === ada ? adaRatings : bobRatings).has(write.id)).toBe(true);
    expect((await api(restored.baseUrl, ada).get('/api/auth/user')).body.firstName).toBe('Ada');
    const members = (await api(restored.baseUrl, ada).get(`/api/groups/${group.id}/members`)).body as { firstName: string }[];
    expect(members.map((m) => m.firstName).sort()).toEqual(['Ada', 'Bob']);
  });
});

describe('npm run backup refuses', () => {

  it('a directory that is not empty, and a directory inside DATA_DIR, writing nothing', async () => {
    const dataDir = join(work, 'data');
    mkdirSync(dataDir);
    new Database(join(dataDir, 'events.sqlite')).close();
    const full = join(work, 'full');
    mkdirSync(full);
    writeFileSync(join(full, 'old'), 'x');
    const notEmpty = captureCli({ DATA_DIR: dataDir });
    expect(await runBackup(['--to', full], notEmpty.io)).toBe(1);
    expect(notEmpty.err()).toContain(`${full} is not empty`);
    expect(readdirSync(full)).toEqual(['old']);

    const inside = captureCli({ DATA_DIR: dataDir });
    expect(await runBackup(['--to', join(dataDir, 'backup')], inside.io)).toBe(2);
    expect(inside.err()).toContain('cannot go inside DATA_DIR');
    expect(readFileSync(join(full, 'old'), 'utf8')).toBe('x');
  });

  it('stops when asked (Ctrl-C), leaving no backup and nothing beside it', async () => {
    const dataDir = join(work, 'data-stopped');
    mkdirSync(dataDir);
    new Database(join(dataDir, 'events.sqlite')).close();
    const asked = new AbortController();
    asked.abort();
    const cli = captureCli({ DATA_DIR: dataDir });
    const to = join(work, 'stopped-backup');
    expect(await runBackup(['--to', to], { ...cli.io, signal: asked.signal })).toBe(130);
    expect(cli.err()).toContain(`Stopped: no backup was written to ${to}`);
    expect(readdirSync(work).filter((f) => f.startsWith('stopped-backup'))).toEqual([]);
  });

  it('a DATA_DIR that is not an install', async () => {
    const cli = captureCli({ DATA_DIR: join(work, 'nothing-here') });
    expect(await runBackup(['--to', join(work, 'b')], cli.io)).toBe(1);
    expect(cli.err()).toContain('No install at');
  });
});
