import type { EventStore } from '../event-store/event-store.port';
import { EventStoreUnavailableError } from '../event-store/event-store.port';
import type { Infrastructure } from '../infrastructure';
import type { ProjectionStatus } from '../projections/pipeline/status';
import { keyFileProblem } from './integrity';
import { within } from '../within';

interface Part {
  ok: boolean;
  error?: string;
}

/** The ops view (local, with the ops token): every part, with positions and lag. */
export interface HealthReport {
  status: 'ok' | 'degraded';
  /** ok when an append would be stored now (a real write probe where the adapter has one). */
  eventStore: Part & { head?: number; reason?: string };
  /** An event the relay cannot read (a damaged store): named with its position and the repair command. */
  events: Part;
  readModels: Part;
  queue: Part;
  /** The key file of personal data (embedded default): still in place. */
  keys: Part;
  /** The projections, then the reactors (named `reactor.<name>`). */
  projections: ProjectionStatus[];
  /** The largest projection lag, in events. */
  lag: number;
}

/** What anyone may read at GET /api/health: which part failed and why, and no count of stored data. */
export interface PublicHealth {
  status: 'ok' | 'degraded';
  eventStore: Part;
  events: Part;
  readModels: Part;
  queue: Part;
  keys: Part;
  projections: Part & { stopped?: string[] };
}

/**
 * How long a part may take to answer before health says it did not: a backend that is away can leave a call
 * waiting for its reconnection (a driver's offline queue), and a probe that never settles would time the health
 * check out with no part named.
 */
export const HEALTH_PROBE_MS = 3000;

async function probe<T>(fn: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: string; err: unknown }> {
  try {
    return { ok: true, value: await within(fn(), HEALTH_PROBE_MS, () => new Error(`no answer within ${HEALTH_PROBE_MS / 1000} s`)) };
  } catch (err) {
    return { ok: false, error: (err as Error).message, err };
  }
}

/** A write probe costs a disk sync: at most one per store per second, however often health is asked. */
const PROBE_EVERY_MS = 1000;
const lastProbe = new WeakMap<EventStore, { at: number; result: Promise<void> }>();

function canAppend(store: EventStore): Promise<void> {
  if (!store.probeAppend) return store.headPosition().then(() => undefined);
  const last = lastProbe.get(store);
  if (last && Date.now() - last.at < PROBE_EVERY_MS) return last.result;
  const result = store.probeAppend();
  result.catch(() => undefined);
  lastProbe.set(store, { at: Date.now(), result });
  return result;
}

/** What the api and the worker know of their health: each backend reachable and writable, and the lag. */
export async function healthReport(
  infra: Pick<Infrastructure, 'store' | 'readModels' | 'queue' | 'pipeline'> & Partial<Pick<Infrastructure, 'keyFile'>>,
): Promise<HealthReport> {
  const [append, head, checkpoint, backlog] = await Promise.all([
    probe(() => canAppend(infra.store)),
    probe(() => infra.store.headPosition()),
    probe(() => infra.readModels.getCheckpoint('$relay')),
    probe(() => infra.queue.backlog('health-probe')),
  ]);
  // Reactors (care fulfilment) are listed with the projections: one stopped is as much a fault to act on.
  const listed = head.ok && checkpoint.ok && backlog.ok ? await probe(async () => [...(await infra.pipeline.status()), ...(await infra.pipeline.reactorStatus())]) : null;
  const projections = listed?.ok ? listed.value : [];
  // A part that went away between the probes above and the listing (which reads the queue and the read models).
  const listingFailed = listed !== null && !listed.ok ? listed.error : null;
  const stopped = projections.some((p) => p.state === 'stopped');
  const unreadable = infra.pipeline.unreadableEvent();
  const keysProblem = keyFileProblem(infra.keyFile ?? null);
  const eventStoreOk = append.ok && head.ok;
  const ok = eventStoreOk && checkpoint.ok && backlog.ok && !listingFailed && !stopped && !unreadable && !keysProblem;
  return {
    status: ok ? 'ok' : 'degraded',
    eventStore: eventStoreOk
      ? { ok: true, head: head.value }
      : {
          ok: false,
          error: !append.ok ? append.error : (head as { error: string }).error,
          // The adapter's own words (which file, what to do, no path): safe to show publicly.
          ...(!append.ok && append.err instanceof EventStoreUnavailableError ? { reason: append.err.reason } : {}),
        },
    events: unreadable ? { ok: false, error: unreadable.message } : { ok: true },
    readModels: checkpoint.ok ? { ok: true } : { ok: false, error: checkpoint.error },
    queue: !backlog.ok ? { ok: false, error: backlog.error } : listingFailed ? { ok: false, error: `listing the projections: ${listingFailed}` } : { ok: true },
    keys: keysProblem ? { ok: false, error: keysProblem } : { ok: true },
    projections,
    lag: Math.max(0, ...projections.map((p) => p.lag)),
  };
}

/**
 * The public answer: which part failed, in words an operator acts on, never a count or a position (no number of
 * events, lag, or file path) and never a backend's raw error (host names, addresses).
 */
export function publicHealth(report: HealthReport): PublicHealth {
  const part = (p: Part, says: string): Part => (p.ok ? { ok: true } : { ok: false, error: says });
  const stopped = report.projections.filter((p) => p.state === 'stopped').map((p) => p.name);
  return {
    status: report.status,
    eventStore: report.eventStore.ok
      ? { ok: true }
      : { ok: false, error: report.eventStore.reason ?? 'the event store cannot take writes' },
    events: part(report.events, 'an event cannot be read: run "npm run events -- verify" on the server'),
    readModels: part(report.readModels, 'the read models cannot be reached'),
    queue: part(report.queue, 'the queue cannot be reached'),
    keys: part(report.keys, report.keys.error ?? 'the key file is missing'),
    projections: stopped.length ? { ok: false, stopped, error: 'see "npm run projections -- status" on the server' } : { ok: true },
  };
}
