import type { INestApplication } from '@nestjs/common';
import type { RequestHandler } from 'express';
import type { Server } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { DEFAULT_LOAD_SHEDDING, type LoadShedding } from '../config';
import { sendApiError } from './api-exception.filter';

/*
 * The HTTP edge's connection settings, chosen rather than inherited (README, "Connections and load"):
 * - a listen backlog of 2,048, so that a thousand connections opened at once wait in the kernel's queue rather
 *   than being dropped (and retried by the client a second or more later); the kernel caps it at somaxconn;
 * - keep-alive for 61 s, longer than the 60 s idle timeout of common proxies and load balancers, so that the
 *   proxy, not Joy, closes an idle connection (no request is sent on a socket Joy has just closed);
 * - a request's headers within 20 s and the whole request within 30 s (slow-loris defence: a client cannot hold
 *   a connection open by trickling its request).
 */
export const EDGE = {
  backlog: 2048,
  keepAliveTimeoutMs: 61_000,
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 30_000,
} as const;

/** Listens on `port` (all interfaces, or `host`) with the edge's settings; resolves once it accepts connections. */
export async function listenOnEdge(app: INestApplication, port: number, host?: string): Promise<Server> {
  const server = app.getHttpServer() as Server;
  server.keepAliveTimeout = EDGE.keepAliveTimeoutMs;
  server.headersTimeout = EDGE.headersTimeoutMs;
  server.requestTimeout = EDGE.requestTimeoutMs;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog: EDGE.backlog }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

/**
 * Load shedding: when the event loop runs late (requests waiting for the CPU), new API requests are answered at
 * once with 503 and Retry-After instead of joining the queue, so that the ones already in it finish in time and
 * no client waits until it gives up. Health answers are never shed (a load balancer must see the truth).
 */
export function loadShedder(settings: LoadShedding = DEFAULT_LOAD_SHEDDING): RequestHandler & { stop(): void; shedding(): boolean } {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  let shedding = false;
  const timer = setInterval(() => {
    shedding = delay.percentile(99) / 1e6 >= settings.maxDelayMs;
    delay.reset();
  }, settings.windowMs);
  timer.unref();
  const handler: RequestHandler = (req, res, next) => {
    if (!shedding || req.originalUrl.startsWith('/api/health')) return next();
    res.setHeader('Retry-After', String(settings.retryAfterSeconds));
    sendApiError(res, 'server.busy', 'Joy is very busy right now. Please try again in a moment.');
  };
  return Object.assign(handler, {
    stop: () => {
      clearInterval(timer);
      delay.disable();
    },
    shedding: () => shedding,
  });
}
