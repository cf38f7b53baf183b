import express, { ErrorRequestHandler, RequestHandler } from 'express';
import { apiError, codeOfStatus, sendApiError } from './api-exception.filter';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Cross-site request forgery defence for the cookie session: a state-changing API request must carry JSON
 * (which a cross-site form cannot send without a CORS preflight that this app never allows) and, when the
 * browser names an Origin, it must be this app's own.
 */
export function sameOriginJsonOnly(publicUrl: string, exempt: readonly string[] = []): RequestHandler {
  const allowed = new URL(publicUrl).origin;
  return (req, res, next) => {
    if (!STATE_CHANGING.has(req.method) || exempt.some((p) => req.originalUrl.startsWith(p))) return next();
    const origin = req.headers.origin;
    if (origin && origin !== allowed) {
      sendApiError(res, 'request.cross_origin', 'Cross-origin requests are not allowed');
      return;
    }
    const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (hasBody && !req.is('application/json')) {
      sendApiError(res, 'request.not_json', 'Content-Type must be application/json');
      return;
    }
    // JSON is UTF-8 (RFC 8259): a body said to be in another charset would be decoded into nonsense.
    if (hasBody && !/^utf-8$/i.test(charsetOf(req.headers['content-type']) ?? 'utf-8')) {
      sendApiError(res, 'request.not_json', NOT_UTF8);
      return;
    }
    next();
  };
}

/**
 * A query parameter is `name=value`. With the plain query parser, `from[]=2026-11-01` is a parameter named "from[]",
 * which no route reads: silently left out, it gave all-time figures for a range asked for. Refused, naming it.
 */
export const plainQueryOnly: RequestHandler = (req, res, next) => {
  const bracketed = Object.keys(req.query).find((name) => /[[\]]/.test(name));
  if (bracketed === undefined) return next();
  const field = bracketed.slice(0, 40); // never a long input echoed back
  const message = `The query parameter "${field}" is not taken: write ${field.replace(/\[.*$/, '') || 'name'}=value, once`;
  sendApiError(res, 'request.invalid', message, [{ field, message }]);
};

const NOT_UTF8 = 'Request body must be UTF-8 JSON';
const NOT_AN_OBJECT = 'Request body must be a JSON object';

/** The charset parameter of a Content-Type header, unquoted; undefined when it has none. */
function charsetOf(contentType: string | undefined): string | undefined {
  return /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '')?.[1];
}

const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** JSON deeper than this is refused before it is parsed: no endpoint takes more than a few levels. */
export const MAX_JSON_DEPTH = 32;
export const JSON_LIMIT = '100kb';
/** Stripe's events are a few KB; 1 MB leaves room and bounds the signature check's work. */
export const WEBHOOK_LIMIT = '1mb';
/**
 * POST /api/account/import takes a whole export (GET /api/account/export?format=json): about 150 bytes per
 * rating, so a year of several ratings a day is a few hundred KB; 5 MB leaves room for years and for the care
 * actions and groups the file also holds. Read only for a signed-in session (see `largeJsonBody`).
 */
export const ACCOUNT_IMPORT_PATH = '/api/account/import';
/** GET: the person's data as a file (limited with the import: http/rate-limits.ts). */
export const ACCOUNT_EXPORT_PATH = '/api/account/export';
/** POST: join a group by its invite code (wrong codes limited per address: http/rate-limits.ts). */
export const JOIN_GROUP_PATH = '/api/groups/join';
export const IMPORT_LIMIT = '5mb';
/** The routes whose JSON body may be larger than JSON_LIMIT: the general parser leaves them to `largeJsonBody`. */
export const LARGE_BODY_PATHS: readonly string[] = [ACCOUNT_IMPORT_PATH];

const pathOf = (req: { originalUrl: string }) => req.originalUrl.split('?')[0];

function prototypeKey(value: unknown, depth = 0): string | null {
  if (value === null || typeof value !== 'object' || depth > 32) return null;
  for (const key of Object.keys(value)) {
    if (PROTOTYPE_KEYS.has(key)) return key;
    const nested = prototypeKey((value as Record<string, unknown>)[key], depth + 1);
    if (nested) return nested;
  }
  return null;
}

/** Every route of the app takes an object: an array would reach the validation as fields named 0, 1, … */
const refuseArrays: RequestHandler = (req, res, next) => {
  if (!Array.isArray(req.body)) return next();
  sendApiError(res, 'request.invalid', NOT_AN_OBJECT, [{ field: 'body', message: NOT_AN_OBJECT }]);
};

/**
 * Keys that name an object's prototype are refused outright: no endpoint accepts them, and refusing them
 * at the edge keeps prototype pollution out of every library downstream.
 */
const refusePrototypeKeys: RequestHandler = (req, res, next) => {
  // Only parsed JSON: a raw body (the webhook's Buffer) holds bytes, not keys, and scanning it costs a lot.
  if (Buffer.isBuffer(req.body)) return next();
  const key = prototypeKey(req.body);
  if (key) {
    sendApiError(res, 'request.invalid', `${key} is not an accepted field`, [{ field: key, message: `${key} is not an accepted field` }]);
    return;
  }
  next();
};

/**
 * The deepest nesting of arrays and objects in JSON text, stopping as soon as it passes `max` (strings are
 * skipped, escapes included). One pass over the bytes, no recursion: cheap next to parsing.
 */
export function jsonDepthExceeds(bytes: Buffer, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

class TooDeepError extends Error {
  readonly status = 400;
  readonly type = 'entity.too.deep';
  constructor() {
    super(`Request body is nested too deeply (${MAX_JSON_DEPTH} levels at most)`);
  }
}

/**
 * JSON bodies up to 100 KB and 32 levels deep: a larger body is answered 413 before it is read (from its
 * Content-Length, or as soon as the stream passes the limit), a deeper one 400 before it is parsed, invalid JSON 400.
 */
export function jsonBody(limit: string = JSON_LIMIT, skip: readonly string[] = [], arrays: 'refuse' | 'to the route' = 'refuse'): RequestHandler[] {
  const parse = express.json({
    limit,
    strict: true,
    type: 'application/json',
    verify: (_req, _res, buf) => {
      if (jsonDepthExceeds(buf, MAX_JSON_DEPTH)) throw new TooDeepError();
      try {
        strictUtf8.decode(buf);
      } catch {
        throw new NotUtf8Error();
      }
    },
  }) as RequestHandler;
  const parsing: RequestHandler = skip.length === 0 ? parse : (req, res, next) => (skip.includes(pathOf(req)) ? next() : parse(req, res, next));
  return [parsing, refusePrototypeKeys, ...(arrays === 'refuse' ? [refuseArrays] : [])];
}

/** Bytes that are not UTF-8 (a Latin-1 "é", a cut sequence): decoded leniently they were stored as "�" for good. */
class NotUtf8Error extends Error {
  readonly status = 400;
  readonly type = 'entity.not.utf8';
  constructor() {
    super('Request body is not valid UTF-8: send the JSON encoded as UTF-8');
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The body of a LARGE_BODY_PATHS route, up to `limit`, read only once the session is known to be signed in (mounted
 * after the session and the write limit): nobody signed out makes the server read megabytes. 401 otherwise, as the
 * route itself would answer.
 */
export function largeJsonBody(limit: string): RequestHandler[] {
  const signedInFirst: RequestHandler = (req, res, next) => {
    if (!req.user && STATE_CHANGING.has(req.method)) {
      sendApiError(res, 'auth.unauthorized', 'Unauthorized');
      return;
    }
    next();
  };
  // The import says itself what is wrong with a file that is a list, in the words of its other refusals.
  return [signedInFirst, ...jsonBody(limit, [], 'to the route')];
}

/** A raw body (the signed webhook) up to 1 MB, kept as bytes for the signature check: never scanned, never parsed here. */
export function rawBody(): RequestHandler {
  return express.raw({ type: 'application/json', limit: WEBHOOK_LIMIT }) as RequestHandler;
}

/** Whether a body `strict` parsing refused is valid JSON all the same: null, a number, a string, a boolean. */
function isJsonScalar(body: unknown): boolean {
  if (typeof body !== 'string') return false;
  try {
    const value: unknown = JSON.parse(body);
    return value === null || typeof value !== 'object';
  } catch {
    return false;
  }
}

/** Body errors as short JSON answers: they never quote the body (nor anything else from the request). */
export const bodyErrors: ErrorRequestHandler = (err, req, res, next) => {
  const status = (err as { status?: number; type?: string }).status;
  const type = (err as { type?: string }).type;
  if (type === 'entity.parse.failed' && isJsonScalar((err as { body?: unknown }).body)) {
    // `strict` parsing refuses valid JSON that is not an object or an array (null, 42, "text"): say so.
    sendApiError(res, 'request.invalid', NOT_AN_OBJECT, [{ field: 'body', message: NOT_AN_OBJECT }]);
  } else if (type === 'entity.parse.failed') {
    sendApiError(res, 'request.malformed_json', 'Request body is not valid JSON');
  } else if (type === 'entity.not.utf8') {
    sendApiError(res, 'request.malformed_json', (err as Error).message);
  } else if (type === 'entity.too.deep') {
    sendApiError(res, 'request.invalid', (err as Error).message);
  } else if (type === 'entity.too.large') {
    const limit = Buffer.isBuffer(req.body) || req.originalUrl.startsWith('/api/billing/webhook') ? '1 MB' : LARGE_BODY_PATHS.includes(pathOf(req)) ? '5 MB' : '100 KB';
    sendApiError(res, 'request.too_large', `Request body is too large (${limit} at most)`);
  } else if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    sendApiError(res, 'request.not_json', NOT_UTF8);
  } else if (status && status >= 400 && status < 500) {
    res.status(status).json({ ...apiError(codeOfStatus(status), 'Request body could not be read'), statusCode: status });
  } else {
    next(err);
  }
};
