import { MongoClient, type MongoClientOptions } from 'mongodb';
import { existsSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';

/** A server for tests: where to connect, and how to stop it (a no-op for a server given by URL). */
export interface TestServer {
  url: string;
  stop: () => Promise<void>;
}

/** How long to wait for the container runtime to answer before deciding there is none. */
const RUNTIME_PROBE_TIMEOUT_MS = 5_000;
/** How long a container may take to start (the first run also pulls its image). */
const STARTUP_TIMEOUT_MS = 180_000;

/**
 * An EventStoreDB for tests: `EVENTSTORE_URL` when set, else a throwaway container (EventStoreDB 24.10,
 * insecure, in memory, with the system projections running) when a container runtime is reachable, else null.
 */
export async function eventStoreDbUrl(): Promise<TestServer | null> {
  const fromEnv = process.env.EVENTSTORE_URL;
  if (fromEnv) return { url: fromEnv, stop: async () => undefined };
  const testcontainers = await loadTestcontainers();
  if (!testcontainers) return null;
  const { GenericContainer, Wait } = testcontainers;
  const container = await new GenericContainer('eventstore/eventstore:24.10')
    .withEnvironment({
      EVENTSTORE_INSECURE: 'true',
      EVENTSTORE_RUN_PROJECTIONS: 'All',
      EVENTSTORE_START_STANDARD_PROJECTIONS: 'true',
      EVENTSTORE_MEM_DB: 'true',
    })
    .withExposedPorts(2113)
    .withWaitStrategy(
      Wait.forHttp('/health/live', 2113).forStatusCodeMatching((status) => status >= 200 && status < 300),
    )
    .withStartupTimeout(STARTUP_TIMEOUT_MS)
    .start();
  return {
    url: `esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`,
    stop: async () => {
      await container.stop();
    },
  };
}

/** A MongoDB for tests: `MONGO_URL` when set, else a throwaway `mongo:7` container when possible, else null. */
export async function mongoUrl(): Promise<TestServer | null> {
  const fromEnv = process.env.MONGO_URL;
  if (fromEnv) return { url: fromEnv, stop: async () => undefined };
  const testcontainers = await loadTestcontainers();
  if (!testcontainers) return null;
  const { GenericContainer, Wait } = testcontainers;
  const container = await new GenericContainer('mongo:7')
    .withExposedPorts(27017)
    .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
    .withStartupTimeout(STARTUP_TIMEOUT_MS)
    .start();
  return {
    url: `mongodb://${container.getHost()}:${container.getMappedPort(27017)}/?directConnection=true`,
    stop: async () => {
      await container.stop();
    },
  };
}

type Testcontainers = typeof import('testcontainers');

let runtime: Promise<Testcontainers | null> | undefined;

/**
 * testcontainers, when a container runtime is reachable; else null. Decided once per test file, and fast when
 * there is none: without any sign of a runtime (a Docker socket, DOCKER_HOST, a testcontainers configuration)
 * the library is not even loaded, and the runtime's answer is awaited for RUNTIME_PROBE_TIMEOUT_MS at most.
 */
function loadTestcontainers(): Promise<Testcontainers | null> {
  runtime ??= (async () => {
    if (!containerRuntimeMayExist()) return null;
    // Loaded lazily (it is heavy) and only in tests; `require` keeps it out of the production module graph.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const testcontainers = require('testcontainers') as Testcontainers;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        testcontainers.getContainerRuntimeClient(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('no answer')), RUNTIME_PROBE_TIMEOUT_MS);
        }),
      ]);
      return testcontainers;
    } catch {
      return null;
    } finally {
      clearTimeout(timer);
    }
  })();
  return runtime;
}

/**
 * Whether anything suggests a container runtime (the places testcontainers itself looks). Synchronous, so that
 * a spec can decide when it is defined whether a suite can run at all (and report it as skipped when not).
 */
export function containerRuntimeMayExist(): boolean {
  if (process.env.DOCKER_HOST || process.env.TESTCONTAINERS_HOST_OVERRIDE) return true;
  if (process.platform === 'win32') return true; // a named pipe: only the probe can tell
  const sockets = [
    '/var/run/docker.sock',
    process.env.XDG_RUNTIME_DIR && join(process.env.XDG_RUNTIME_DIR, 'docker.sock'),
    join(homedir(), '.docker', 'run', 'docker.sock'),
    join(homedir(), '.docker', 'desktop', 'docker.sock'),
    join('/run', 'user', String(userInfo().uid), 'docker.sock'),
    join(homedir(), '.testcontainers.properties'),
  ];
  return sockets.some((path) => typeof path === 'string' && existsSync(path));
}

/**
 * A MongoDB database of its own for one test file, dropped after its tests (`afterAll` is registered here), with
 * one client and server for the whole file: `get()` resolves to null when no MongoDB can be had.
 */
export function sharedMongoDatabase(prefix: string, clientOptions: MongoClientOptions = {}) {
  const dbName = `${prefix}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  let shared: Promise<{ server: TestServer; client: MongoClient } | null> | undefined;
  const get = () =>
    (shared ??= (async () => {
      const server = await mongoUrl();
      if (!server) return null;
      const client = new MongoClient(server.url, clientOptions);
      await client.connect();
      return { server, client };
    })());
  afterAll(async () => {
    const started = await shared;
    if (!started) return;
    try {
      await started.client.db(dbName).dropDatabase();
    } finally {
      await started.client.close();
      await started.server.stop();
    }
  });
  return { dbName, get };
}
