import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import session from 'express-session';
import passport from 'passport';
import type { AppConfig } from '../config';
import { chain } from '../http/chain';
import type { SessionUser } from './signed-in.guard';
import type { SignedInLookup, SignedInSession } from './session-store.port';

export const SESSION_COOKIE = 'joy.sid';
/** A session ends after a week without use, and a month after sign-in whatever happens. */
export const IDLE_TIMEOUT_MS = 7 * 24 * 3600 * 1000;
export const ABSOLUTE_TIMEOUT_MS = 30 * 24 * 3600 * 1000;
/** How long a session checked by express-session may be served by the short path (see `apiSession`). */
export const SHORT_PATH_FOR_MS = 60 * 1000;
/** Signed session cookies remembered by the short path. */
const SHORT_PATH_CACHE_SIZE = 20_000;
/** Longer Cookie headers always take the full path: they would let one person fill the cache's memory. */
const SHORT_PATH_MAX_HEADER = 1024;

declare module 'express-session' {
  interface SessionData {
    signedInAt?: number;
    passport?: { user?: string };
  }
}

export function sessionMiddleware(config: AppConfig, store: session.Store): RequestHandler {
  return session({
    name: SESSION_COOKIE,
    secret: config.sessionSecret,
    store,
    resave: false,
    saveUninitialized: false,
    rolling: true,
    // Unset: express-session follows the app's `trust proxy` (TRUST_PROXY) to tell an https request.
    cookie: cookieOptions(config),
  });
}

function cookieOptions(config: AppConfig) {
  return {
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: config.publicUrl.startsWith('https://'),
    maxAge: IDLE_TIMEOUT_MS,
    path: '/',
  };
}

/** Ends a session that outlived the absolute timeout, whatever its activity. */
export const absoluteTimeout: RequestHandler = (req, _res, next) => {
  const signedInAt = req.session?.signedInAt;
  if (signedInAt && outlived(signedInAt)) {
    req.session.regenerate(next);
    return;
  }
  next();
};

function outlived(signedInAt: number): boolean {
  return Date.now() - signedInAt > ABSOLUTE_TIMEOUT_MS;
}

/** Requests that start, end or change their session; they always take express-session's full path. */
const SESSION_CHANGING = /^\/api\/(login|callback|logout)(\/|\?|$)/i; // case-insensitive, as routing is
const ACCOUNT = /^\/api\/account\/?(\?|$)/i;
function changesSession(req: Request): boolean {
  const url = req.originalUrl;
  return SESSION_CHANGING.test(url) || (req.method === 'DELETE' && ACCOUNT.test(url));
}

function hasSignedInLookup(store: session.Store): store is session.Store & SignedInLookup {
  return typeof (store as Partial<SignedInLookup>).signedIn === 'function';
}

/** Keyed by the request's whole Cookie header (as sent, so a hit needs no parsing). */
interface Checked {
  sid: string;
  /** The signed session cookie in that header. */
  signedCookie: string;
  /** When express-session last served this cookie (and so re-signed it and touched the store). */
  at: number;
  /** The renewed cookie as last sent, and the second it was made in (an HTTP date counts whole seconds). */
  renewed?: { second: number; header: string };
}

/**
 * The API's session layer: express-session, the absolute timeout and passport's signed-in user (req.user).
 *
 * express-session does a lot on every request: it verifies the cookie's signature, hashes the session before and
 * after the handler, signs a renewed cookie and wraps the response. Most API requests only need to know who is
 * signed in, so a cookie that express-session accepted less than a minute ago takes a short path: its session is
 * read from the store (a session ended by sign-out, deletion or another replica is gone there at once), the
 * absolute timeout is checked, req.user is set, and the same signed cookie is sent back with a renewed expiry.
 * At least once a minute per session the full path runs again, which also renews the session in the store, so
 * the idle timeout stays exact to the minute. Routes that change the session always take the full path.
 */
export function apiSession(config: AppConfig, store: session.Store): RequestHandler {
  const full = chain([sessionMiddleware(config, store), absoluteTimeout, passport.initialize(), passport.session()]);
  const options = cookieOptions(config);
  const checked = new Map<string, Checked>();

  const runFull = (req: Request, res: Response, next: NextFunction, header: string | undefined) => {
    full(req, res, (err?: unknown) => {
      // A signed-in user means express-session accepted this header's session cookie (and found req.sessionID by it).
      const signedCookie = !err && header && req.user && req.sessionID ? parseCookies(header)[SESSION_COOKIE] : undefined;
      if (signedCookie && header!.length <= SHORT_PATH_MAX_HEADER) remember(header!, { sid: req.sessionID, signedCookie, at: Date.now() });
      next(err);
    });
  };
  const remember = (header: string, entry: Checked) => {
    checked.delete(header);
    checked.set(header, entry);
    if (checked.size > SHORT_PATH_CACHE_SIZE) checked.delete(checked.keys().next().value!);
  };

  const renewedCookie = (entry: Checked): string => {
    const second = Math.floor(Date.now() / 1000);
    if (entry.renewed?.second !== second) {
      const expires = new Date((second + 1) * 1000 + IDLE_TIMEOUT_MS);
      entry.renewed = { second, header: serializeCookie(SESSION_COOKIE, entry.signedCookie, { ...options, maxAge: undefined, expires }) };
    }
    return entry.renewed.header;
  };

  return (req, res, next) => {
    const header = req.headers.cookie;
    const entry = header ? checked.get(header) : undefined;
    if (!entry || Date.now() - entry.at >= SHORT_PATH_FOR_MS || changesSession(req)) {
      return runFull(req, res, next, header);
    }
    const proceed = (err: unknown, signedIn: SignedInSession | null | undefined) => {
      const user = signedIn?.user;
      if (err || typeof user !== 'string' || (signedIn!.signedInAt && outlived(signedIn!.signedInAt))) {
        checked.delete(header!);
        return runFull(req, res, next, header);
      }
      req.user = { id: user } satisfies SessionUser;
      if (!options.secure || req.secure) res.append('Set-Cookie', renewedCookie(entry));
      next();
    };
    if (hasSignedInLookup(store)) {
      let signedIn: SignedInSession | null;
      try {
        signedIn = store.signedIn(entry.sid);
      } catch (err) {
        return proceed(err, null);
      }
      return proceed(null, signedIn);
    }
    store.get(entry.sid, (err, sess) => proceed(err, sess && { user: sess.passport?.user, signedInAt: sess.signedInAt }));
  };
}
