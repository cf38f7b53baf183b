import type { RequestHandler } from 'express';
import session from 'express-session';
import type { AppConfig } from '../config';

export const SESSION_COOKIE = 'joy.sid';
/** A session ends after a week without use, and a month after sign-in whatever happens. */
export const IDLE_TIMEOUT_MS = 7 * 24 * 3600 * 1000;
export const ABSOLUTE_TIMEOUT_MS = 30 * 24 * 3600 * 1000;

declare module 'express-session' {
  interface SessionData {
    signedInAt?: number;
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
    proxy: true,
    cookie: {
      httpOnly: true,
      sameSite: 'lax',
      secure: config.publicUrl.startsWith('https://'),
      maxAge: IDLE_TIMEOUT_MS,
      path: '/',
    },
  });
}

/** Ends a session that outlived the absolute timeout, whatever its activity. */
export const absoluteTimeout: RequestHandler = (req, _res, next) => {
  const signedInAt = req.session?.signedInAt;
  if (signedInAt && Date.now() - signedInAt > ABSOLUTE_TIMEOUT_MS) {
    req.session.regenerate(next);
    return;
  }
  next();
};
