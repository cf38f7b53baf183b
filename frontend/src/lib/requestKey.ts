import { useCallback, useMemo, useRef } from 'react';

/**
 * A new Idempotency-Key: 128 random bits in hex (crypto.randomUUID needs a secure context; getRandomValues works
 * everywhere). A request that creates something keeps its key until it succeeds, so that sending it again after a
 * lost answer creates nothing twice.
 */
export function newRequestKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The Idempotency-Key of a form's request: the same while the same body is sent again (its answer was lost), a new
 * one for another body, or once `done` says the last one succeeded.
 */
export function useRequestKey() {
  const last = useRef<{ key: string; body: string } | null>(null);
  return useMemo(
    () => ({
      keyFor(body: unknown): string {
        const text = JSON.stringify(body);
        if (last.current?.body !== text) last.current = { key: newRequestKey(), body: text };
        return last.current.key;
      },
      done() {
        last.current = null;
      },
    }),
    [],
  );
}

/**
 * Runs a form's submission only when none is under way: two clicks in one frame (before the pending state disables
 * the button) sent two requests, and ordered two gifts or made two groups (a review, 11-28). `start` is given the
 * function to call once the request has settled.
 */
export function useOneAtATime(): (start: (settled: () => void) => void) => void {
  const busy = useRef(false);
  return useCallback((start) => {
    if (busy.current) return;
    busy.current = true;
    start(() => {
      busy.current = false;
    });
  }, []);
}
