import { Logger } from '@nestjs/common';
import type session from 'express-session';
import type { Redis } from 'ioredis';
import { join } from 'node:path';
import type { AppConfig } from './config';
import type { EventStoreDbEventStore } from './event-store/eventstoredb-event-store';
import type { EventStore } from './event-store/event-store.port';
import { SqliteEventStore } from './event-store/sqlite-event-store';
import { careFulfilmentReactor, RecordingCareFulfilment } from './care/care-fulfilment';
import { migratePersonalDataInEventStoreDb, migratePersonalDataInSqlite } from './account/personal-data-migration';
import { AccountStore } from './identity/accounts/account-store';
import { LocalAccounts } from './identity/accounts/local-accounts';
import { KeyArchive, KeyStore } from './identity/key-store';
import { SqliteKeyStore } from './identity/key-stores';
import { migrateIdentityLinksInSqlite } from './identity/identity-link-migration';
import { type LookupHash, lookupHasher } from './identity/lookup-hash';
import { SqliteSessionStore } from './identity/sqlite-session-store';
import { indexedRedisSessions } from './identity/redis-session-store';
import { RELAY_CHECKPOINT } from './projections/pipeline/jobs';
import { checkAccountsPresent, checkEventsPresent, checkKeyFile, checkReadModelsNotAhead, lastPositionOf, damagedKeys, damagedMoveAside, damagedRestore, RefusedToStart, refusingDamaged } from './ops/integrity';
import { lockDataDir } from './ops/data-dir-lock';
import { BUILT_IN_PATH } from './identity/built-in-provider';
import { ProjectionPipeline } from './projections/projection-pipeline';
import { PROJECTIONS } from './projections/projections';
import { collectionsOf } from './projections/projector';
import { InProcessQueue } from './queue/in-process-queue';
import type { JobQueue } from './queue/queue.port';
import type { ReadModelStore } from './read-models/read-model-store.port';
import { SqliteReadModelStore } from './read-models/sqlite-read-model-store';
import { VersionedReadModelStore } from './read-models/versioned-read-model-store';
import { ReminderScheduler } from './reminders/reminder-scheduler';
import { WebPushSender } from './reminders/push-sender';
import { loadVapidKeys, type VapidKeys } from './reminders/vapid';

/*
 * The production adapters are loaded only when configured: their libraries (EventStoreDB's gRPC client, the MongoDB
 * driver, BullMQ and the Redis client) take about half a second to load, which every restart of the embedded
 * default would spend for nothing.
 */
const production = {
  eventStoreDb: () => require('./event-store/eventstoredb-event-store') as typeof import('./event-store/eventstoredb-event-store'),
  scavenge: () => require('./event-store/eventstoredb-scavenge') as typeof import('./event-store/eventstoredb-scavenge'),
  mongoReadModels: () => require('./read-models/mongo-read-model-store') as typeof import('./read-models/mongo-read-model-store'),
  mongoKeys: () => require('./identity/mongo-key-store') as typeof import('./identity/mongo-key-store'),
  bullMq: () => require('./queue/bullmq-queue') as typeof import('./queue/bullmq-queue'),
  redis: () => require('ioredis') as typeof import('ioredis'),
  redisSessions: () => require('connect-redis') as typeof import('connect-redis'),
};

/** The adapters behind the ports, chosen by configuration: embedded by default, production by URL. */
export interface Infrastructure {
  store: EventStore;
  readModels: ReadModelStore;
  queue: JobQueue;
  pipeline: ProjectionPipeline;
  sessions: session.Store;
  /** REDIS_URL's connection for the sessions and the rate limits' counts (shared by api replicas); null without it. */
  redis: Redis | null;
  /** Per-person encryption keys of personal data, apart from the events (crypto-shredding). */
  keys: KeyStore;
  /** The built-in sign-in's accounts (`accounts.sqlite` in DATA_DIR); null with an external OIDC_ISSUER. */
  accounts: LocalAccounts | null;
  /** Keyed hashes of e-mails and provider subjects (identity link streams, account lookups). */
  lookup: LookupHash;
  /** The key file (embedded default), checked by health: null when the keys live in MongoDB. */
  keyFile: string | null;
  /** The install's VAPID keys (Web Push of reminders). */
  vapid: VapidKeys;
  /** Sends the daily reminders; started with the pipeline (never on ROLE=api). */
  reminders: ReminderScheduler;
  close(): Promise<void>;
}

/** The accounts of the built-in sign-in, in DATA_DIR (the provider runs in the api process: one at a time). */
export async function openLocalAccounts(config: AppConfig, keys: KeyStore): Promise<LocalAccounts> {
  return new LocalAccounts(openAccountStore(config.dataDir), keys, await lookupHasher(keys), config.publicUrl);
}

function openAccountStore(dataDir: string): AccountStore {
  const file = join(dataDir, 'accounts.sqlite');
  return refusingDamaged(file, damagedRestore(file, "the built-in sign-in's accounts and passkeys (the events hold none of them)"), () => new AccountStore(file));
}

/**
 * The key store: MongoDB collection `user-keys` when MONGO_URL is set (shared by api and worker replicas), else
 * `keys.sqlite` in DATA_DIR, a file of its own next to (never inside) events.sqlite.
 */
export function createKeyStore(config: Pick<AppConfig, 'mongoUrl' | 'dataDir'>): KeyStore & KeyArchive {
  const url = config.mongoUrl;
  if (url) return readableUrl('MONGO_URL', url, () => new (production.mongoKeys().MongoKeyStore)(url));
  const file = join(config.dataDir, 'keys.sqlite');
  return refusingDamaged(file, damagedKeys(file, join(config.dataDir, 'events.sqlite')), () => new SqliteKeyStore(file));
}

export function createEventStore(config: Pick<AppConfig, 'eventStoreUrl' | 'dataDir'>): EventStore {
  const url = config.eventStoreUrl;
  if (!url) return new SqliteEventStore(join(config.dataDir, 'events.sqlite'));
  return readableUrl('EVENTSTORE_URL', url, () => new (production.eventStoreDb().EventStoreDbEventStore)(url));
}

/**
 * Makes a production client from its URL. A URL its driver cannot parse is refused by the setting's name, with the
 * driver's reason but never the URL itself, which may hold a password (the drivers print it whole).
 */
function readableUrl<T>(setting: string, url: string, make: () => T): T {
  try {
    return make();
  } catch (err) {
    const reason = (err as Error).message.split(url).join(`<${setting}>`);
    throw new RefusedToStart(`${setting} cannot be read: ${reason}`);
  }
}

/**
 * A start on Redis first asks it for a PONG: BullMQ and the session store would otherwise retry forever, and the
 * app would answer 503 "starting" without saying why. Refused by name (REDIS_URL), with Redis's reason.
 */
async function checkRedisAnswers(url: string, timeoutMs = 5000): Promise<void> {
  const Redis = production.redis().default;
  const probe = new Redis(url, { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
  // The connection's own error says why (ECONNREFUSED, WRONGPASS); connect() then only says it is closed.
  let cause: Error | null = null;
  probe.on('error', (err: Error) => (cause ??= err));
  const { host, port } = probe.options;
  try {
    await probe.connect();
    await probe.ping();
  } catch (err) {
    const reason = (cause ?? (err as Error)).message.replace(/\.$/, '');
    const remedy = /WRONGPASS|NOAUTH|AUTH/i.test(reason) ? 'check the password in REDIS_URL' : 'check that Redis is running and that REDIS_URL names it';
    throw new RefusedToStart(`Cannot use Redis at ${host}:${port} (REDIS_URL): ${reason}. ${remedy[0].toUpperCase()}${remedy.slice(1)}.`);
  } finally {
    probe.disconnect();
  }
}

/**
 * The read models behind versioned collection names (see VersionedReadModelStore), so that a projection can
 * be rebuilt into a new version while the active one serves (`npm run projections -- rebuild <name>`).
 */
export function createReadModels(config: Pick<AppConfig, 'mongoUrl' | 'dataDir'>): VersionedReadModelStore {
  const url = config.mongoUrl;
  const inner: ReadModelStore = url
    ? readableUrl('MONGO_URL', url, () => new (production.mongoReadModels().MongoReadModelStore)(url))
    : openReadModelFile(join(config.dataDir, 'read-models.sqlite'));
  return new VersionedReadModelStore(
    inner,
    PROJECTIONS.map((p) => ({ name: p.name, collections: collectionsOf(p) })),
  );
}

export function createQueue(config: AppConfig): JobQueue {
  return config.redisUrl ? new (production.bullMq().BullMqQueue)(config.redisUrl, config.redisPrefix) : new InProcessQueue();
}

/**
 * The EventStoreDB migration of v1 identity events, with what it did in the log; when it truncated streams, a
 * scavenge is started on the server (its HTTP API, with the connection string's host and credentials) so that the
 * plaintext originals leave `$all` and the disk, or else the log says an operator must start one (docs/decisions.md).
 */
async function migrateOnEventStoreDb(store: EventStoreDbEventStore, connectionString: string, keys: KeyStore): Promise<void> {
  const migrated = await migratePersonalDataInEventStoreDb(store, keys);
  if (migrated.streams === 0) return;
  const logger = new Logger('Infrastructure');
  logger.log(
    `Personal data migration: ${migrated.rekeyed} events encrypted, ${migrated.redacted} redacted, in ${migrated.streams} streams ` +
      `(${migrated.copied} events copied, the originals truncated)`,
  );
  // Never throws: a scavenge that cannot be started is a warning (with the reason), not a failed start-up.
  await production.scavenge().scavengeAfterMigration(connectionString, logger);
}

/**
 * Opens what the app runs on. With the embedded read models, DATA_DIR is taken for this process alone first
 * (ops/data-dir-lock.ts): a second app on the same files is refused by name, and the lock goes with `close`.
 */
export async function createInfrastructure(config: AppConfig): Promise<Infrastructure> {
  const lock = config.mongoUrl ? null : lockDataDir(config.dataDir, `the app on port ${config.port}`);
  try {
    const infra = await openInfrastructure(config);
    return {
      ...infra,
      async close() {
        try {
          await infra.close();
        } finally {
          lock?.release();
        }
      },
    };
  } catch (err) {
    lock?.release();
    throw err;
  }
}

async function openInfrastructure(config: AppConfig): Promise<Infrastructure> {
  if (config.redisUrl) await checkRedisAnswers(config.redisUrl);
  const keyFile = config.mongoUrl ? null : join(config.dataDir, 'keys.sqlite');
  const eventsFile = join(config.dataDir, 'events.sqlite');
  if (keyFile && !config.eventStoreUrl) refusingDamagedEvents(eventsFile, () => checkKeyFile(keyFile, eventsFile, config.acceptLostKeys));
  if (!config.eventStoreUrl) refusingDamagedEvents(eventsFile, () => checkEventsPresent(eventsFile, keyFile, join(config.dataDir, 'accounts.sqlite')));
  if (!config.eventStoreUrl && !config.oidc && config.role !== 'worker') {
    refusingDamagedEvents(eventsFile, () => checkAccountsPresent(join(config.dataDir, 'accounts.sqlite'), eventsFile, BUILT_IN_PATH));
  }
  const keys = createKeyStore(config);
  const lookup = await lookupHasher(keys);
  const vapid = await loadVapidKeys(config.push, keys);
  if (!config.eventStoreUrl && config.role !== 'api') await refusingDamagedEvents(eventsFile, () => migrateEmbedded(eventsFile, keys, lookup));
  const store = refusingDamagedEvents(eventsFile, () => createEventStore(config));
  if (config.eventStoreUrl && store instanceof production.eventStoreDb().EventStoreDbEventStore && config.role !== 'api') {
    // On EventStoreDB, streams holding v1 identity events are re-keyed by copying, then truncated (docs/decisions.md).
    // Every worker replica runs it at start-up: what one has done, the others find done (expected versions).
    await migrateOnEventStoreDb(store, config.eventStoreUrl, keys).catch(async (err: unknown) => {
      await store.close();
      await keys.close();
      throw err;
    });
  }
  const readModels = createReadModels(config);
  if (!config.eventStoreUrl) {
    // Positions of the embedded store are 1..n, so a checkpoint past the last one is the events gone back in time.
    const checkpoints = [RELAY_CHECKPOINT, ...PROJECTIONS.map((p) => p.name)];
    const files = { events: eventsFile, readModels: config.mongoUrl ? 'MongoDB (MONGO_URL)' : join(config.dataDir, 'read-models.sqlite') };
    await checkReadModelsNotAhead(lastPositionOf(eventsFile), (name) => readModels.getCheckpoint(name), checkpoints, files).catch(async (err: unknown) => {
      await Promise.all([store.close(), readModels.close(), keys.close()]);
      throw err;
    });
  }
  if (config.role === 'api' && !config.oidc) {
    // Each api process would have accounts of its own (and oidc-provider keeps its sign-in steps in memory).
    new Logger('Infrastructure').warn(
      `ROLE=api without OIDC_ISSUER: the built-in sign-in keeps its accounts in this process's ${join(config.dataDir, 'accounts.sqlite')}; ` +
        'run one api process, or set OIDC_ISSUER to sign in through an identity provider',
    );
  }
  const accounts = config.oidc || config.role === 'worker' ? null : new LocalAccounts(openAccountStore(config.dataDir), keys, lookup, config.publicUrl);
  const queue = createQueue(config);
  const redis = config.redisUrl ? new (production.redis().default)(config.redisUrl, { maxRetriesPerRequest: 3 }) : null;
  redis?.on('error', reportOutage('Redis (sessions, rate limits)'));
  const sessions = redis
    ? indexedRedisSessions(production.redisSessions().default, redis, config.redisPrefix)
    : openSessionFile(join(config.dataDir, 'sessions.sqlite'));
  new Logger('Infrastructure').log(
    [
      `events: ${config.eventStoreUrl ? 'EventStoreDB' : `SQLite in ${config.dataDir}`}`,
      `read models: ${config.mongoUrl ? 'MongoDB' : `SQLite in ${config.dataDir}`}`,
      `queue: ${config.redisUrl ? 'BullMQ (Redis)' : 'in-process'}`,
      `sessions: ${redis ? 'Redis' : 'SQLite'}`,
      `keys: ${config.mongoUrl ? 'MongoDB' : 'SQLite'}`,
    ].join('; '),
  );

  // Reactors run wherever the pipeline is started (the worker, or the embedded process), never on ROLE=api.
  const careOrders = join(config.dataDir, 'care-orders.sqlite');
  const careFulfilment = refusingDamaged(
    careOrders,
    damagedRestore(careOrders, 'the care orders sent, whose keys keep a retried order from going out twice'),
    () => new RecordingCareFulfilment(careOrders),
  );
  const pipeline = new ProjectionPipeline(store, readModels, queue, PROJECTIONS, { reactors: [careFulfilmentReactor(careFulfilment)] });
  const reminders = new ReminderScheduler(store, readModels, keys, new WebPushSender(vapid, config.push.allowInsecureEndpoints));
  return {
    store,
    readModels,
    queue,
    pipeline,
    sessions,
    redis,
    keys,
    accounts,
    lookup,
    keyFile,
    vapid,
    reminders,
    async close() {
      await reminders.stop();
      await pipeline.stop();
      await queue.close();
      await readModels.close();
      await store.close();
      careFulfilment.close();
      if (sessions instanceof SqliteSessionStore) sessions.close();
      accounts?.store.close();
      await keys.close();
      await redis?.quit();
    },
  };
}

/** The embedded default's in-place migrations of events.sqlite at start-up (docs/decisions.md). */
async function migrateEmbedded(eventsFile: string, keys: KeyStore, lookup: LookupHash): Promise<void> {
  // Identity events written before personal data was encrypted are re-keyed in place (docs/decisions.md).
  const migrated = await migratePersonalDataInSqlite(eventsFile, keys);
  if (migrated.rekeyed + migrated.redacted > 0) {
    new Logger('Infrastructure').log(`Personal data migration: ${migrated.rekeyed} events encrypted, ${migrated.redacted} redacted`);
  }
  // Identity links named before keyed hashes get their keyed names (docs/decisions.md, "Keyed lookups").
  const links = await migrateIdentityLinksInSqlite(eventsFile, keys, lookup);
  if (links.renamed + links.dropped > 0) {
    new Logger('Infrastructure').log(`Identity links: ${links.renamed} renamed to keyed names, ${links.dropped} of deleted accounts dropped`);
  }
}

/**
 * Runs a start-up step that opens events.sqlite by itself; a file SQLite cannot read is refused by name, with what
 * to do (the event store's own reads report a damaged event the same way: UnreadableEventError).
 */
function refusingDamagedEvents<T>(file: string, step: () => T): T {
  return refusingDamaged(
    file,
    'it holds the events, which cannot be rebuilt. Stop here and restore DATA_DIR from your latest backup (npm run backup; see Backups in the README), then start again.',
    step,
  );
}

/**
 * The embedded default's read models. A file SQLite cannot read is refused by name: it holds only what the events
 * say, so moving it aside is safe, and the next start builds it again (the port answers 503 "starting" meanwhile).
 */
function openReadModelFile(file: string): SqliteReadModelStore {
  return refusingDamaged(file, damagedMoveAside(file, 'the read models, which Joy builds from the events', 'the first start rebuilds them'), () => new SqliteReadModelStore(file));
}

/** The embedded default's sessions: a damaged file only signs everyone out, so moving it aside is safe. */
function openSessionFile(file: string): SqliteSessionStore {
  return refusingDamaged(file, damagedMoveAside(file, 'who is signed in', 'everyone signs in again'), () => new SqliteSessionStore(file));
}

/** An error listener that logs a connection's outage once a minute at most (a client retrying logs every attempt). */
function reportOutage(what: string): (err: Error) => void {
  let last = 0;
  return (err) => {
    if (Date.now() - last < 60_000) return;
    last = Date.now();
    new Logger('Infrastructure').warn(`${what} is unreachable: ${err.message} (retrying)`);
  };
}
