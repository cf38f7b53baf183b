/*
 * How the scheduler paces and retries pushes (reminder-scheduler.ts): a bounded number in flight at once, across
 * people, and a failed push tried again later the same day while the person's reminder window lasts.
 */

/** Pushes in flight at once, across people: one slow push service holds up at most one of them. */
export const PUSH_CONCURRENCY = 20;
/** Tries of one device's push for one day (the first and up to four retries). */
export const MAX_PUSH_ATTEMPTS = 5;
/** Wait before retry n (n = 1 after the first failure): 1, 2, 4, 8 minutes; a longer Retry-After wins. */
export const retryBackoffMs = (attempt: number) => 60_000 * 2 ** (attempt - 1);

/**
 * When to try a failed push again, or null to give up: not retryable, out of attempts, or the next try (the later of
 * the backoff and the push service's Retry-After) would fall at or after the window's end `until`.
 */
export function nextAttemptAt(failure: { retryable: boolean; retryAfterMs: number | null }, attempt: number, now: number, until: number): number | null {
  if (!failure.retryable || attempt >= MAX_PUSH_ATTEMPTS) return null;
  const at = now + Math.max(retryBackoffMs(attempt), failure.retryAfterMs ?? 0);
  return at < until ? at : null;
}

/**
 * Runs `run` over `items`, at most `limit` at a time, in order; stops taking new ones once `signal` is aborted.
 * Returns how many were never started. `run` must not throw.
 */
export async function runLimited<T>(items: readonly T[], limit: number, run: (item: T) => Promise<void>, signal?: AbortSignal): Promise<number> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal?.aborted) await run(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return items.length - next;
}
