import { Logger } from '@nestjs/common';
import { createServer, type Server } from 'node:http';
import { loadConfig } from './config';
import { createInfrastructure, type Infrastructure } from './infrastructure';
import { healthReport } from './ops/health';

/**
 * The worker entry point (same build as the api, `node backend/dist/worker.js`): the relay, the projection
 * consumers (and the reactors, when there are any) without HTTP API, plus `GET /health` on PORT. Replicas
 * scale out freely: each projection queue and the relay are leased to one replica at a time (see BullMqQueue);
 * the others stand by and take over when it stops.
 */
export async function startWorker(env: NodeJS.ProcessEnv = process.env): Promise<{ infra: Infrastructure; server: Server; close(): Promise<void> }> {
  const config = loadConfig({ ...env, ROLE: env.ROLE ?? 'worker' });
  if (config.role === 'api') throw new Error('worker.js runs the worker role; start main.js for the api');
  const infra = await createInfrastructure(config);
  await infra.pipeline.start();
  infra.reminders.start();
  if (config.production && config.push.allowInsecureEndpoints) {
    new Logger('Joy').warn('PUSH_ALLOW_INSECURE_ENDPOINTS=1 in production: reminders may be sent over plain http and to this machine (loopback), which is for tests only.');
  }
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/health') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'not found' }));
      return;
    }
    healthReport(infra).then(
      (report) => res.writeHead(report.status === 'ok' ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify(report)),
      (err: Error) => res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'degraded', error: err.message })),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, () => resolve());
  });
  new Logger('Joy').log(`Worker running (role ${config.role}); health at http://localhost:${config.port}/health`);
  let closing: Promise<void> | null = null;
  return {
    infra,
    server,
    close: () =>
      (closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await closed;
        await infra.close(); // stops the relay and the consumers after their job in flight, releases the leases
      })()),
  };
}

if (require.main === module) {
  startWorker()
    .then((worker) => {
      const shutdown = (signal: string) => {
        new Logger('Joy').log(`${signal}: shutting down`);
        // A second signal while draining stops at once.
        process.once(signal, () => process.exit(1));
        worker.close().then(
          () => process.exit(0),
          (err) => {
            console.error(err);
            process.exit(1);
          },
        );
      };
      process.once('SIGTERM', () => shutdown('SIGTERM'));
      process.once('SIGINT', () => shutdown('SIGINT'));
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
