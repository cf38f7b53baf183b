/*
 * Starting an EventStoreDB scavenge after the personal-data migration (docs/decisions.md).
 *
 * The migration truncates streams (`$tb`): their old events leave stream reads at once, but stay in `$all` and in the
 * server's files until a SCAVENGE rewrites the chunks without them. `@eventstore/db-client` (6.x) has no call to
 * start one, so it is asked for through the server's HTTP API, `POST /admin/scavenge`, which listens on the same
 * host and port as gRPC (2113 by default; one port since 20.x). The answer comes at once (`{ "scavengeId": … }`):
 * the scavenge itself runs in the background on the server.
 *
 * Where the request goes, derived from the EVENTSTORE_URL connection string:
 * - `esdb://[user:password@]host[:port][,host[:port]…][?key=value&…]`: every host listed. Each node of a cluster
 *   has its own copy of the log and is scavenged on its own (the server's documentation), and the hosts of a
 *   multi-host string are the cluster's nodes (its gossip seeds), so each is asked.
 * - `esdb+discover://…`: the host is a DNS name standing for the cluster; the request reaches whichever node it
 *   resolves to. The others still need a scavenge: `scavengeAfterMigration` says so in the log.
 * - https unless `tls=false`; Basic authentication with the string's user and password (URL-decoded, as the
 *   client does). Starting a scavenge needs a member of `$admins` or `$ops`: anyone else gets a 401.
 * - TLS with a private CA: the gRPC client trusts the string's `tlsCAFile`, but `fetch` does not read it. Start the
 *   process with NODE_EXTRA_CA_CERTS=<that file> (Node adds it to the trusted CAs of every TLS connection), or the
 *   request fails certificate verification and the fallback below applies. `tlsVerifyCert=false` is ignored, as
 *   the gRPC client ignores it.
 *
 * Nothing here throws: a failure (refused connection, 401, a scavenge already running, TLS, timeout) falls back to
 * the warning that an operator must start a scavenge, with the reason, and the start-up goes on.
 */

/** The server's default HTTP (and gRPC) port. */
const DEFAULT_PORT = 2113;
/** How long to wait for a node's answer (the scavenge runs in the background: the answer is immediate). */
const DEFAULT_TIMEOUT_MS = 10_000;

/** Where and how to ask for a scavenge, from a connection string. */
export interface ScavengeRequestPlan {
  /** `http(s)://host:port/admin/scavenge`, one per host of the connection string. */
  urls: string[];
  /** `Basic …` from the connection string's credentials; null without credentials. */
  authorization: string | null;
  /** An `esdb+discover://` string: the one host stands for a whole cluster. */
  discover: boolean;
  /** The string's `tlsCAFile`, if any (not used by `fetch`: see NODE_EXTRA_CA_CERTS above). */
  tlsCAFile: string | null;
}

/**
 * Parses an EventStoreDB connection string the way `@eventstore/db-client` does (its parser is not exported):
 * `esdb://` or `esdb+discover://`, optional `user:password@` (URL-encoded), hosts separated by commas with port
 * 2113 by default, then `?key=value&…` with keys compared without case, `-` or `_`. Throws on anything else.
 */
export function scavengeRequestPlan(connectionString: string): ScavengeRequestPlan {
  const text = connectionString.trim().replace(/\/+$/, '');
  const protocol = /^(esdb|esdb\+discover):\/\//.exec(text);
  if (!protocol) throw new Error('not an esdb:// or esdb+discover:// connection string');
  let rest = text.slice(protocol[0].length);

  let authorization: string | null = null;
  const credentials = /^([^:]+):([^@]+)@/.exec(rest); // as the client: no ':' in the user, no '@' in the password
  if (credentials) {
    const user = decodeURIComponent(credentials[1]);
    const password = decodeURIComponent(credentials[2]);
    authorization = `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
    rest = rest.slice(credentials[0].length);
  }

  const queryAt = rest.indexOf('?');
  const hostList = (queryAt >= 0 ? rest.slice(0, queryAt) : rest).replace(/\/+$/, '');
  const params = new Map<string, string>();
  for (const pair of (queryAt >= 0 ? rest.slice(queryAt + 1) : '').split('&')) {
    const eq = pair.indexOf('=');
    if (eq > 0) params.set(pair.slice(0, eq).trim().toLowerCase().replace(/[-_]/g, ''), pair.slice(eq + 1).trim());
  }
  const scheme = params.get('tls') === 'false' ? 'http' : 'https'; // TLS is on unless turned off

  const hosts = hostList.split(',').map((h) => h.trim()).filter(Boolean);
  if (hosts.length === 0) throw new Error('the connection string names no host');
  const urls = hosts.map((host) => {
    const [address, port = String(DEFAULT_PORT), ...extra] = host.split(':');
    if (!address || extra.length > 0 || !/^\d+$/.test(port)) throw new Error(`cannot read the host "${host}"`);
    return `${scheme}://${address}:${Number(port)}/admin/scavenge`;
  });
  const caFile = params.get('tlscafile');
  return { urls, authorization, discover: protocol[1] === 'esdb+discover', tlsCAFile: caFile ? decodeURIComponent(caFile) : null };
}

/** What one node answered. */
export type ScavengeOutcome =
  | { url: string; started: true; scavengeId: string | null }
  | { url: string; started: false; reason: string };

export interface ScavengeOptions {
  /** Defaults to the global `fetch`. */
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/**
 * Asks every node of the plan to start a scavenge (`POST /admin/scavenge`, no body), all at once. Never throws:
 * each node's outcome says whether it started (with its scavenge id) or why not.
 */
export async function requestScavenge(plan: ScavengeRequestPlan, options: ScavengeOptions = {}): Promise<ScavengeOutcome[]> {
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return Promise.all(
    plan.urls.map(async (url): Promise<ScavengeOutcome> => {
      try {
        const response = await doFetch(url, {
          method: 'POST',
          headers: { Accept: 'application/json', ...(plan.authorization ? { Authorization: plan.authorization } : {}) },
          signal: AbortSignal.timeout(timeoutMs),
          redirect: 'error', // a redirect would send the credentials elsewhere
        });
        const body = await response.text().catch(() => '');
        if (response.ok) return { url, started: true, scavengeId: scavengeIdIn(body) };
        return { url, started: false, reason: refusal(response.status, response.statusText, body) };
      } catch (err) {
        return { url, started: false, reason: failure(err, timeoutMs, plan) };
      }
    }),
  );
}

/** The subset of a logger `scavengeAfterMigration` writes to (Nest's Logger fits). */
export interface ScavengeLogger {
  log(message: string): void;
  warn(message: string): void;
}

/** The operator's step when the app could not start a scavenge itself. */
export const SCAVENGE_OPERATOR_STEP =
  'an operator must start one (Admin UI > Scavenge, or POST /admin/scavenge as a member of $admins or $ops; on each node of a cluster), see docs/decisions.md';

/**
 * After a migration run that truncated streams: starts a scavenge on the nodes of the connection string and logs
 * what happened. Falls back, for every node that did not start one, to the warning that an operator must (with the
 * reason). Never throws. Returns the outcomes (for tests).
 */
export async function scavengeAfterMigration(
  connectionString: string,
  logger: ScavengeLogger,
  options: ScavengeOptions = {},
): Promise<ScavengeOutcome[]> {
  const leftInLog = 'EventStoreDB still holds the truncated plaintext events in its log (and $all) until a scavenge deletes them';
  let plan: ScavengeRequestPlan;
  try {
    plan = scavengeRequestPlan(connectionString);
  } catch (err) {
    logger.warn(`${leftInLog}; the app could not start one (${messageOf(err)}): ${SCAVENGE_OPERATOR_STEP}`);
    return [];
  }
  const outcomes = await requestScavenge(plan, options);
  for (const outcome of outcomes) {
    const node = new URL(outcome.url).host;
    if (outcome.started) {
      logger.log(
        `Scavenge ${outcome.scavengeId ?? '(no id)'} started on ${node}: it deletes the truncated events from the completed ` +
          'chunks; what is still in the chunk being written goes at a later scavenge (docs/decisions.md)',
      );
    } else {
      logger.warn(`${leftInLog}; the scavenge could not be started on ${node} (${outcome.reason}): ${SCAVENGE_OPERATOR_STEP}`);
    }
  }
  if (plan.discover && outcomes.some((o) => o.started)) {
    logger.warn(
      'The connection string discovers the cluster through DNS: only the node it resolved to was asked to scavenge; ' +
        `every other node keeps the truncated events until it is scavenged too: ${SCAVENGE_OPERATOR_STEP}`,
    );
  }
  return outcomes;
}

// ---------------------------------------------------------------------------------------------------------

/** `{ "scavengeId": "…" }`, the server's answer (JSON by the Accept header); null when it is not there. */
function scavengeIdIn(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as { scavengeId?: unknown };
    return typeof parsed?.scavengeId === 'string' ? parsed.scavengeId : null;
  } catch {
    return null;
  }
}

/** Why the server refused, by its status (the admin controller's: 401 rights, 400 already running). */
function refusal(status: number, statusText: string, body: string): string {
  const said = `HTTP ${status}${statusText ? ` ${statusText}` : ''}${body.trim() ? `: ${body.trim().slice(0, 200)}` : ''}`;
  if (status === 401 || status === 403) {
    return `${said} — the connection string's user must be a member of $admins or $ops (and be given in the string)`;
  }
  if (status === 400) return `${said} — a scavenge may already be running, started before the truncation; start another once it ends`;
  return said;
}

/** TLS errors that mean "this certificate's issuer is not trusted" (a private CA). */
const UNTRUSTED_CERTIFICATE = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
]);

/**
 * Why the request failed: fetch wraps the network error (ECONNREFUSED, a TLS error...) in `cause`. Errors are
 * read by shape, not `instanceof` (fetch's may come from another realm, e.g. under Jest).
 */
function failure(err: unknown, timeoutMs: number, plan: ScavengeRequestPlan): string {
  const error = asErrorLike(err);
  if (error?.name === 'TimeoutError' || error?.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  const cause = asErrorLike(error?.cause);
  const described = cause ? `${messageOf(err)}: ${messageOf(cause)}` : messageOf(err);
  if (typeof cause?.code === 'string' && UNTRUSTED_CERTIFICATE.has(cause.code)) {
    const ca = plan.tlsCAFile ? ` (${plan.tlsCAFile}, the connection string's tlsCAFile)` : '';
    return `${described} — the server's certificate is not trusted: start the app with NODE_EXTRA_CA_CERTS set to its CA file${ca}`;
  }
  return described;
}

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  cause?: unknown;
}

function asErrorLike(value: unknown): ErrorLike | null {
  return value !== null && typeof value === 'object' ? (value as ErrorLike) : null;
}

function messageOf(err: unknown): string {
  const error = asErrorLike(err);
  if (!error) return String(err);
  const message = typeof error.message === 'string' && error.message ? error.message : typeof error.name === 'string' ? error.name : String(err);
  return typeof error.code === 'string' && !message.includes(error.code) ? `${message} (${error.code})` : message;
}
