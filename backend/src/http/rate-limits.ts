import type { Request, RequestHandler } from 'express';
import rateLimit, { ipKeyGenerator, Options } from 'express-rate-limit';
import type Redis from 'ioredis';
import { RedisStore } from 'rate-limit-redis';
import { sendApiError } from './api-exception.filter';

export interface RateLimitSettings {
  /** Sign-in attempts per IP address per 15 minutes. */
  signInPer15Minutes: number;
  /** State-changing API requests per signed-in user (or IP address) per minute. */
  writesPerMinute: number;
  /** Exports and imports of a person's data (GET /api/account/export, POST /api/account/import) per hour. */
  accountFilesPerHour: number;
  /** Invite codes that match no group (POST /api/groups/join answered 404) per IP address per 15 minutes. */
  inviteMissesPer15Minutes: number;
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Where the counts live: Redis (under the install's REDIS_PREFIX), shared by api replicas; null: this process. */
export type LimitCounts = { redis: Redis; prefix: string } | null;

/** The page a browser navigation gets instead of JSON when it is limited (the sign-in steps are full pages). */
export type LimitedPage = (message: string) => string;

function limiter(name: string, counts: LimitCounts, options: Partial<Options>, page?: LimitedPage): RequestHandler {
  return rateLimit({
    // draft-7: the same information as draft-8 without a hash of the key on every request.
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    // With several api replicas the counts must be shared: Redis when configured, memory otherwise. While Redis is
    // away the limit lets requests through (passOnStoreError): sessions live there too, so little gets through.
    ...(counts
      ? {
          store: new RedisStore({ prefix: `${counts.prefix}:rl:${name}:`, sendCommand: (command: string, ...args: string[]) => counts.redis.call(command, ...args) as never }),
          passOnStoreError: true,
        }
      : {}),
    handler: (req, res, _next, opts) => {
      // A page opened or a form sent by the browser (Accept: text/html first): JSON there is a page of raw text.
      if (page && req.accepts(['json', 'html']) === 'html') {
        res.status(429).type('html').send(page(String(opts.message)));
        return;
      }
      sendApiError(res, 'request.rate_limited', String(opts.message));
    },
    ...options,
  });
}

/** The sign-in steps' window: so many attempts per 15 minutes. */
const signInWindow = (settings: RateLimitSettings): Partial<Options> => ({
  windowMs: 15 * 60 * 1000,
  limit: settings.signInPer15Minutes,
  message: 'Too many sign-in attempts. Please wait a few minutes and try again.',
});

/** Slows down password-less guessing and sign-in floods: per IP, on every step of the sign-in flow. */
export function signInLimiter(settings: RateLimitSettings, counts: LimitCounts, page?: LimitedPage): RequestHandler {
  return limiter('signin', counts, signInWindow(settings), page);
}

/**
 * Sign-in forms opened at the built-in provider (GET /oidc/auth) per network (an IPv4 address, an IPv6 /56): each
 * is kept until it expires, so a flood of them from one network would fill the provider's store. A person opens one
 * per sign-in; counted apart from signInLimiter (which /api/login, the step before, counts).
 */
export function signInPagesLimiter(settings: RateLimitSettings, counts: LimitCounts, page?: LimitedPage): RequestHandler {
  return limiter('signin-pages', counts, { ...signInWindow(settings), keyGenerator: (req) => ipKeyGenerator(req.ip ?? '') }, page);
}

/** Per signed-in user, per IP address when signed out (the guard then answers 401). */
const userOrAddress = (req: Request) => {
  const user = (req.user as { id?: string } | undefined)?.id;
  return user ? `user:${user}` : `ip:${ipKeyGenerator(req.ip ?? '')}`;
};

/**
 * Caps a person's exports and imports: each reads or writes their whole history (seconds of work on a long one,
 * shared with everyone else's requests), so a loop of them would slow the server for all. Counted before the
 * body is read. A person needs a few an hour.
 */
export function accountFilesLimiter(settings: RateLimitSettings, counts: LimitCounts): RequestHandler {
  return limiter('account-files', counts, {
    windowMs: 60 * 60 * 1000,
    limit: settings.accountFilesPerHour,
    keyGenerator: userOrAddress,
    // A refused export (a format it does not know, the limit itself) costs nothing and is not counted; an import is,
    // refused or not: checking a file of 20,000 ratings is work.
    skipFailedRequests: true,
    // HEAD is routed to the export's GET by Express: counted as one when it runs it, never when refused.
    requestWasSuccessful: (req, res) => (req.method !== 'GET' && req.method !== 'HEAD') || res.statusCode < 400,
    message: 'You have downloaded or imported your data many times in the last hour. Please try again later.',
  });
}

/** Caps writes per signed-in user (per IP address when signed out); reads are not limited. */
export function writeLimiter(settings: RateLimitSettings, counts: LimitCounts): RequestHandler {
  const limit = limiter('writes', counts, {
    windowMs: 60 * 1000,
    limit: settings.writesPerMinute,
    keyGenerator: userOrAddress,
    message: 'Too many requests. Please slow down and try again in a minute.',
  });
  // Decided before entering the limiter: it is asynchronous even when it would skip.
  return (req, res, next) => (STATE_CHANGING.has(req.method) ? limit(req, res, next) : next());
}

/**
 * Slows down guessing invite codes: a code that matches no group (404) is counted per address, so that many
 * accounts of one guesser share one count (the write limit counts per person). Codes that work are not counted.
 */
export function inviteMissLimiter(settings: RateLimitSettings, counts: LimitCounts): RequestHandler {
  const limit = limiter('invite-misses', counts, {
    windowMs: 15 * 60 * 1000,
    limit: settings.inviteMissesPer15Minutes,
    keyGenerator: (req) => ipKeyGenerator(req.ip ?? ''),
    skipSuccessfulRequests: true,
    requestWasSuccessful: (_req, res) => res.statusCode !== 404,
    message: 'Joining by invite code is paused for 15 minutes: too many codes sent from your network matched no group.',
  });
  return (req, res, next) => (req.method === 'POST' ? limit(req, res, next) : next());
}
