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
    next();
  };
}

const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function prototypeKey(value: unknown, depth = 0): string | null {
  if (value === null || typeof value !== 'object' || depth > 32) return null;
  for (const key of Object.keys(value)) {
    if (PROTOTYPE_KEYS.has(key)) return key;
    const nested = prototypeKey((value as Record<string, unknown>)[key], depth + 1);
    if (nested) return nested;
  }
  return null;
}

/**
 * Keys that name an object's prototype are refused outright: no endpoint accepts them, and refusing them
 * at the edge keeps prototype pollution out of every library downstream.
 */
const refusePrototypeKeys: RequestHandler = (req, res, next) => {
  const key = prototypeKey(req.body);
  if (key) {
    sendApiError(res, 'request.invalid', `${key} is not an accepted field`, [{ field: key, message: `${key} is not an accepted field` }]);
    return;
  }
  next();
};

/** JSON bodies up to 100 KB; a body that is not valid JSON gets a clear 400. */
export function jsonBody(): RequestHandler[] {
  return [express.json({ limit: '100kb', strict: true, type: 'application/json' }) as RequestHandler, refusePrototypeKeys];
}

export const bodyErrors: ErrorRequestHandler = (err, _req, res, next) => {
  const status = (err as { status?: number; type?: string }).status;
  const type = (err as { type?: string }).type;
  if (type === 'entity.parse.failed') {
    sendApiError(res, 'request.malformed_json', 'Request body is not valid JSON');
  } else if (type === 'entity.too.large') {
    sendApiError(res, 'request.too_large', 'Request body is too large (100 KB at most)');
  } else if (status && status >= 400 && status < 500) {
    res.status(status).json({ ...apiError(codeOfStatus(status), (err as Error).message), statusCode: status });
  } else {
    next(err);
  }
};
