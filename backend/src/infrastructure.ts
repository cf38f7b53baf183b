import { Logger } from '@nestjs/common';
import type session from 'express-session';
import { join } from 'node:path';
import type { AppConfig } from './config';
import type { EventStore } from './event-store/event-store.port';
import { SqliteEventStore } from './event-store/sqlite-event-store';
import { SqliteSessionStore } from './identity/sqlite-session-store';
import { ProjectionPipeline } from './projections/projection-pipeline';
import { PROJECTIONS } from './projections/projections';
import { InProcessQueue } from './queue/in-process-queue';
import type { JobQueue } from './queue/queue.port';
import { InMemoryReadModelStore } from './read-models/in-memory-read-model-store';
import type { ReadModelStore } from './read-models/read-model-store.port';

/** The adapters behind the ports, chosen by configuration: embedded by default, production by URL. */
export interface Infrastructure {
  store: EventStore;
  readModels: ReadModelStore;
  queue: JobQueue;
  pipeline: ProjectionPipeline;
  sessions: session.Store & { close?: () => void };
  close(): Promise<void>;
}

export async function createInfrastructure(config: AppConfig): Promise<Infrastructure> {
  const logger = new Logger('Infrastructure');
  if (config.eventStoreUrl || config.mongoUrl || config.redisUrl) {
    throw new Error('The production adapters (EVENTSTORE_URL, MONGO_URL, REDIS_URL) are not available in this build yet');
  }
  const store = new SqliteEventStore(join(config.dataDir, 'events.sqlite'));
  const readModels = new InMemoryReadModelStore();
  const queue = new InProcessQueue();
  const sessions = new SqliteSessionStore(join(config.dataDir, 'sessions.sqlite'));
  logger.log(`Embedded default: events and sessions in ${config.dataDir}, read models in memory`);

  const pipeline = new ProjectionPipeline(store, readModels, queue, PROJECTIONS);
  return {
    store,
    readModels,
    queue,
    pipeline,
    sessions,
    async close() {
      await pipeline.stop();
      await queue.close();
      await readModels.close();
      await store.close();
      sessions.close?.();
    },
  };
}
