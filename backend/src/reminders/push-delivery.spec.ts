import { MAX_PUSH_ATTEMPTS, nextAttemptAt, runLimited } from './push-delivery';

describe('pushes in flight', () => {
  it('runs at most the limit at once, in order, and all of them', async () => {
    let inFlight = 0;
    let most = 0;
    const done: number[] = [];
    const gates: (() => void)[] = [];
    const run = async (n: number) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise<void>((resolve) => gates.push(resolve));
      inFlight--;
      done.push(n);
    };
    const all = runLimited(Array.from({ length: 50 }, (_, i) => i), 20, run);
    // Let them finish one at a time: never more than 20 waiting.
    while (done.length < 50) {
      await new Promise((r) => setImmediate(r));
      expect(inFlight).toBeLessThanOrEqual(20);
      gates.shift()?.();
    }
    expect(await all).toBe(0);
    expect(most).toBe(20);
    expect(done).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it('starts no more once aborted, and says how many were left', async () => {
    const abort = new AbortController();
    const started: number[] = [];
    const left = await runLimited([1, 2, 3, 4, 5], 2, async (n) => {
      started.push(n);
      if (n === 2) abort.abort();
    }, abort.signal);
    expect(started).toEqual([1, 2]);
    expect(left).toBe(3);
  });
});

describe('when a failed push is tried again', () => {
  const now = 0;
  const minute = 60_000;
  const until = 60 * minute;

  it('backs off 1, 2, 4, 8 minutes, or longer when the push service says so', () => {
    expect(nextAttemptAt({ retryable: true, retryAfterMs: null }, 1, now, until)).toBe(minute);
    expect(nextAttemptAt({ retryable: true, retryAfterMs: null }, 4, now, until)).toBe(8 * minute);
    expect(nextAttemptAt({ retryable: true, retryAfterMs: 5 * minute }, 1, now, until)).toBe(5 * minute);
    expect(nextAttemptAt({ retryable: true, retryAfterMs: 1000 }, 2, now, until)).toBe(2 * minute);
  });

  it('gives up on what is not worth retrying, after the last try, and when the next would fall after the window', () => {
    expect(nextAttemptAt({ retryable: false, retryAfterMs: null }, 1, now, until)).toBeNull();
    expect(nextAttemptAt({ retryable: true, retryAfterMs: null }, MAX_PUSH_ATTEMPTS, now, until)).toBeNull();
    expect(nextAttemptAt({ retryable: true, retryAfterMs: 2 * 3_600_000 }, 1, now, until)).toBeNull();
    expect(nextAttemptAt({ retryable: true, retryAfterMs: null }, 1, until - 30_000, until)).toBeNull();
  });
});
