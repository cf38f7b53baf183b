import { Logger } from '@nestjs/common';
import type { RequestHandler } from 'express';
import { getHeapStatistics } from 'node:v8';
import { sendApiError } from './api-exception.filter';

/** How long a client is asked to wait before trying again while the app starts (seconds). */
export const STARTING_RETRY_AFTER_SECONDS = 2;

export interface StartingProgress {
  position: number;
  head: number;
}

const STARTING_MESSAGE = 'Joy is starting. Please try again in a moment.';

/**
 * The port listens before the read models are ready (a first start after an upgrade rebuilds them): until
 * `open()`, API and sign-in requests are answered 503 `server.starting` with `Retry-After`, and `/api/health`
 * says `starting` with how far the build is. The frontend's files are served meanwhile (the app says "Joy is
 * starting" and asks again by itself). A page the browser navigates to (Sign in: /api/login, the sign-in forms)
 * or submits (a sign-in form) gets `startingPage`'s HTML with a link to try the address again, not the JSON answer.
 */
export class StartGate {
  private opened = false;
  private progress: StartingProgress | null = null;

  constructor(private readonly startingPage: (retryUrl: string) => string) {}

  readonly handler: RequestHandler = (req, res, next) => {
    if (this.opened) return next();
    res.setHeader('Retry-After', String(STARTING_RETRY_AFTER_SECONDS));
    if (req.originalUrl === '/api/health' || req.originalUrl.startsWith('/api/health?')) {
      res.status(503).json({ status: 'starting', ...(this.progress ? { progress: this.progress } : {}) });
      return;
    }
    if (req.accepts(['json', 'html']) === 'html') {
      res.status(503).type('html').setHeader('Cache-Control', 'no-store').send(this.startingPage(req.originalUrl));
      return;
    }
    sendApiError(res, 'server.starting', STARTING_MESSAGE);
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
 * Events a build of the read models may fold per MiB of JavaScript heap: measured (docs/decisions.md, "Memory of
 * such a first start"), 1M events of 10,000 people rating every day needed a heap limit of about 1 GB.
 */
export const EVENTS_PER_HEAP_MIB = 1000;

/**
 * Logs a catch-up's progress (a bar, events/s, and what is left) at most every `everyMs`, and a last line at the
 * end: only when there is much to do (a restart after a clean stop says nothing). A build larger than the heap
 * limit may hold is named at once, with the setting that lets it through: running out of memory ends the process
 * with V8's message, which says nothing of what to do.
 */
export function startProgressLog(
  logger: Pick<Logger, 'log' | 'warn'>,
  options: { everyMs?: number; atLeast?: number; heapLimitBytes?: number } = {},
) {
  const everyMs = options.everyMs ?? 2000;
  const atLeast = options.atLeast ?? 10_000;
  const heapLimitMib = Math.floor((options.heapLimitBytes ?? getHeapStatistics().heap_size_limit) / 2 ** 20);
  const started = Date.now();
  let last = 0;
  let announced = false;
  return (p: { from: number; position: number; head: number; reset: readonly string[] }, done = false) => {
    const total = p.head - p.from;
    if (total < atLeast) return;
    const now = Date.now();
    if (!announced) {
      announced = true;
      const why = p.from === 0 ? 'no read models yet: a first start, or the first since an upgrade' : p.reset.length ? `new code of ${p.reset.join(', ')}` : `${total.toLocaleString('en')} events behind`;
      logger.log(`Building the read models from ${total.toLocaleString('en')} events (${why}); the API answers 503 "starting" meanwhile`);
      if (total > heapLimitMib * EVENTS_PER_HEAP_MIB) {
        const wanted = Math.ceil(total / EVENTS_PER_HEAP_MIB / 256) * 256;
        logger.warn(
          `${total.toLocaleString('en')} events may need more memory than this process's JavaScript heap limit (${heapLimitMib} MiB) ` +
            `when many people rate every day (about 1 GiB per million events). If it stops with "JavaScript heap out of memory", ` +
            `start it with NODE_OPTIONS=--max-old-space-size=${wanted} (on a machine with that much memory to spare): ` +
            'the build goes on from its last committed batch.',
        );
      }
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
