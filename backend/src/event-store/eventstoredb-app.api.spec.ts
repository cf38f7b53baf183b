import { Logger } from '@nestjs/common';
import { healthReport } from '../ops/health';
import { api, signIn, startTestApp, type TestApp } from '../testing/app-harness';
import { waitUntil } from '../testing/wait';
import { EventStoreDbStandIn } from './standin/server';

/*
 * The whole app on EventStoreDB (EVENTSTORE_URL), through the official client over gRPC, against the stand-in:
 * sign in, rate, restart, rebuild; and what people see when the server goes away and comes back, when the
 * subscription behind the projections drops, when the credentials are refused.
 */

Logger.overrideLogger(false);

const rating = { relationships: 4, health: 3, purpose: 5, growth: 2, joy: 4 };

describe('the app on EventStoreDB (gRPC stand-in)', () => {
  let standIn: EventStoreDbStandIn;
  let app: TestApp;
  let ada: string;
  const ratingsOf = async (cookie: string) => (await api(app.baseUrl, cookie).get('/api/joy-ratings')).body as { id: string }[];

  beforeAll(async () => {
    standIn = await EventStoreDbStandIn.start();
    app = await startTestApp({ EVENTSTORE_URL: standIn.url, AUTH_DEV_LOGIN: '1' });
    ada = await signIn(app.baseUrl, 'ada@example.com', 'Ada');
  });
  afterAll(async () => {
    standIn.faults = {};
    await standIn.resume();
    await app?.destroy();
    await standIn?.stop();
  });

  it('signs in and rates; the events are in EventStoreDB; after a restart and a rebuild the ratings are all there', async () => {
    const first = await api(app.baseUrl, ada).post('/api/joy-ratings', rating);
    expect(first.status).toBe(201);
    const second = await api(app.baseUrl, ada).post('/api/joy-ratings', { ...rating, joy: 5 });
    expect(second.status).toBe(201);
    expect((await api(app.baseUrl, ada).get('/api/joy-ratings/latest')).body).toEqual(second.body);
    const types = standIn.log.records.filter((r) => r.kind === 'event').map((r) => r.type);
    expect(types.filter((t) => t === 'RatingSubmitted')).toHaveLength(2);
    expect(types).toContain('UserRegistered');

    // In-memory read models: a restart rebuilds them from $all on the server.
    await app.stop();
    await app.restart();
    expect((await ratingsOf(ada)).map((r) => r.id)).toEqual([second.body.id, first.body.id]);
    // A rebuild into a new version while the old one serves, then the switch.
    await app.running.infra.pipeline.rebuild('ratings');
    expect((await ratingsOf(ada)).map((r) => r.id)).toEqual([second.body.id, first.body.id]);
    expect((await api(app.baseUrl, ada).get('/api/joy-ratings/latest')).body).toEqual(second.body);
  });

  it('dropped subscriptions while people rate: the relay resumes from its checkpoint, every rating shows once', async () => {
    const bob = await signIn(app.baseUrl, 'bob@example.com', 'Bob');
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      if (i % 3 === 0) standIn.dropSubscriptions();
      const res = await api(app.baseUrl, bob).post('/api/joy-ratings', { ...rating, joy: 1 + (i % 5) });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    expect((await ratingsOf(bob)).map((r) => r.id).sort()).toEqual([...ids].sort());
    await app.running.infra.pipeline.waitUntilCaughtUp();
    const health = await api(app.baseUrl).get('/api/health');
    expect(health.status).toBe(200);
    expect(health.body.projections).toEqual({ ok: true });
  });

  it('server gone: a rating answers 503 within seconds, nothing is stored; when it is back, rating works again', async () => {
    const before = await ratingsOf(ada);
    await standIn.stop();
    const started = Date.now();
    const refused = await api(app.baseUrl, ada).post('/api/joy-ratings', rating);
    expect(refused.status).toBe(503);
    expect(refused.body.message).toMatch(/unavailable right now, so nothing was saved/);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await api(app.baseUrl).get('/api/health')).status).toBe(503);

    await standIn.resume();
    let res = await api(app.baseUrl, ada).post('/api/joy-ratings', rating);
    await waitUntil(async () => res.status === 201 || (res = await api(app.baseUrl, ada).post('/api/joy-ratings', rating)).status === 201, 5000, 100);
    expect(res.status).toBe(201);
    expect((await ratingsOf(ada)).map((r) => r.id)).toEqual([res.body.id, ...before.map((r) => r.id)]);
  });

  it('does not start on an EventStoreDB it cannot reach, and says which setting to check', async () => {
    const gone = await EventStoreDbStandIn.start();
    await gone.stop(); // a port nothing listens on
    await expect(startTestApp({ EVENTSTORE_URL: gone.url, AUTH_DEV_LOGIN: '1' })).rejects.toThrow(
      /EventStoreDB is unreachable \(.*\); check that it runs and that EVENTSTORE_URL names it/,
    );
  });

  it('access denied: writes answer 503, the relay stops with the reason in the health report, and does not spin', async () => {
    const cleo = await signIn(app.baseUrl, 'cleo@example.com', 'Cleo');
    standIn.faults = { accessDenied: true };
    expect((await api(app.baseUrl, cleo).post('/api/joy-ratings', rating)).status).toBe(503);
    const dropped = standIn.subscriptionRequests;
    standIn.dropSubscriptions(); // the relay resubscribes and is refused
    await waitUntil(() => standIn.subscriptionRequests > dropped);
    const requests = standIn.subscriptionRequests;

    // Health says so: the store refuses (public view) and, once the store answers reads again (the rights come back
    // here), every projection is stopped with the reason (the ops view, what `projections status` prints) until the
    // process restarts with working credentials.
    const refusedHealth = await api(app.baseUrl).get('/api/health');
    expect(refusedHealth.status).toBe(503);
    expect(refusedHealth.body.eventStore).toEqual({ ok: false, error: expect.stringContaining('EventStoreDB denied access') });
    standIn.faults = {};
    // Wait for the relay to take the refusal (it stops for good and says so), rather than for a fixed time.
    let health = await api(app.baseUrl).get('/api/health');
    await waitUntil(async () => (health = await api(app.baseUrl).get('/api/health')).body.projections?.ok === false);
    expect(health.status).toBe(503);
    expect(health.body.projections).toMatchObject({ ok: false, stopped: expect.arrayContaining(['ratings']) });
    const report = await healthReport(app.running.infra);
    expect(report.projections.length).toBeGreaterThan(0);
    for (const projection of report.projections) {
      expect(projection).toMatchObject({ state: 'stopped', error: expect.stringContaining('EventStoreDB denied access') });
    }
    // It did not spin: no subscription asked for since the refused one, though the store would now grant it.
    expect(standIn.subscriptionRequests).toBe(requests);
  });
});
