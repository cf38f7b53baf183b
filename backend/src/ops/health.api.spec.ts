import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { EventStoreUnavailableError } from '../event-store/event-store.port';
import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';
import { waitUntil } from '../testing/wait';
import { HEALTH_PROBE_MS } from './health';
import { runProjections } from './projections-command';

/** Every number anywhere in a JSON value. */
function numbersIn(value: unknown): number[] {
  if (typeof value === 'number') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(numbersIn);
  return [];
}

describe('health', () => {
  let app: TestApp;
  let cookie: string;
  const details = (token = app.config.opsToken) => api(app.baseUrl).get('/api/health/details').set('Authorization', `Bearer ${token}`);

  beforeAll(async () => {
    app = await startTestApp();
    cookie = await signIn(app.baseUrl, 'ada@health.example', 'Ada');
    await api(app.baseUrl, cookie).post('/api/joy-ratings', { relationships: 3, health: 3, purpose: 3, growth: 3, joy: 3 });
  });
  afterAll(() => app.destroy());

  it('answers anyone with each part’s state and no count of stored data', async () => {
    const res = await api(app.baseUrl).get('/api/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'ok',
      eventStore: { ok: true },
      events: { ok: true },
      readModels: { ok: true },
      queue: { ok: true },
      keys: { ok: true },
      projections: { ok: true },
    });
    expect(numbersIn(res.body)).toEqual([]);
  });

  it('keeps positions and lag for the local operator with the ops token (404 to anyone else)', async () => {
    const res = await details();
    expect(res.status).toBe(200);
    expect(res.body.eventStore.head).toBe(await app.running.infra.store.headPosition());
    expect(res.body.projections.map((p: { name: string }) => p.name)).toContain('ratings');
    expect((await api(app.baseUrl).get('/api/health/details')).status).toBe(404);
    expect((await details('not-the-token')).status).toBe(404);
  });

  it('answers 503 naming the event store when it cannot append, and a write answers 503 with Retry-After, never 500', async () => {
    const store = app.running.infra.store;
    const full = new EventStoreUnavailableError('events.sqlite: the disk is full; free space on it and writes resume');
    const probe = jest.spyOn(store, 'probeAppend' as never).mockRejectedValue(full as never);
    const append = jest.spyOn(store, 'appendToStream').mockRejectedValue(full);
    try {
      // The probe result is cached for a second: wait until health sees the full disk.
      let res = await api(app.baseUrl).get('/api/health');
      await waitUntil(async () => (res = await api(app.baseUrl).get('/api/health')).status !== 200, 5000, 50);
      expect(res.status).toBe(503);
      expect(res.body.status).toBe('degraded');
      expect(res.body.eventStore).toEqual({ ok: false, error: 'events.sqlite: the disk is full; free space on it and writes resume' });
      const write = await api(app.baseUrl, cookie).post('/api/joy-ratings', { relationships: 3, health: 3, purpose: 3, growth: 3, joy: 3 });
      expect(write.status).toBe(503);
      expect(Number(write.headers['retry-after'])).toBeGreaterThan(0);
      expect(write.body.message).toBe('Saving is unavailable right now, so nothing was saved. Please try again later.');
    } finally {
      probe.mockRestore();
      append.mockRestore();
    }
    await waitUntil(async () => (await api(app.baseUrl).get('/api/health')).status === 200, 5000, 50);
  });

  it('answers 503 naming the queue within seconds when a part never answers (a backend away, its calls left waiting)', async () => {
    const backlog = jest.spyOn(app.running.infra.queue, 'backlog').mockReturnValue(new Promise<number>(() => undefined));
    try {
      const started = Date.now();
      const res = await api(app.baseUrl).get('/api/health');
      expect(Date.now() - started).toBeLessThan(HEALTH_PROBE_MS + 2000);
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: 'degraded', queue: { ok: false, error: 'the queue cannot be reached' }, eventStore: { ok: true }, readModels: { ok: true } });
      expect((await details()).body.queue).toEqual({ ok: false, error: `no answer within ${HEALTH_PROBE_MS / 1000} s` });
    } finally {
      backlog.mockRestore();
    }
    expect((await api(app.baseUrl).get('/api/health')).status).toBe(200);
  });

  it('reports an event damaged at run time: public 503 saying which part, the ops view naming its position and the repair', async () => {
    const db = new Database(join(app.config.dataDir, 'events.sqlite'));
    const { position } = db
      .prepare<[], { position: number }>(
        "INSERT INTO events (stream_id, stream_version, event_id, type, data, metadata) VALUES ('ratings-x', 1, 'damaged-1', 'RatingSubmitted', '{\"ratingId\":', '{}') RETURNING position",
      )
      .get()!;
    db.close();
    await waitUntil(async () => (await api(app.baseUrl).get('/api/health')).status === 503, 5000, 50);
    const res = await api(app.baseUrl).get('/api/health');
    expect(res.status).toBe(503);
    expect(res.body.events).toEqual({ ok: false, error: 'an event cannot be read: run "npm run events -- verify" on the server' });
    expect(numbersIn(res.body)).toEqual([]);
    const ops = await details();
    expect(ops.body.events.error).toContain(`the event at position ${position} cannot be read`);
    expect(ops.body.events.error).toContain(`npm run events -- quarantine ${position}`);
    let printed = '';
    const io = { out: (t: string) => void (printed += t), err: (t: string) => void (printed += t), env: { PORT: String(app.config.port), DATA_DIR: app.config.dataDir } };
    expect(await runProjections(['status'], io)).toBe(0);
    expect(printed).toMatch(new RegExp(`^events: .*the event at position ${position} cannot be read`, 'm'));
    expect(printed).toMatch(/^status: degraded$/m);
    // Repaired, so that the harness's check of every event at the end reads them all.
    const repair = new Database(join(app.config.dataDir, 'events.sqlite'));
    repair.prepare("DELETE FROM events WHERE event_id = 'damaged-1'").run();
    repair.close();
  });
});

describe('health when keys.sqlite disappears under the running app', () => {
  it('answers 503 naming keys.sqlite and what to do before the next start', async () => {
    const app = await startTestApp();
    try {
      expect((await api(app.baseUrl).get('/api/health')).status).toBe(200);
      rmSync(join(app.config.dataDir, 'keys.sqlite'));
      const res = await api(app.baseUrl).get('/api/health');
      expect(res.status).toBe(503);
      expect(res.body.keys.ok).toBe(false);
      expect(res.body.keys.error).toMatch(/^keys\.sqlite was removed from the data directory while the app runs: restore it from a backup/);
    } finally {
      await app.destroy();
    }
  });
});
