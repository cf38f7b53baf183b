import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ipaddr from 'ipaddr.js';
import { cannotUse } from './ops/integrity';
import { type PushConfig, pushConfig } from './reminders/vapid';

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
  /** Bearer token of the local ops view (GET /api/health/details): OPS_TOKEN, or generated once into DATA_DIR/ops-token. */
  opsToken: string;
  oidc: { issuer: string; clientId: string; clientSecret: string } | null;
  eventStoreUrl: string | null;
  mongoUrl: string | null;
  redisUrl: string | null;
  /** Prefix of every Redis key (queues, leases, sessions), so that installs (or test apps) can share a Redis. */
  redisPrefix: string;
  frontendDist: string;
  rateLimits: { signInPer15Minutes: number; writesPerMinute: number; accountFilesPerHour: number; inviteMissesPer15Minutes: number };
  /** Load shedding (SHED_EVENT_LOOP_DELAY_MS; 0 turns it off): see http/server-edge.ts. */
  loadShedding: LoadShedding | null;
  /** ACCEPT_LOST_KEYS=1: start although keys.sqlite is missing while encrypted personal data exists (its loss accepted). */
  acceptLostKeys: boolean;
  /** Stripe when STRIPE_SECRET_KEY is set; the sandbox (a labelled test-mode checkout) only with BILLING_SANDBOX=1; else none. */
  billing: BillingConfig;
  /** AUTH_DEV_LOGIN=1: the built-in provider also offers the password-less development form. */
  devLogin: boolean;
  /** SIGNUP: whether the built-in provider lets new people create an account. */
  signup: 'open' | 'closed';
  /** TRUST_PROXY: the proxy hops whose X-Forwarded-* headers are believed (Express's `trust proxy`); false: none. */
  trustProxy: number | string | false;
  /** Web Push of reminders: VAPID keys and subject, PUSH_ALLOW_INSECURE_ENDPOINTS (reminders/vapid.ts). */
  push: PushConfig;
}

/** Development conveniences that are on, by the variable that turned them on (a demo install in production). */
export function optIns(config: AppConfig): string[] {
  return [
    ...(config.devLogin ? ['AUTH_DEV_LOGIN'] : []),
    ...(config.billing.provider === 'sandbox' ? ['BILLING_SANDBOX'] : []),
    ...(config.push.allowInsecureEndpoints ? ['PUSH_ALLOW_INSECURE_ENDPOINTS'] : []),
  ];
}

/** Load shedding at the HTTP edge (http/server-edge.ts). */
export interface LoadShedding {
  /** Shed while the event loop ran this late (ms, the last window's 99th percentile) or more. */
  maxDelayMs: number;
  /** How often the delay is looked at (ms). */
  windowMs: number;
  /** Seconds a shed client is asked to wait. */
  retryAfterSeconds: number;
}

export const DEFAULT_LOAD_SHEDDING: LoadShedding = { maxDelayMs: 500, windowMs: 250, retryAfterSeconds: 2 };

export type BillingConfig =
  | { provider: 'none' }
  | { provider: 'sandbox' }
  | {
      provider: 'stripe';
      secretKey: string;
      publishableKey: string;
      webhookSecret: string;
      /** The monthly price; when null, the price with lookup key `joy_premium_monthly` is found or created. */
      priceId: string | null;
      /** Where the Stripe client sends its requests (a stand-in in tests); Stripe's own API when unset. */
      api: { host?: string; port?: number; protocol?: 'http' | 'https' };
    };

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const port = portNumber(env.PORT);
  // Empty is a mistake (an unset variable in a script), not the current directory (a review, 11-27: a new install in
  // the app's own folder).
  if (env.DATA_DIR !== undefined && env.DATA_DIR.trim() === '') throw new Error('DATA_DIR is empty: set it to the data directory (./data when left unset)');
  const dataDir = resolve(env.DATA_DIR ?? './data');
  keepPrivate(dataDir);
  const role = (env.ROLE ?? 'all') as AppConfig['role'];
  if (!['all', 'api', 'worker'].includes(role)) throw new Error(`ROLE must be all, api or worker, got ${role}`);
  const mongoUrl = serverUrl(env, 'MONGO_URL', ['mongodb', 'mongodb+srv']);
  if (role !== 'all' && !mongoUrl) {
    throw new Error('ROLE=api or ROLE=worker needs shared read models: set MONGO_URL (the in-memory default is one process only)');
  }
  const oidc = env.OIDC_ISSUER
    ? { issuer: webAddress(env, 'OIDC_ISSUER'), clientId: required(env, 'OIDC_CLIENT_ID'), clientSecret: required(env, 'OIDC_CLIENT_SECRET') }
    : null;
  const production = oneOf(env, 'NODE_ENV', ['production', 'development', 'test'], 'development') === 'production';
  const publicUrl = env.PUBLIC_URL ? publicAddress(env.PUBLIC_URL) : `http://localhost:${port}`;
  return {
    port,
    publicUrl,
    dataDir,
    production,
    role,
    sessionSecret: sessionSecret(env, dataDir, production),
    opsToken: env.OPS_TOKEN ? givenOpsToken(env.OPS_TOKEN) : persistedSecret(dataDir, 'ops-token'),
    oidc,
    eventStoreUrl: env.EVENTSTORE_URL ? eventStoreUrl(env.EVENTSTORE_URL) : null,
    mongoUrl,
    redisUrl: serverUrl(env, 'REDIS_URL', ['redis', 'rediss']),
    redisPrefix: redisPrefix(env),
    frontendDist: resolve(env.FRONTEND_DIST ?? join(__dirname, '..', '..', 'frontend', 'dist')),
    rateLimits: {
      signInPer15Minutes: positiveInt(env, 'RATE_LIMIT_SIGNIN_PER_15_MIN', 50),
      writesPerMinute: positiveInt(env, 'RATE_LIMIT_WRITES_PER_MIN', 120),
      accountFilesPerHour: positiveInt(env, 'RATE_LIMIT_ACCOUNT_FILES_PER_HOUR', 20),
      inviteMissesPer15Minutes: positiveInt(env, 'RATE_LIMIT_INVITE_MISSES_PER_15_MIN', 20),
    },
    acceptLostKeys: flag(env, 'ACCEPT_LOST_KEYS'),
    loadShedding: loadShedding(env),
    billing: billingConfig(env),
    devLogin: flag(env, 'AUTH_DEV_LOGIN'),
    signup: oneOf(env, 'SIGNUP', ['open', 'closed'], 'open'),
    trustProxy: trustProxy(env.TRUST_PROXY),
    push: pushConfig(env, publicUrl),
  };
}

function billingConfig(env: NodeJS.ProcessEnv): BillingConfig {
  const sandbox = flag(env, 'BILLING_SANDBOX');
  if (!env.STRIPE_SECRET_KEY) return { provider: sandbox ? 'sandbox' : 'none' };
  if (sandbox) throw new Error('BILLING_SANDBOX=1 and STRIPE_SECRET_KEY are both set: choose one (unset BILLING_SANDBOX to take payments with Stripe)');
  const need = (name: string) => {
    const value = env[name];
    if (!value) throw new Error(`${name} must be set when STRIPE_SECRET_KEY is set`);
    return value;
  };
  const protocol = env.STRIPE_API_PROTOCOL as 'http' | 'https' | undefined;
  if (protocol && protocol !== 'http' && protocol !== 'https') throw new Error(`STRIPE_API_PROTOCOL must be http or https, got ${protocol}`);
  const port = env.STRIPE_API_PORT ? Number(env.STRIPE_API_PORT) : undefined;
  if (port !== undefined && (!Number.isInteger(port) || port <= 0 || port > 65535)) throw new Error(`STRIPE_API_PORT must be a port number, got ${env.STRIPE_API_PORT}`);
  return {
    provider: 'stripe',
    secretKey: env.STRIPE_SECRET_KEY,
    publishableKey: need('STRIPE_PUBLISHABLE_KEY'),
    webhookSecret: need('STRIPE_WEBHOOK_SECRET'),
    priceId: env.STRIPE_PRICE_ID || null,
    api: {
      ...(env.STRIPE_API_HOST ? { host: env.STRIPE_API_HOST } : {}),
      ...(port !== undefined ? { port } : {}),
      ...(protocol ? { protocol } : {}),
    },
  };
}

/** An opt-in: `1` turns it on, unset (or empty, or `0`) leaves it off; anything else is a mistake worth naming. */
function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === '0') return false;
  if (raw === '1') return true;
  throw new Error(`${name} must be 1 (on) or 0 (off), got ${raw}`);
}

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!values.includes(raw as T)) throw new Error(`${name} must be ${values.join(' or ')}, got ${raw}`);
  return raw as T;
}

/**
 * TRUST_PROXY: unset, empty or `0` trusts no proxy (X-Forwarded-For from a client is ignored); a number trusts that
 * many hops; otherwise a comma-separated list of addresses, subnets or Express's names (`loopback`, `uniquelocal`).
 * `true` (trust every hop) is refused: any client could then choose its own address.
 */
function trustProxy(raw: string | undefined): AppConfig['trustProxy'] {
  const value = raw?.trim() ?? '';
  if (value === '' || value === '0' || value === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value);
  if (value === 'true') throw new Error('TRUST_PROXY=true would believe any client\'s X-Forwarded-For: set the number of proxy hops (1) or their addresses');
  for (const entry of value.split(',').map((e) => e.trim())) {
    if (!PROXY_NAMES.has(entry) && !isAddressOrSubnet(entry)) {
      throw new Error(`TRUST_PROXY must be a number of hops or a comma-separated list of addresses, subnets, loopback, linklocal or uniquelocal; "${entry}" is none of them`);
    }
  }
  return value;
}

/** Express's names for address ranges (proxy-addr). */
const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrSubnet(entry: string): boolean {
  if (ipaddr.isValid(entry)) return true;
  try {
    ipaddr.parseCIDR(entry);
    return true;
  } catch {
    return false;
  }
}

/** PORT: unset or empty for 3000; 0 asks the system for a free port (tests). */
function portNumber(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 3000;
  const port = /^\d{1,5}$/.test(raw) ? Number(raw) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new Error(`PORT must be a port number (0 to 65535), got "${raw}"`);
  return port;
}

/** An http(s) address given in a setting, as a URL (a mistyped one would fail later inside a library, unnamed). */
function webAddress(env: NodeJS.ProcessEnv, name: string): string {
  const raw = env[name]!.trim();
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    // named below
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) {
    throw new Error(`${name} must be an http:// or https:// address like https://joy.example.org, got "${raw}"`);
  }
  return raw.replace(/\/$/, '');
}

/**
 * PUBLIC_URL: where people open Joy. Joy serves its pages, /api and /oidc at the root of that address, so a path,
 * a query or a fragment would make every redirect and Origin check wrong.
 */
function publicAddress(raw: string): string {
  const address = webAddress({ PUBLIC_URL: raw }, 'PUBLIC_URL');
  const url = new URL(address);
  if (url.pathname !== '/' || url.search || url.hash) {
    throw new Error(`PUBLIC_URL must be the address of the site itself, without a path, like https://joy.example.org, got "${raw}"`);
  }
  return url.origin;
}

/**
 * The URL of a production server (MONGO_URL, REDIS_URL), or null when unset. Only its scheme is checked here
 * (the drivers parse the rest): a mistyped one is named instead of failing inside the driver with a stack trace.
 * The value itself is never repeated in the message: it may hold a password.
 */
function serverUrl(env: NodeJS.ProcessEnv, name: string, schemes: readonly string[]): string | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw)?.[1].toLowerCase();
  if (!scheme || !schemes.includes(scheme)) throw new Error(`${name} must begin with ${schemes.map((s) => `${s}://`).join(' or ')}`);
  return raw;
}

/** The options @eventstore/db-client knows (it warns of any other by printing the whole URL, password included). */
const EVENTSTORE_OPTIONS = new Set(
  [
    'connectionName', 'defaultDeadline', 'discoveryInterval', 'gossipTimeout', 'keepAliveInterval', 'keepAliveTimeout',
    'maxDiscoverAttempts', 'nodePreference', 'throwOnAppendFailure', 'tls', 'tlsCAFile', 'tlsVerifyCert', 'userCertFile', 'userKeyFile',
  ].map(flatOption),
);

function flatOption(key: string): string {
  return key.trim().toLowerCase().replace(/[_-]/g, '');
}

/** EVENTSTORE_URL: esdb:// or esdb+discover://, with options the client knows (named, never echoed). */
function eventStoreUrl(raw: string): string {
  const url = serverUrl({ EVENTSTORE_URL: raw }, 'EVENTSTORE_URL', ['esdb', 'esdb+discover'])!;
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  for (const key of new URLSearchParams(query).keys()) {
    if (!EVENTSTORE_OPTIONS.has(flatOption(key))) {
      throw new Error(`EVENTSTORE_URL has an option EventStoreDB's client does not know: "${key}"`);
    }
  }
  return url;
}

/** OPS_TOKEN set by hand: as long as the one Joy generates, since it opens the ops view. */
function givenOpsToken(token: string): string {
  if (token.length < MIN_SECRET_LENGTH || !/^[\x21-\x7e]+$/.test(token)) {
    throw new Error(`OPS_TOKEN must be at least ${MIN_SECRET_LENGTH} visible ASCII characters (openssl rand -hex 32), or unset to use the token generated in DATA_DIR/ops-token`);
  }
  return token;
}

/** Secrets that ship in examples and tutorials (compose files, docs): as good as none, whatever their length. */
const PLACEHOLDER_SECRETS = /^(change[-_ ]?(me|this|it)|replace[-_ ]?(me|this)|your[-_ ]|example|placeholder|insert[-_ ]|secret|session[-_ ]?secret|keyboard[-_ ]cat|test|dev|default|password|joy[-_ ])/i;
export const MIN_SECRET_LENGTH = 32;

/**
 * SESSION_SECRET when set, else the install's own (generated once into DATA_DIR). A set value that is short or a
 * well-known placeholder would let anyone forge sessions: a production start refuses it, naming the variable.
 */
function sessionSecret(env: NodeJS.ProcessEnv, dataDir: string, production: boolean): string {
  const value = env.SESSION_SECRET;
  if (!value) return persistedSecret(dataDir, 'session-secret');
  // A placeholder, or a value of very few distinct characters (one repeated) is no secret either.
  const placeholder = PLACEHOLDER_SECRETS.test(value.trim()) || new Set(value).size < 8;
  const weak = value.length < MIN_SECRET_LENGTH ? `shorter than ${MIN_SECRET_LENGTH} characters` : placeholder ? 'a well-known placeholder' : null;
  if (weak && production) {
    throw new Error(
      `SESSION_SECRET is ${weak}: anyone could forge a session with it. Set a long random value (openssl rand -hex 32), ` +
        `or unset SESSION_SECRET to use the secret generated for this install in ${join(dataDir, 'session-secret')}.`,
    );
  }
  return value;
}

function redisPrefix(env: NodeJS.ProcessEnv): string {
  const prefix = env.REDIS_PREFIX || 'joy';
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(prefix)) throw new Error(`REDIS_PREFIX must be 1 to 64 letters, digits, '_', '.' or '-', got ${prefix}`);
  return prefix;
}

function loadShedding(env: NodeJS.ProcessEnv): LoadShedding | null {
  const raw = env.SHED_EVENT_LOOP_DELAY_MS;
  if (raw === undefined || raw === '') return DEFAULT_LOAD_SHEDDING;
  const maxDelayMs = Number(raw);
  if (!Number.isInteger(maxDelayMs) || maxDelayMs < 0) throw new Error(`SHED_EVENT_LOOP_DELAY_MS must be a whole number of milliseconds (0 = off), got ${raw}`);
  return maxDelayMs === 0 ? null : { ...DEFAULT_LOAD_SHEDDING, maxDelayMs };
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number of at least 1, got ${raw}`);
  return value;
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} must be set when OIDC_ISSUER is set`);
  return value;
}

/**
 * A secret generated once and kept next to the data (so sessions survive a restart, and the ops CLIs find the token).
 * One that is blank or short (a file truncated by a full disk, or edited) is refused by name: with an empty session
 * secret every request would fail, and a short one could be guessed. So is one holding anything but visible ASCII
 * (a file overwritten with other bytes): Joy wrote hex digits, and the ops token travels in an HTTP header.
 */
export function persistedSecret(dataDir: string, name: 'session-secret' | 'ops-token'): string {
  const file = join(dataDir, name);
  let secret: string;
  try {
    if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600 });
    secret = readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw cannotUse(file, err) ?? err;
  }
  const after = name === 'session-secret' ? 'everyone signs in again' : 'the ops commands read the new token from the same file';
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new Error(
      `${file} is damaged: it holds ${secret.length} characters, where Joy wrote 64. Delete it and start again: ` +
        `Joy writes a new one (${after}).`,
    );
  }
  if (!/^[\x21-\x7e]+$/.test(secret)) {
    throw new Error(`${file} is damaged: it holds bytes other than the hex digits Joy wrote. Delete it and start again: Joy writes a new one (${after}).`);
  }
  return secret;
}

/**
 * DATA_DIR holds personal data, the per-person keys and the install's secrets: only the account running Joy may
 * read them. A DATA_DIR Joy creates is 0700, and what Joy (and SQLite) write anywhere is 0600. An existing folder
 * is never changed (it may be /tmp or a home folder); when others can read it, a warning names it.
 */
function keepPrivate(dataDir: string): void {
  process.umask(0o077);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if ((statSync(dataDir).mode & 0o077) !== 0) {
    new Logger('Joy').warn(`DATA_DIR ${dataDir} can be read by other users of this machine: run "chmod 700 ${dataDir}" (the files Joy writes in it are 0600)`);
  }
}
