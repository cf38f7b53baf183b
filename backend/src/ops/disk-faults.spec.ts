import Database from 'better-sqlite3';
import { appendFileSync, existsSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { AppProcess, startAppProcess } from '../bench/app-process';
import { SqliteEventStore } from '../event-store/sqlite-event-store';
import { api, signIn } from '../testing/app-harness';
import { waitUntil } from '../testing/wait';
import { manyRatingsBody as rating } from '../bench/rating-bodies';

jest.setTimeout(90_000);


async function storedRatingIds(dataDir: string): Promise<string[]> {
  const store = new SqliteEventStore(join(dataDir, 'events.sqlite'));
  try {
    return (await store.readAll({ from: 0, limit: 1_000_000 })).filter((e) => e.type === 'RatingSubmitted').map((e) => e.data.ratingId as string);
  } finally {
    await store.close();
  }
}

describe('a full disk', () => {
  let app: AppProcess;
  afterAll(() => app?.destroy());

  it('turns writes into 503 + Retry-After and health into 503 naming the event file, losing nothing acknowledged', async () => {
    // A small disk: no file of the app may grow past 1 MiB (ulimit -f), so the event log fills after some writes.
    app = await startAppProcess({ RATE_LIMIT_WRITES_PER_MIN: '100000' }, { fileSizeLimitKb: 1024 });
    const cookie = await signIn(app.baseUrl, 'full@disk.example', 'Full');
    expect((await api(app.baseUrl).get('/api/health')).status).toBe(200);
    const acknowledged: string[] = [];
    let refused: { status: number; retryAfter: string | undefined; message: string } | null = null;
    for (let i = 0; i < 2000 && !refused; i++) {
      const res = await api(app.baseUrl, cookie).post('/api/joy-ratings', rating(i));
      if (res.status === 201) acknowledged.push(res.body.id);
      else refused = { status: res.status, retryAfter: res.headers['retry-after'], message: res.body.message };
    }
    expect(acknowledged.length).toBeGreaterThan(5);
    expect(refused).toEqual({ status: 503, retryAfter: '30', message: 'Saving is unavailable right now, so nothing was saved. Please try again later.' });

    // Health probes a write at most once a second: wait until it has probed since the disk filled.
    let health = await api(app.baseUrl).get('/api/health');
    await waitUntil(async () => (health = await api(app.baseUrl).get('/api/health')).status !== 200, 5000, 50);
    expect(health.status).toBe(503);
    expect(health.body.eventStore.ok).toBe(false);
    expect(health.body.eventStore.error).toMatch(/^events\.sqlite: /);
    // Reads still work.
    expect((await api(app.baseUrl, cookie).get('/api/joy-ratings')).status).toBe(200);

    await app.stop('SIGKILL');
    const stored = await storedRatingIds(app.dataDir);
    expect(new Set(stored)).toEqual(new Set(acknowledged));
    expect(stored).toHaveLength(acknowledged.length);
  });
});

describe('a torn WAL tail after a crash', () => {
  let app: AppProcess;
  afterAll(() => app?.destroy());

  it('keeps every rating acknowledged before the crash (commits are synced: synchronous = FULL)', async () => {
    app = await startAppProcess({ RATE_LIMIT_WRITES_PER_MIN: '100000' });
    const cookie = await signIn(app.baseUrl, 'torn@wal.example', 'Torn');
    const acknowledged: string[] = [];
    for (let i = 0; i < 30; i++) acknowledged.push((await api(app.baseUrl, cookie).post('/api/joy-ratings', rating(i))).body.id);
    await app.stop('SIGKILL');

    // The crash tore the write that was in flight: half a frame of garbage at the end of the WAL.
    const wal = join(app.dataDir, 'events.sqlite-wal');
    expect(existsSync(wal)).toBe(true);
    const size = statSync(wal).size;
    appendFileSync(wal, randomBytes(2048 + 24));
    expect(statSync(wal).size).toBe(size + 2072);

    await app.start();
    const listed = (await api(app.baseUrl, cookie).get('/api/joy-ratings')).body.map((r: { id: string }) => r.id);
    expect(new Set(listed)).toEqual(new Set(acknowledged));
    expect((await api(app.baseUrl, cookie).post('/api/joy-ratings', rating(99))).status).toBe(201);
    await app.stop();
    expect(await storedRatingIds(app.dataDir)).toHaveLength(31);
  });
});

describe('a damaged event under the running app', () => {
  let app: AppProcess;
  afterAll(() => app?.destroy());

  it('answers 503 + Retry-After (not 500) to whoever reads it, logs the event and the repair, and serves everyone else', async () => {
    app = await startAppProcess();
    const ada = await signIn(app.baseUrl, 'ada@damaged.example', 'Ada');
    const bo = await signIn(app.baseUrl, 'bo@damaged.example', 'Bo');
    expect((await api(app.baseUrl, ada).patch('/api/settings').send({ timeZone: 'Europe/Paris' })).status).toBe(200);
    const me = (await api(app.baseUrl, ada).get('/api/auth/user')).body.id as string;
    const db = new Database(join(app.dataDir, 'events.sqlite'));
    const position = db.prepare<[string], number>('SELECT MAX(position) FROM events WHERE stream_id = ?').pluck().get(`user-${me}`)!;
    db.prepare('UPDATE events SET data = substr(data, 1, 25) WHERE position = ?').run(position);
    db.close();

    // The settings are read from the person's own events: the damaged one among them.
    const res = await api(app.baseUrl, ada).get('/api/settings');
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('30');
    expect(res.body).toEqual({ statusCode: 503, code: 'store.unavailable', message: 'Joy cannot read part of its data right now, so nothing was changed. Please try again later.' });
    await waitUntil(() => app.output().includes(`the event at position ${position} cannot be read`));
    expect(app.output()).toContain(`npm run events -- quarantine ${position}`);
    expect((await api(app.baseUrl, bo).get('/api/settings')).status).toBe(200);
    expect((await api(app.baseUrl, bo).post('/api/joy-ratings', rating(1))).status).toBe(201);
  });
});
