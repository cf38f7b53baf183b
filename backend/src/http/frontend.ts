import express, { Express } from 'express';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';

/**
 * Serves the built frontend on the API's port: hashed assets cached for a year, index.html and sw.js never
 * cached, and index.html for every other path so the client router decides (it shows the 404 page).
 */
export function serveFrontend(server: Express, dist: string): void {
  const index = join(dist, 'index.html');
  if (!existsSync(index)) {
    new Logger('Frontend').warn(`No frontend build at ${dist}: run "npm run build" first`);
  }
  const assets = express.static(dist, {
    index: false,
    setHeaders(res, path) {
      const immutable = path.includes(`${join(dist, 'assets')}`);
      res.setHeader('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  // Tested on the raw URL (path and query): parsing it for req.path costs more than the test.
  const apiOrSignIn = /^\/(api|oidc)(\/|\?|$)/;
  // One middleware (one router layer): API and sign-in requests never touch the file system; a GET that is no
  // file gets index.html when it accepts HTML.
  server.use((req, res, next) => {
    if (apiOrSignIn.test(req.url)) return next();
    assets(req, res, (err?: unknown) => {
      if (err) return next(err);
      if ((req.method !== 'GET' && req.method !== 'HEAD') || !req.accepts('html')) return next();
      res.setHeader('Cache-Control', 'no-cache');
      res.sendFile(index, (err) => err && next());
    });
  });
}
