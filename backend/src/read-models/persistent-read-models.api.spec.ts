import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../app';
import { freePort } from '../bench/app-process';
import { loadConfig } from '../config';
import { SqliteEventStore } from '../event-store/sqlite-event-store';
import { listenOnEdge } from '../http/server-edge';
import { ProjectionPipeline } from '../projections/projection-pipeline';
import { PROJECTIONS } from '../projections/projections';
import { waitUntil } from '../testing/wait';
import { api, signIn, startTestApp, type TestApp } from '../testing/app-harness';

jest.setTimeout(60_000);

const embedded = !process.env.MONGO_URL && !process.env.REDIS_URL;
const describeEmbedded = embedded ? describe : describe.skip;

describeEmbedded('read models of the embedded default across a restart', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.destroy());

  it('a rating written before a stop is there after the start, without replaying the events', async () => {
    const cookie = await signIn(app.baseUrl, 'restart@example.com', 'Restart');
    const posted = await api(app.baseUrl, cookie).post('/api/joy-ratings', { relationships: 4, health: 3, purpose: 5, growth: 2, joy: 4 });
    expect(posted.status).toBe(201);
    const before = (await api(app.baseUrl, cookie).get('/api/joy-ratings')).body;
    expect(before).toHaveLength(1);
    const head = await app.running.infra.store.headPosition();
    // Every checkpoint reaches the head (those of projections without events of these types on a watermark).
    await waitUntil(async () => (await app.running.infra.pipeline.relayStart()) === head);
    await app.stop();

    const reads = jest.spyOn(SqliteEventStore.prototype, 'readAll');
    try {
      await app.restart();
      // Every checkpoint was at the head: the start read no event to replay.
      expect(reads.mock.calls).toEqual([]);
    } finally {
      reads.mockRestore();
    }
    const readModels = app.running.infra.readModels;
    for (const projection of PROJECTIONS) expect(await readModels.getCheckpoint(projection.name)).toBe(head);
    expect(await app.running.infra.pipeline.relayStart()).toBe(head);
    const after = await api(app.baseUrl, cookie).get('/api/joy-ratings');
    expect(after.status).toBe(200);
    expect(after.body).toEqual(before);
  });
});

describeEmbedded('while the read models are being built at start', () => {
  it('the port answers 503 "starting" with Retry-After and health says starting; then the API answers', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'joy-starting-'));
    const port = await freePort();
    const config = loadConfig({ PORT: String(port), DATA_DIR: dataDir, FRONTEND_DIST: join(dataDir, 'no-frontend'), SHED_EVENT_LOOP_DELAY_MS: '0' });
    // The build waits for the test to let it go (instead of being slow): what the port says meanwhile is seen.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const original = ProjectionPipeline.prototype.catchUpAtStart;
    const catchUp = jest.spyOn(ProjectionPipeline.prototype, 'catchUpAtStart').mockImplementation(async function (this: ProjectionPipeline, onProgress) {
      onProgress?.({ from: 0, position: 0, head: 12, reset: [] });
      await released;
      return original.call(this, onProgress);
    });
    const running = await createApp(config, { logger: false, serveWhileStarting: true });
    try {
      await listenOnEdge(running.app, port, '127.0.0.1');
      const baseUrl = `http://localhost:${port}`;
      const ratings = await api(baseUrl).get('/api/joy-ratings');
      expect(ratings.status).toBe(503);
      expect(ratings.headers['retry-after']).toBe('2');
      expect(ratings.body).toMatchObject({ statusCode: 503, code: 'server.starting' });
      const signIn = await api(baseUrl).get('/api/login');
      expect(signIn.status).toBe(503);
      expect(signIn.body).toMatchObject({ code: 'server.starting' });
      // Sign in as a browser opens it (the landing page's button): a page that says so, not a JSON answer.
      const signInPage = await api(baseUrl).get('/api/login?returnTo=%2Finsights').set('Accept', 'text/html,application/xhtml+xml,*/*;q=0.8');
      expect(signInPage.status).toBe(503);
      expect(signInPage.headers['retry-after']).toBe('2');
      expect(signInPage.headers['content-type']).toMatch(/^text\/html/);
      expect(signInPage.text).toContain('<h1>Joy is starting</h1>');
      expect(signInPage.text).toContain('<a class="button primary" href="/api/login?returnTo=%2Finsights">Try again</a>');
      // A sign-in form sent meanwhile (its page was open when the server restarted): the same page, not JSON.
      const sentForm = await api(baseUrl).post('/oidc/interaction/abc/signin').type('form').send('email=a%40b.test').set('Accept', 'text/html');
      expect(sentForm.status).toBe(503);
      expect(sentForm.text).toContain('<h1>Joy is starting</h1>');
      const health = await api(baseUrl).get('/api/health');
      expect(health.status).toBe(503);
      expect(health.body).toEqual({ status: 'starting', progress: { position: 0, head: 12 } });

      release();
      await running.ready;
      expect((await api(baseUrl).get('/api/health')).body.status).toBe('ok');
      expect((await api(baseUrl).get('/api/joy-ratings')).status).toBe(401);
    } finally {
      catchUp.mockRestore();
      release();
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
