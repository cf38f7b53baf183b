import { Logger } from '@nestjs/common';
import { createApp } from './app';
import { loadConfig } from './config';
import { signInNotice } from './identity/built-in-provider';
import { listenOnEdge } from './http/server-edge';
import { UnreadableEventError } from './event-store/event-store.port';
import { RefusedToStart } from './ops/integrity';

/** A setting that cannot work (a weak SESSION_SECRET, a mistyped opt-in): its message names it and what to do. */
class ConfigurationRefused extends Error {}

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    throw new ConfigurationRefused((err as Error).message);
  }
  const running = await createApp(config, { serveWhileStarting: true });
  // The port listens at once; until the read models have caught up the API answers 503 "starting".
  await listenOnEdge(running.app, config.port);
  await running.ready.catch(async (err: unknown) => {
    await running.app.close().catch(() => undefined);
    throw err;
  });
  new Logger('Joy').log(`Joy is running at ${config.publicUrl} (role ${config.role})`);
  new Logger('Joy').log(signInNotice(config));
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
  if (err instanceof RefusedToStart || err instanceof UnreadableEventError || err instanceof ConfigurationRefused) console.error(`Joy refuses to start: ${err.message}`);
  else console.error(err);
  process.exit(1);
});
