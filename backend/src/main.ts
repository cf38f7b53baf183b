import { Logger } from '@nestjs/common';
import { createApp } from './app';
import { loadConfig } from './config';
import { listenOnEdge } from './http/server-edge';
import { UnreadableEventError } from './event-store/event-store.port';
import { RefusedToStart } from './ops/integrity';

async function main() {
  const config = loadConfig();
  const running = await createApp(config);
  await listenOnEdge(running.app, config.port);
  new Logger('Joy').log(`Joy is running at ${config.publicUrl} (role ${config.role})`);
  const shutdown = async (signal: string) => {
    new Logger('Joy').log(`${signal}: shutting down`);
    await running.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  // A refusal names the file and what to do: its message alone says it all.
  if (err instanceof RefusedToStart || err instanceof UnreadableEventError) console.error(`Joy refuses to start: ${err.message}`);
  else console.error(err);
  process.exit(1);
});
