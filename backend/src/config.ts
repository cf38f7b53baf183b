import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Everything the app reads from its environment. Each production backend is chosen by setting its URL;
 * with none set the app runs on the embedded default (one process, SQLite file, in-memory read models).
 */
export interface AppConfig {
  port: number;
  /** The address users reach the app at (used for OpenID redirects and Origin checks). */
  publicUrl: string;
  dataDir: string;
  production: boolean;
  /** api: HTTP only; worker: relay + projectors + reactors only; all: both in one process. */
  role: 'all' | 'api' | 'worker';
  sessionSecret: string;
  oidc: { issuer: string; clientId: string; clientSecret: string } | null;
  eventStoreUrl: string | null;
  mongoUrl: string | null;
  redisUrl: string | null;
  frontendDist: string;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got ${env.PORT}`);
  const dataDir = resolve(env.DATA_DIR ?? './data');
  mkdirSync(dataDir, { recursive: true });
  const role = (env.ROLE ?? 'all') as AppConfig['role'];
  if (!['all', 'api', 'worker'].includes(role)) throw new Error(`ROLE must be all, api or worker, got ${role}`);
  const mongoUrl = env.MONGO_URL || null;
  if (role !== 'all' && !mongoUrl) {
    throw new Error('ROLE=api or ROLE=worker needs shared read models: set MONGO_URL (the in-memory default is one process only)');
  }
  const oidc = env.OIDC_ISSUER
    ? { issuer: env.OIDC_ISSUER, clientId: required(env, 'OIDC_CLIENT_ID'), clientSecret: required(env, 'OIDC_CLIENT_SECRET') }
    : null;
  return {
    port,
    publicUrl: (env.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/$/, ''),
    dataDir,
    production: env.NODE_ENV === 'production',
    role,
    sessionSecret: env.SESSION_SECRET || persistedSecret(dataDir),
    oidc,
    eventStoreUrl: env.EVENTSTORE_URL || null,
    mongoUrl,
    redisUrl: env.REDIS_URL || null,
    frontendDist: resolve(env.FRONTEND_DIST ?? join(__dirname, '..', '..', 'frontend', 'dist')),
  };
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} must be set when OIDC_ISSUER is set`);
  return value;
}

/** The embedded default keeps its session secret next to its data, so sessions survive a restart. */
function persistedSecret(dataDir: string): string {
  const file = join(dataDir, 'session-secret');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}
