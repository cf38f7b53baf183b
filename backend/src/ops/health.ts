import type { Infrastructure } from '../infrastructure';
import type { ProjectionStatus } from '../projections/projection-pipeline';

export interface HealthReport {
  status: 'ok' | 'degraded';
  eventStore: { ok: boolean; head?: number; error?: string };
  readModels: { ok: boolean; error?: string };
  queue: { ok: boolean; error?: string };
  projections: ProjectionStatus[];
  /** The largest projection lag, in events. */
  lag: number;
}

async function probe<T>(fn: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: string }> {
  try {
    return { ok: true, value: await fn() };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

/** What the api and the worker report at their health endpoints: each backend reachable, and the lag. */
export async function healthReport(infra: Pick<Infrastructure, 'store' | 'readModels' | 'queue' | 'pipeline'>): Promise<HealthReport> {
  const [head, checkpoint, backlog] = await Promise.all([
    probe(() => infra.store.headPosition()),
    probe(() => infra.readModels.getCheckpoint('$relay')),
    probe(() => infra.queue.backlog('health-probe')),
  ]);
  const projections = head.ok && checkpoint.ok && backlog.ok ? await infra.pipeline.status() : [];
  const stopped = projections.some((p) => p.state === 'stopped');
  const ok = head.ok && checkpoint.ok && backlog.ok && !stopped;
  return {
    status: ok ? 'ok' : 'degraded',
    eventStore: head.ok ? { ok: true, head: head.value } : { ok: false, error: head.error },
    readModels: checkpoint.ok ? { ok: true } : { ok: false, error: checkpoint.error },
    queue: backlog.ok ? { ok: true } : { ok: false, error: backlog.error },
    projections,
    lag: Math.max(0, ...projections.map((p) => p.lag)),
  };
}
