import compression from 'compression';
import type { Express, Request, Response } from 'express';
import expressStaticGzip from 'express-static-gzip';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';

/** JSON answers at least this long are compressed; shorter ones cost more to compress than they save. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/**
 * Compresses API answers over the threshold (gzip, or brotli when preferred), never an event stream: a
 * compressor buffers, which would hold events back.
 */
export function compressAnswers() {
  return compression({
    threshold: COMPRESSION_THRESHOLD_BYTES,
    filter(req: Request, res: Response) {
      const type = String(res.getHeader('Content-Type') ?? '');
      if (type.startsWith('text/event-stream')) return false;
      return compression.filter(req, res);
    },
  });
}

/** The landing page prerendered at build time (frontend/scripts/prerender-landing.ts). */
export const LANDING_FILE = 'landing.html';

/** Every page prerendered at build time, by path: the landing page and the pages open to everyone. */
export const PRERENDERED_FILES: Readonly<Record<string, string>> = {
  '/': LANDING_FILE,
  '/help': 'help.html',
  '/privacy': 'privacy.html',
  '/terms': 'terms.html',
};

export interface LandingOptions {
  /**
   * Whether the request comes from someone signed in (who gets the app: Home at `/`, the page in the app's frame
   * elsewhere). Rejects when it cannot tell: then the app is sent, which finds out for itself.
   */
  signedIn(req: Request, res: Response): Promise<boolean>;
}

/**
 * Serves the built frontend on the API's port: the build's precompressed .br/.gz twins when the client accepts
 * them (Content-Encoding, Vary: Accept-Encoding), hashed assets cached for a year, index.html and sw.js never
 * cached, and index.html for every other path so the client router decides (it shows the 404 page).
 *
 * With `landing`, `/`, `/help`, `/privacy` and `/terms` are the prerendered pages (HTML and CSS, no script) for a
 * visitor who is not signed in, and the app for one who is (`Vary: Cookie`). A page whose file is missing from the
 * build is the app's, as before it was prerendered.
 */
export function serveFrontend(server: Express, dist: string, landing?: LandingOptions): void {
  const index = join(dist, 'index.html');
  if (!existsSync(index)) {
    new Logger('Frontend').warn(`No frontend build at ${dist}: run "npm run build" first`);
  }
  // Path (without a trailing slash or query) → prerendered file, for the files the build has.
  const prerendered = new Map(landing ? Object.entries(PRERENDERED_FILES).filter(([, file]) => existsSync(join(dist, file))) : []);
  const assetsDir = join(dist, 'assets');
  const byCookie = new WeakSet<object>();
  const assets = expressStaticGzip(dist, {
    enableBrotli: true,
    orderPreference: ['br', 'gzip'],
    index: false,
    serveStatic: {
      index: false,
      setHeaders(res, path) {
        const immutable = path.startsWith(assetsDir);
        res.setHeader('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
        // A prerendered page's path, which is the page or the app depending on the session (after express-static-gzip's Vary).
        if (byCookie.has(res)) res.setHeader('Vary', [res.getHeader('Vary'), 'Cookie'].filter(Boolean).join(', '));
      },
    },
  });
  // Tested on the raw URL (path and query): parsing it for req.path costs more than the test.
  const apiOrSignIn = /^\/(api|oidc)(\/|\?|$)/;
  const publicPage = /^(\/[a-z]*?)\/?(?:\?|$)/;
  // A path of a prerendered page (lower case, with or without a trailing slash and a query).
  // One middleware (one router layer): API and sign-in requests never touch the file system; `/`, `/help`,
  // `/privacy` and `/terms` are prerendered pages or the app; a GET that is no file gets index.html (compressed like any file) when it accepts HTML.
  server.use((req, res, next) => {
    if (apiOrSignIn.test(req.url)) return next();
    const file = prerendered.size > 0 ? prerendered.get(publicPage.exec(req.url)?.[1] ?? '') : undefined;
    if (file && landing && (req.method === 'GET' || req.method === 'HEAD') && req.accepts('html')) {
      byCookie.add(res);
      const send = (signedIn: boolean) => {
        req.url = signedIn ? '/index.html' : `/${file}`;
        assets(req, res, (err?: unknown) => next(err));
      };
      landing.signedIn(req, res).then(send, () => send(true));
      return;
    }
    assets(req, res, (err?: unknown) => {
      if (err) return next(err);
      if ((req.method !== 'GET' && req.method !== 'HEAD') || !req.accepts('html')) return next();
      req.url = '/index.html';
      assets(req, res, (err?: unknown) => next(err));
    });
  });
}
