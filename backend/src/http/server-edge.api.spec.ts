import { Agent, request } from 'node:http';
import type { Server } from 'node:http';
import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';
import { waitUntil } from '../testing/wait';
import { EDGE } from './server-edge';

jest.setTimeout(60_000);

interface Answer {
  status: number | 'error';
  retryAfter?: string;
}

function get(agent: Agent, url: string, cookie: string): Promise<Answer> {
  return new Promise((resolve) => {
    const req = request(url, { agent, headers: { cookie } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] }));
    });
    req.on('error', () => resolve({ status: 'error' }));
    req.end();
  });
}

/** Keeps this process's event loop busy for `ms` (as a flood of work would). */
function blockLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy
  }
}

describe('the HTTP edge', () => {
  let app: TestApp;
  let cookie: string;
  beforeAll(async () => {
    app = await startTestApp({ SHED_EVENT_LOOP_DELAY_MS: '150' });
    cookie = await signIn(app.baseUrl, 'edge@example.com', 'Edge');
  });
  afterAll(() => app.destroy());

  it('sets its connection timeouts deliberately (keep-alive past a proxy’s 60 s, bounded request reading)', () => {
    const server = app.running.app.getHttpServer() as Server;
    expect(server.keepAliveTimeout).toBe(EDGE.keepAliveTimeoutMs);
    expect(server.keepAliveTimeout).toBeGreaterThan(60_000);
    expect(server.headersTimeout).toBe(EDGE.headersTimeoutMs);
    expect(server.requestTimeout).toBe(EDGE.requestTimeoutMs);
    expect(server.headersTimeout).toBeLessThan(server.requestTimeout);
  });

  it('answers every one of 1,000 simultaneous connections: 200, or 503 with Retry-After, never a dropped connection', async () => {
    const agents = Array.from({ length: 1000 }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
    const answers = await Promise.all(agents.map((agent) => get(agent, `${app.baseUrl}/api/joy-ratings/latest`, cookie)));
    for (const agent of agents) agent.destroy();
    expect(answers.filter((a) => a.status === 'error')).toEqual([]);
    for (const a of answers) {
      expect([200, 503]).toContain(a.status);
      if (a.status === 503) expect(Number(a.retryAfter)).toBeGreaterThan(0);
    }
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(0);
  });

  it('sheds API requests with 503 + Retry-After while the event loop runs late, never health, and recovers', async () => {
    // A flood of work: the loop is stuck for 200 ms again and again, so every window sees it run late.
    const flood = setInterval(() => blockLoop(200), 20);
    try {
      // Shedding starts once a measuring window has seen the loop run late.
      let shed = await api(app.baseUrl, cookie).get('/api/joy-ratings/latest');
      await waitUntil(async () => (shed = await api(app.baseUrl, cookie).get('/api/joy-ratings/latest')).status !== 200, 5000, 20);
      expect(shed.status).toBe(503);
      expect(shed.headers['retry-after']).toBe('2');
      expect(shed.body).toEqual({ statusCode: 503, code: 'server.busy', message: 'Joy is very busy right now. Please try again in a moment.' });
      expect((await api(app.baseUrl).get('/api/health')).status).toBe(200);
    } finally {
      clearInterval(flood);
    }

    // Once a window passes quietly, requests are served again.
    await waitUntil(async () => (await api(app.baseUrl, cookie).get('/api/joy-ratings/latest')).status === 200, 3000, 100);
  });
});
