import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppExited, AppProcess, startAppProcess } from '../bench/app-process';
import { api, signIn } from '../testing/app-harness';
import { runBackup } from './backup-command';
import { runEvents } from './events-command';
import { lockDataDir } from './data-dir-lock';
import { RefusedToStart } from './integrity';
import { manyRatingsBody as rating } from '../bench/rating-bodies';
import { captureCli } from '../testing/cli-capture';

jest.setTimeout(90_000);

/** One app per data directory: the built app, as people run it (and run it twice by mistake). */
describe('one process per data directory', () => {
  const apps: AppProcess[] = [];
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.destroy();
  });

  it('refuses a second app on the same DATA_DIR, naming the first (its process and port); the first goes on serving', async () => {
    const first = await startAppProcess();
    apps.push(first);
    const cookie = await signIn(first.baseUrl, 'ada@lock.example', 'Ada');

    let refused: AppExited | null = null;
    await startAppProcess({}, { dataDir: first.dataDir }).then(
      (second) => apps.push(second),
      (err: unknown) => (refused = err as AppExited),
    );
    expect(refused).toBeInstanceOf(AppExited);
    expect(refused!.code).toBe(1);
    const port = new URL(first.baseUrl).port;
    expect(refused!.output).toContain(`Joy refuses to start: ${first.dataDir} is in use by another Joy process (process ${first.pid()}, the app on port ${port}`);
    expect(refused!.output).toContain('stop that one first, or give this one another DATA_DIR');

    expect((await api(first.baseUrl, cookie).post('/api/joy-ratings', rating(0))).status).toBe(201);
    expect((await api(first.baseUrl, cookie).get('/api/joy-ratings')).body).toHaveLength(1);
  });

  it('is free again once the app ends, however it ends (SIGKILL leaves no lock to clear by hand)', async () => {
    const app = await startAppProcess();
    apps.push(app);
    const cookie = await signIn(app.baseUrl, 'bo@lock.example', 'Bo');
    expect((await api(app.baseUrl, cookie).post('/api/joy-ratings', rating(0))).status).toBe(201);
    await app.stop('SIGKILL');
    await app.start();
    expect((await api(app.baseUrl, cookie).get('/api/joy-ratings')).body).toHaveLength(1);
    await app.stop('SIGTERM');
    await app.start();
    expect((await api(app.baseUrl, cookie).get('/api/joy-ratings')).body).toHaveLength(1);
  });

  it('quarantine and import refuse under a running app; backup runs beside it and leaves the lock out of the copy', async () => {
    const app = await startAppProcess();
    apps.push(app);
    await signIn(app.baseUrl, 'cy@lock.example', 'Cy');
    const events = join(app.dataDir, 'events.sqlite');
    const db = new Database(events);
    const last = db.prepare<[], number>('SELECT MAX(position) FROM events').pluck().get()!;
    db.prepare('UPDATE events SET data = substr(data, 1, 25) WHERE position = ?').run(last);
    db.close();

    const quarantine = captureCli({ DATA_DIR: app.dataDir });
    expect(await runEvents(['quarantine', String(last)], quarantine.io)).toBe(1);
    expect(quarantine.err()).toContain(`${app.dataDir} is in use by another Joy process (process ${app.pid()}`);
    const untouched = new Database(events, { readonly: true });
    expect(untouched.prepare('SELECT 1 FROM events WHERE position = ?').get(last)).toBeDefined();
    untouched.close();
    expect(readdirSync(app.dataDir).filter((f) => f.startsWith('events.sqlite.before-quarantine'))).toEqual([]);

    const imported = captureCli({ DATA_DIR: app.dataDir });
    expect(await runEvents(['import', events], imported.io)).toBe(1);
    expect(imported.err()).toContain('is in use by another Joy process');

    const to = join(mkdtempSync(join(tmpdir(), 'joy-lock-backup-')), 'copy');
    try {
      const backup = captureCli({ DATA_DIR: app.dataDir });
      expect(await runBackup(['--to', to], backup.io)).toBe(0);
      expect(existsSync(join(to, 'events.sqlite'))).toBe(true);
      expect(readdirSync(to).filter((f) => f.startsWith('joy.lock'))).toEqual([]);
    } finally {
      rmSync(join(to, '..'), { recursive: true, force: true });
    }

    await app.stop();
    const afterStop = captureCli({ DATA_DIR: app.dataDir });
    expect(await runEvents(['quarantine', String(last)], afterStop.io)).toBe(0);
  });

  it('is one holder at a time inside a process too, and released by release()', () => {
    const dir = mkdtempSync(join(tmpdir(), 'joy-lock-'));
    try {
      const lock = lockDataDir(dir, 'a test');
      expect(() => lockDataDir(dir, 'another test')).toThrow(RefusedToStart);
      expect(() => lockDataDir(dir, 'another test')).toThrow(`(process ${process.pid}, a test, since `);
      lock.release();
      lockDataDir(dir, 'another test').release();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
