import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestScavenge, scavengeAfterMigration, scavengeRequestPlan, SCAVENGE_OPERATOR_STEP } from './eventstoredb-scavenge';

/*
 * Starting a scavenge through EventStoreDB's HTTP API, against local stand-ins of its admin endpoint (node:http):
 * what is sent (method, path, Basic credentials), and the fallback warning when it cannot be started.
 */

interface Seen {
  method: string | undefined;
  url: string | undefined;
  authorization: string | undefined;
  body: string;
}

/** A stand-in EventStoreDB node answering POST /admin/scavenge with `answer`; records every request. */
async function standIn(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ port: number; seen: Seen[]; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, authorization: req.headers.authorization, body });
      answer(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const started = (id: string) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ scavengeId: id }));
};

/** A port nothing listens on (a server opened, then closed). */
async function closedPort(): Promise<number> {
  const probe = await standIn(started('never'));
  await probe.close();
  return probe.port;
}

function recordingLogger() {
  const logs: string[] = [];
  const warnings: string[] = [];
  return { logs, warnings, log: (m: string) => logs.push(m), warn: (m: string) => warnings.push(m) };
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('the request plan from an EventStoreDB connection string', () => {
  it('https on the default port unless tls=false; the credentials URL-decoded; every host listed', () => {
    expect(scavengeRequestPlan('esdb://admin:changeit@db.example:2113')).toEqual({
      urls: ['https://db.example:2113/admin/scavenge'],
      authorization: basic('admin', 'changeit'),
      discover: false,
      tlsCAFile: null,
    });
    expect(scavengeRequestPlan('esdb://localhost?tls=false&keepAliveInterval=10000').urls).toEqual(['http://localhost:2113/admin/scavenge']);
    expect(scavengeRequestPlan('esdb://localhost?tls=false').authorization).toBeNull();
    expect(scavengeRequestPlan('esdb://ops%3Auser:p%40ss%2Fw0rd@a:2113,b:2114,c?Tls=true&tls_ca_file=%2Fetc%2Fca.pem')).toEqual({
      urls: ['https://a:2113/admin/scavenge', 'https://b:2114/admin/scavenge', 'https://c:2113/admin/scavenge'],
      authorization: basic('ops:user', 'p@ss/w0rd'),
      discover: false,
      tlsCAFile: '/etc/ca.pem',
    });
    expect(scavengeRequestPlan('esdb+discover://admin:changeit@cluster.example:2113/')).toMatchObject({
      urls: ['https://cluster.example:2113/admin/scavenge'],
      discover: true,
    });
  });

  it('refuses what is not an EventStoreDB connection string', () => {
    expect(() => scavengeRequestPlan('https://db.example:2113')).toThrow(/esdb:\/\//);
    expect(() => scavengeRequestPlan('esdb://db.example:port')).toThrow(/cannot read the host/);
    expect(() => scavengeRequestPlan('esdb://?tls=false')).toThrow(/no host/);
  });
});

describe('starting a scavenge after the migration', () => {
  const servers: { close: () => Promise<void> }[] = [];
  const serve = async (answer: Parameters<typeof standIn>[0]) => {
    const server = await standIn(answer);
    servers.push(server);
    return server;
  };
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it('POSTs /admin/scavenge with Basic credentials from the connection string, and logs the scavenge id', async () => {
    const node = await serve(started('5bd2e1ea-8f6a-4b5c-9f3e-0a1b2c3d4e5f'));
    const logger = recordingLogger();
    const outcomes = await scavengeAfterMigration(`esdb://admin:chang%40it@127.0.0.1:${node.port}?tls=false`, logger);
    expect(node.seen).toEqual([{ method: 'POST', url: '/admin/scavenge', authorization: basic('admin', 'chang@it'), body: '' }]);
    expect(outcomes).toEqual([
      { url: `http://127.0.0.1:${node.port}/admin/scavenge`, started: true, scavengeId: '5bd2e1ea-8f6a-4b5c-9f3e-0a1b2c3d4e5f' },
    ]);
    expect(logger.logs).toEqual([expect.stringContaining(`Scavenge 5bd2e1ea-8f6a-4b5c-9f3e-0a1b2c3d4e5f started on 127.0.0.1:${node.port}`)]);
    expect(logger.warnings).toEqual([]);
  });

  it('falls back to the operator warning, with the reason, on a 401', async () => {
    const node = await serve((_req, res) => {
      res.writeHead(401, 'Unauthorized', { 'WWW-Authenticate': 'Basic realm="ES"' });
      res.end();
    });
    const logger = recordingLogger();
    const [outcome] = await scavengeAfterMigration(`esdb://reader:secret@127.0.0.1:${node.port}?tls=false`, logger);
    expect(node.seen.map((s) => [s.method, s.url, s.authorization])).toEqual([['POST', '/admin/scavenge', basic('reader', 'secret')]]);
    expect(outcome).toMatchObject({ started: false, reason: expect.stringContaining('HTTP 401 Unauthorized') });
    expect(logger.logs).toEqual([]);
    expect(logger.warnings).toEqual([expect.stringContaining('$admins or $ops')]);
    expect(logger.warnings[0]).toContain('still holds the truncated plaintext events');
    expect(logger.warnings[0]).toContain(SCAVENGE_OPERATOR_STEP);
  });

  it('falls back when the connection is refused, and sends no credentials the string does not have', async () => {
    const port = await closedPort();
    const logger = recordingLogger();
    const [outcome] = await scavengeAfterMigration(`esdb://127.0.0.1:${port}?tls=false`, logger);
    expect(outcome).toMatchObject({ started: false, reason: expect.stringContaining('ECONNREFUSED') });
    expect(logger.warnings).toEqual([expect.stringMatching(new RegExp(`could not be started on 127\\.0\\.0\\.1:${port} \\(.*ECONNREFUSED`))]);

    const node = await serve(started('x'));
    await scavengeAfterMigration(`esdb://127.0.0.1:${node.port}?tls=false`, recordingLogger());
    expect(node.seen[0].authorization).toBeUndefined();
  });

  it('a scavenge already running (400) or no answer in time: the fallback, with the reason', async () => {
    const busy = await serve((_req, res) => {
      res.writeHead(400, 'Bad Request');
      res.end();
    });
    const silent = await serve(() => undefined); // never answers
    const outcomes = await requestScavenge(
      scavengeRequestPlan(`esdb://admin:changeit@127.0.0.1:${busy.port},127.0.0.1:${silent.port}?tls=false`),
      { timeoutMs: 300 },
    );
    expect(outcomes).toEqual([
      { url: `http://127.0.0.1:${busy.port}/admin/scavenge`, started: false, reason: expect.stringContaining('already be running') },
      { url: `http://127.0.0.1:${silent.port}/admin/scavenge`, started: false, reason: 'no answer within 300 ms' },
    ]);
  });

  it('asks every node of a multi-host string; with DNS discovery it says the other nodes still need one', async () => {
    const [a, b] = [await serve(started('on-a')), await serve(started('on-b'))];
    const multi = recordingLogger();
    const outcomes = await scavengeAfterMigration(`esdb://admin:changeit@127.0.0.1:${a.port},127.0.0.1:${b.port}?tls=false`, multi);
    expect(outcomes.map((o) => o.started && o.scavengeId)).toEqual(['on-a', 'on-b']);
    expect([a.seen.length, b.seen.length]).toEqual([1, 1]);
    expect(multi.warnings).toEqual([]);

    const discover = recordingLogger();
    await scavengeAfterMigration(`esdb+discover://admin:changeit@127.0.0.1:${a.port}?tls=false`, discover);
    expect(discover.logs).toEqual([expect.stringContaining('Scavenge on-a started')]);
    expect(discover.warnings).toEqual([expect.stringContaining('only the node it resolved to was asked')]);
  });

  it('a connection string it cannot read: the fallback warning, nothing sent', async () => {
    const logger = recordingLogger();
    expect(await scavengeAfterMigration('tcp://admin:changeit@127.0.0.1:1113', logger)).toEqual([]);
    expect(logger.warnings).toEqual([expect.stringContaining('could not start one (not an esdb:// or esdb+discover:// connection string)')]);
  });
});
