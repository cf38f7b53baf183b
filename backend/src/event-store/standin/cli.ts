#!/usr/bin/env node
/**
 * `npm run esdb:standin -- --port <n> [--host <address>]`: the EventStoreDB stand-in (server.ts) on its own, for
 * trying the app or a tool against EventStoreDB's gRPC protocol without a server: in memory, insecure (tls=false),
 * for tests and trials only. Ctrl-C stops it (and forgets everything).
 */
import { parseArgs } from 'node:util';
import { EventStoreDbStandIn } from './server';

async function run(): Promise<void> {
  const { values } = parseArgs({
    options: { port: { type: 'string', default: '2113' }, host: { type: 'string', default: '127.0.0.1' } },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--port must be a port number (0 to 65535; 0 picks a free one), not "${values.port}"`);
  }
  const standIn = await EventStoreDbStandIn.start({ host: values.host, port });
  process.stdout.write(
    `EventStoreDB stand-in (in memory, insecure; for tests only) listening on ${standIn.host}:${standIn.port}\n` +
      `EVENTSTORE_URL=${standIn.url}\n`,
  );
  const stop = () => void standIn.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

run().catch((err: unknown) => {
  process.stderr.write(`esdb:standin: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
