import Database from 'better-sqlite3';
import { chmodSync, chownSync, copyFileSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { AppExited, AppProcess, startAppProcess } from '../bench/app-process';
import { api, signIn } from '../testing/app-harness';
import { signInWithPassword, signUp } from '../identity/dev-sign-in-client';
import { runEvents } from './events-command';
import { manyRatingsBody as rating } from '../bench/rating-bodies';
import { captureCli } from '../testing/cli-capture';

jest.setTimeout(90_000);

/** Starts the stopped app again, expecting it to refuse: its exit code and output. */
async function refusal(app: AppProcess, env: Record<string, string> = {}): Promise<AppExited> {
  try {
    await app.start(env);
  } catch (err) {
    if (err instanceof AppExited) return err;
    throw err;
  }
  throw new Error('The app started');
}

/** The built app, as people run it: start-up refuses damaged data, naming the file, the position and the repair. */
describe('start-up integrity', () => {
  let app: AppProcess;
  afterEach(() => app?.destroy());

  it('refuses to start on a damaged last event, naming the file, the position and the commands; verify and quarantine repair it', async () => {
    app = await startAppProcess();
    const cookie = await signIn(app.baseUrl, 'ada@integrity.example', 'Ada');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await api(app.baseUrl, cookie).post('/api/joy-ratings', rating(i))).body.id);
    await app.stop();

    const file = join(app.dataDir, 'events.sqlite');
    const db = new Database(file);
    const last = db.prepare<[], number>('SELECT MAX(position) FROM events').pluck().get()!;
    db.prepare("UPDATE events SET data = substr(data, 1, 25) WHERE position = ?").run(last);
    db.close();

    const refused = await refusal(app);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(`Joy refuses to start: ${file}: the event at position ${last} cannot be read`);
    expect(refused.output).toContain('npm run events -- verify');
    expect(refused.output).toContain(`npm run events -- quarantine ${last}`);

    const verify = captureCli({ DATA_DIR: app.dataDir });
    expect(await runEvents(['verify'], verify.io)).toBe(1);
    expect(verify.out()).toMatch(new RegExp(`^position ${last}: its data is not JSON`, 'm'));
    expect(verify.err()).toContain(`npm run events -- quarantine ${last}`);

    // An event that reads fine is never quarantined.
    const refusedQuarantine = captureCli({ DATA_DIR: app.dataDir });
    expect(await runEvents(['quarantine', '1'], refusedQuarantine.io)).toBe(1);
    expect(refusedQuarantine.err()).toMatch(/reads fine: nothing to quarantine/);

    const quarantine = captureCli({ DATA_DIR: app.dataDir });
    expect(await runEvents(['quarantine', String(last)], quarantine.io)).toBe(0);
    const backup = /Backup of the file before: (.+)$/m.exec(quarantine.out())![1];
    expect(existsSync(backup)).toBe(true);
    const kept = new Database(file, { readonly: true });
    expect(kept.prepare('SELECT position, reason FROM quarantined_events').all()).toEqual([{ position: last, reason: expect.stringMatching(/data is not JSON/) }]);
    kept.close();
    expect(await runEvents(['verify'], captureCli({ DATA_DIR: app.dataDir }).io)).toBe(0);

    await app.start();
    const listed = (await api(app.baseUrl, cookie).get('/api/joy-ratings')).body.map((r: { id: string }) => r.id);
    expect(listed.sort()).toEqual(ids.slice(0, 2).sort());
    // Writes go on after the quarantined position.
    expect((await api(app.baseUrl, cookie).post('/api/joy-ratings', rating(9))).status).toBe(201);
  });

  it('refuses to start without keys.sqlite while encrypted personal data exists, naming the file and the backup; ACCEPT_LOST_KEYS=1 accepts the loss once', async () => {
    app = await startAppProcess();
    const cookie = await signIn(app.baseUrl, 'bo@integrity.example', 'Bo');
    expect((await api(app.baseUrl, cookie).get('/api/auth/user')).body.firstName).toBe('Bo');
    await app.stop();
    const keys = join(app.dataDir, 'keys.sqlite');
    rmSync(keys);

    const refused = await refusal(app);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(`Joy refuses to start: ${keys} is missing`);
    expect(refused.output).toMatch(/Restore keys\.sqlite from your latest backup/);
    expect(refused.output).toContain('ACCEPT_LOST_KEYS=1');
    expect(existsSync(keys)).toBe(false); // the refusal created nothing

    await app.start({ ACCEPT_LOST_KEYS: '1' });
    await app.stop();
    await app.start(); // the loss was accepted once, for good
  });

  it('refuses to start on a keys.sqlite older than the events, with the count of people it lacks; ACCEPT_LOST_KEYS=1 gives them new keys, once', async () => {
    app = await startAppProcess();
    const ann = await signIn(app.baseUrl, 'ann@integrity.example', 'Ann');
    await app.stop();
    const keys = join(app.dataDir, 'keys.sqlite');
    copyFileSync(keys, `${keys}.old`); // a backup of the keys alone, before two more people joined
    await app.start();
    await signIn(app.baseUrl, 'ben@integrity.example', 'Ben');
    await signIn(app.baseUrl, 'cal@integrity.example', 'Cal');
    await app.stop();
    const current = readFileSync(keys);
    renameSync(`${keys}.old`, keys);

    const refused = await refusal(app);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(`Joy refuses to start: ${keys} holds no key for 2 people of ${join(app.dataDir, 'events.sqlite')}`);
    expect(refused.output).toContain('keys.sqlite is older than the events');
    expect(refused.output).toContain('ACCEPT_LOST_KEYS=1');

    // The right file back: everyone reads as they were.
    writeFileSync(keys, current);
    await app.start();
    const ben = await signIn(app.baseUrl, 'ben@integrity.example', 'Ben');
    const benNow = (await api(app.baseUrl, ben).get('/api/auth/user')).body;
    expect(benNow.email).toBe('ben@integrity.example');
    await app.stop();

    // No backup holds Ben's key: the loss accepted, he gets a new key and Ann keeps hers; later starts agree.
    const db = new Database(keys);
    db.prepare('DELETE FROM user_keys WHERE user_id = ?').run(benNow.id);
    db.close();
    expect((await refusal(app)).output).toContain('holds no key for 1 person of');
    await app.start({ ACCEPT_LOST_KEYS: '1' });
    expect(app.output()).toContain('ACCEPT_LOST_KEYS=1: 1 person of');
    expect((await api(app.baseUrl, ann).get('/api/auth/user')).body.firstName).toBe('Ann');
    await app.stop();
    await app.start();
  });

  it('refuses to start without accounts.sqlite while people signed up with the built-in sign-in; restored, they sign in as before', async () => {
    app = await startAppProcess({ AUTH_DEV_LOGIN: '0' });
    const person = { firstName: 'Fay', email: 'fay@integrity.example', password: 'Correct-horse-42x' };
    const id = (await api(app.baseUrl, await signUp(app.baseUrl, person)).get('/api/auth/user')).body.id as string;
    await app.stop();
    const accounts = join(app.dataDir, 'accounts.sqlite');
    renameSync(accounts, `${accounts}.aside`);

    const refused = await refusal(app, { AUTH_DEV_LOGIN: '0' });
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(`Joy refuses to start: ${accounts} is missing, but ${join(app.dataDir, 'events.sqlite')} holds 1 person who signed up with the built-in sign-in`);
    expect(refused.output).toContain(`touch "${accounts}"`);
    expect(existsSync(accounts)).toBe(false); // the refusal created nothing

    renameSync(`${accounts}.aside`, accounts);
    await app.start({ AUTH_DEV_LOGIN: '0' });
    const again = await signInWithPassword(app.baseUrl, person.email, person.password);
    expect((await api(app.baseUrl, again.cookie!).get('/api/auth/user')).body.id).toBe(id);
    await app.stop();

    // An operator who knows no password was ever set here makes the empty file the message names.
    rmSync(accounts);
    writeFileSync(accounts, '');
    await app.start({ AUTH_DEV_LOGIN: '0' });
  });

  // Root reads and writes any file, so only a start as another user meets a DATA_DIR it may not write.
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  (asRoot ? it : it.skip)('refuses to start on files another user owns, naming the file and the user instead of a stack trace', async () => {
    app = await startAppProcess();
    await signIn(app.baseUrl, 'eve@integrity.example', 'Eve');
    await app.stop();
    const nobody = () => startAppProcess({}, { dataDir: app.dataDir, runAs: 'nobody' });
    const refusedAs = async () => nobody().then(() => { throw new Error('The app started'); }, (err: unknown) => err as AppExited);

    const secrets = await refusedAs();
    expect(secrets.code).toBe(1);
    expect(secrets.output).toMatch(/Joy refuses to start: Joy cannot write \S+\/session-secret \(EACCES: permission denied[^)]*\)\. The user running Joy \(uid \d+\) must own DATA_DIR/);

    // Everything given to that user but the events (a copy restored as root, say): SQLite's "readonly database".
    const uid = Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).trim());
    const events = join(app.dataDir, 'events.sqlite');
    chmodSync(app.dataDir, 0o755);
    for (const file of readdirSync(app.dataDir)) if (!file.startsWith('events.sqlite')) chownSync(join(app.dataDir, file), uid, uid);
    chownSync(app.dataDir, uid, uid);
    for (const file of readdirSync(app.dataDir)) if (file.startsWith('events.sqlite')) chmodSync(join(app.dataDir, file), 0o644);
    const readOnly = await refusedAs();
    expect(readOnly.code).toBe(1);
    expect(readOnly.output).toMatch(new RegExp(`Joy refuses to start: Joy cannot write ${events} \\(SQLITE_(READONLY|CANTOPEN)`));
    expect(readOnly.output).not.toContain('    at ');

    chownSync(events, uid, uid);
    for (const file of readdirSync(app.dataDir)) chownSync(join(app.dataDir, file), uid, uid);
    const started = await nobody();
    const cookie = await signIn(started.baseUrl, 'eve@integrity.example', 'Eve');
    expect((await api(started.baseUrl, cookie).get('/api/auth/user')).body.firstName).toBe('Eve');
    await started.stop();
  });

  it('refuses to start on a keys.sqlite that is not a database, naming it as damaged and the backup, and changes nothing', async () => {
    app = await startAppProcess();
    const cookie = await signIn(app.baseUrl, 'di@integrity.example', 'Di');
    expect((await api(app.baseUrl, cookie).get('/api/auth/user')).body.firstName).toBe('Di');
    await app.stop();
    const keys = join(app.dataDir, 'keys.sqlite');
    const damaged = 'not a database, but long enough to be read as one by SQLite: '.repeat(100);
    writeFileSync(keys, damaged);
    for (const extra of ['-wal', '-shm']) rmSync(`${keys}${extra}`, { force: true });

    const refused = await refusal(app);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(`Joy refuses to start: ${keys} is damaged (SQLITE_NOTADB`);
    expect(refused.output).toMatch(/Restore keys\.sqlite from your latest backup/);
    expect(refused.output).toContain(`mv "${keys}" "${keys}.damaged"`);
    expect(readFileSync(keys, 'utf8')).toBe(damaged);
  });

  it('refuses to start on a damaged read-models.sqlite, naming it and the way out; moved aside, the next start rebuilds it', async () => {
    app = await startAppProcess();
    const cookie = await signIn(app.baseUrl, 'cy@integrity.example', 'Cy');
    expect((await api(app.baseUrl, cookie).post('/api/joy-ratings', rating(1))).status).toBe(201);
    await app.stop();
    const file = join(app.dataDir, 'read-models.sqlite');
    writeFileSync(file, 'not a database, but long enough to be read as one by SQLite: '.repeat(100));
    for (const extra of ['-wal', '-shm']) rmSync(`${file}${extra}`, { force: true });

    const refused = await refusal(app);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(`Joy refuses to start: ${file} is damaged`);
    expect(refused.output).toContain(`mv "${file}" "${file}.damaged"`);

    renameSync(file, `${file}.damaged`);
    await app.start();
    expect((await api(app.baseUrl, cookie).get('/api/joy-ratings')).body).toHaveLength(1);
  });

  it.each([
    ['accounts.sqlite', /Restore accounts\.sqlite from your latest backup of the data directory/],
    ['care-orders.sqlite', /Restore care-orders\.sqlite from your latest backup of the data directory/],
    ['sessions.sqlite', /it holds only who is signed in: move it aside \(mv ".*sessions\.sqlite" ".*sessions\.sqlite\.damaged"\)/],
  ])('refuses to start on a damaged %s, naming it and what to do, and changes nothing', async (name, remedy) => {
    app = await startAppProcess();
    const cookie = await signIn(app.baseUrl, 'eve@integrity.example', 'Eve');
    expect((await api(app.baseUrl, cookie).post('/api/joy-ratings', rating(2))).status).toBe(201);
    await app.stop();
    const file = join(app.dataDir, name);
    const damaged = 'not a database, but long enough to be read as one by SQLite: '.repeat(100);
    copyFileSync(file, `${file}.good`);
    writeFileSync(file, damaged);
    for (const extra of ['-wal', '-shm']) rmSync(`${file}${extra}`, { force: true });

    const refused = await refusal(app);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(`Joy refuses to start: ${file} is damaged (SQLITE_NOTADB`);
    expect(refused.output).toMatch(remedy);
    expect(readFileSync(file, 'utf8')).toBe(damaged);

    // Put back as the message says (the backup's copy, or a new sessions file): the data is all there.
    if (name === 'sessions.sqlite') renameSync(file, `${file}.damaged`);
    else renameSync(`${file}.good`, file);
    await app.start();
    const again = name === 'sessions.sqlite' ? await signIn(app.baseUrl, 'eve@integrity.example', 'Eve') : cookie;
    expect((await api(app.baseUrl, again).get('/api/joy-ratings')).body).toHaveLength(1);
  });

  it('refuses to start on an events.sqlite that is not a database at all, naming it and the backup, and changes nothing', async () => {
    app = await startAppProcess();
    await app.stop();
    const file = join(app.dataDir, 'events.sqlite');
    const damaged = 'not a database, but long enough to be read as one by SQLite: '.repeat(100);
    writeFileSync(file, damaged);
    for (const extra of ['-wal', '-shm']) rmSync(`${file}${extra}`, { force: true });

    const refused = await refusal(app);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(`Joy refuses to start: ${file} is damaged (SQLITE_NOTADB`);
    expect(refused.output).toContain('restore DATA_DIR from your latest backup');
    expect(readFileSync(file, 'utf8')).toBe(damaged);
  });

  // A review (11-27): an events.sqlite older than the rest (restored alone, or its -wal removed) started as if nothing
  // were wrong: ratings no event holds were shown, and every new write answered 201 and never appeared.
  it('refuses to start on an events.sqlite older than the read models, naming both; the read models moved aside, it serves those events', async () => {
    app = await startAppProcess();
    const cookie = await signIn(app.baseUrl, 'gus@integrity.example', 'Gus');
    expect((await api(app.baseUrl, cookie).post('/api/joy-ratings', rating(1))).status).toBe(201);
    await app.stop();
    const events = join(app.dataDir, 'events.sqlite');
    copyFileSync(events, `${events}.older`);
    await app.start();
    expect((await api(app.baseUrl, cookie).post('/api/joy-ratings', rating(2))).status).toBe(201);
    await app.stop();
    copyFileSync(`${events}.older`, events); // restored alone
    for (const extra of ['-wal', '-shm']) rmSync(`${events}${extra}`, { force: true });

    const refused = await refusal(app);
    const readModels = join(app.dataDir, 'read-models.sqlite');
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(new RegExp(`Joy refuses to start: ${readModels.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} has read up to position \\d+ \\(\\$relay\\), but ${events.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} ends at position \\d+`));
    expect(refused.output).toContain('Restore the whole data directory from one backup');

    renameSync(readModels, `${readModels}.ahead`);
    for (const extra of ['-wal', '-shm']) rmSync(`${readModels}${extra}`, { force: true });
    await app.start();
    expect((await api(app.baseUrl, cookie).get('/api/joy-ratings')).body).toHaveLength(1);
    expect((await api(app.baseUrl, cookie).post('/api/joy-ratings', rating(3))).status).toBe(201);
    expect((await api(app.baseUrl, cookie).get('/api/joy-ratings')).body).toHaveLength(2);
  });

  it('refuses to start without events.sqlite while the data directory holds people’s keys, naming it and the backup', async () => {
    app = await startAppProcess();
    await signIn(app.baseUrl, 'hal@integrity.example', 'Hal');
    await app.stop();
    const events = join(app.dataDir, 'events.sqlite');
    for (const extra of ['', '-wal', '-shm']) rmSync(`${events}${extra}`, { force: true });

    const refused = await refusal(app);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(`Joy refuses to start: ${events} is missing, but ${join(app.dataDir, 'keys.sqlite')} holds 1 personal-data key (of people and their accounts)`);
    expect(refused.output).toMatch(/Restore events\.sqlite from your latest backup/);
    expect(existsSync(events)).toBe(false); // the refusal created nothing
  });
});
