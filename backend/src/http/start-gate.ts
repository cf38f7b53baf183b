import { Logger } from '@nestjs/common';
import type { RequestHandler } from 'express';
import { sendApiError } from './api-exception.filter';

/** How long a client is asked to wait before trying again while the app starts (seconds). */
export const STARTING_RETRY_AFTER_SECONDS = 2;

export interface StartingProgress {
  position: number;
  head: number;
}

/**
 * The port listens before the read models are ready (a first start after an upgrade rebuilds them): until
 * `open()`, API and sign-in requests are answered 503 `server.starting` with `Retry-After`, and `/api/health`
 * says `starting` with how far the build is. The frontend's files are served meanwhile.
 */
export class StartGate {
  private opened = false;
  private progress: StartingProgress | null = null;

  readonly handler: RequestHandler = (req, res, next) => {
    if (this.opened) return next();
    res.setHeader('Retry-After', String(STARTING_RETRY_AFTER_SECONDS));
    if (req.originalUrl === '/api/health' || req.originalUrl.startsWith('/api/health?')) {
      res.status(503).json({ status: 'starting', ...(this.progress ? { progress: this.progress } : {}) });
      return;
    }
    sendApiError(res, 'server.starting', 'Joy is starting. Please try again in a moment.');
  };

  isOpen(): boolean {
    return this.opened;
  }

  report(progress: StartingProgress): void {
    this.progress = progress;
  }

  open(): void {
    this.opened = true;
  }
}

/**
 * Logs a catch-up's progress (a bar, events/s, and what is left) at most every `everyMs`, and a last line at the
 * end: only when there is much to do (a restart after a clean stop says nothing).
 */
export function startProgressLog(logger: Logger, options: { everyMs?: number; atLeast?: number } = {}) {
  const everyMs = options.everyMs ?? 2000;
  const atLeast = options.atLeast ?? 10_000;
  const started = Date.now();
  let last = 0;
  let announced = false;
  return (p: { from: number; position: number; head: number; reset: readonly string[] }, done = false) => {
    const total = p.head - p.from;
    if (total < atLeast) return;
    const now = Date.now();
    if (!announced) {
      announced = true;
      const why = p.from === 0 ? 'no read models yet (a first start, or the first since an upgrade)' : p.reset.length ? `new code of ${p.reset.join(', ')}` : `${total.toLocaleString('en')} events behind`;
      logger.log(`Building the read models from ${total.toLocaleString('en')} events (${why}); the API answers 503 "starting" meanwhile`);
    }
    if (!done && now - last < everyMs) return;
    last = now;
    const doneEvents = p.position - p.from;
    const share = total > 0 ? doneEvents / total : 1;
    const width = 30;
    const filled = Math.round(share * width);
    const seconds = Math.max(0.001, (now - started) / 1000);
    const rate = Math.round(doneEvents / seconds);
    logger.log(
      `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.floor(share * 100)}% ${doneEvents.toLocaleString('en')}/${total.toLocaleString('en')} events, ${rate.toLocaleString('en')} events/s` +
        (done ? `, done in ${seconds.toFixed(1)} s` : ''),
    );
  };
}
