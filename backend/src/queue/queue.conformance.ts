import { Job, JobQueue } from './queue.port';
import { waitUntil } from '../testing/wait';

export interface QueueFixture {
  queue: JobQueue;
  /** Removes what the fixture created; called after `queue.close()`. */
  cleanup: () => Promise<void>;
  /**
   * Another adapter instance on the same backend, as another process would have (the in-process adapter has
   * no backend to share: it returns the same instance). The case closes it when it differs from `queue`.
   */
  another: () => JobQueue;
}

/**
 * The behaviour every JobQueue adapter must have. Queue names are unique per case. `create` is null (or
 * resolves to null) when the backend is not available: the cases are then skipped with a message.
 */
export function describeQueueConformance(name: string, create: (() => Promise<QueueFixture | null>) | null): void {
  const skipMessage = `${name} queue conformance skipped: Redis did not answer (set REDIS_URL)`;
  if (!create) {
    describe.skip(`JobQueue conformance: ${name}`, () => {
      it(`skipped: ${name} is not available`, () => undefined);
    });
    // eslint-disable-next-line no-console
    console.warn(skipMessage);
    return;
  }

  describe(`JobQueue conformance: ${name}`, () => {
    const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    let counter = 0;
    let fixture: QueueFixture | null = null;
    let queue: JobQueue;
    /** A queue name unique to this case. */
    let q: string;
    let warned = false;

    beforeEach(async () => {
      q = `conf-${run}-${++counter}`;
      fixture = await create();
      if (fixture) queue = fixture.queue;
      else if (!warned) {
        warned = true;
        // eslint-disable-next-line no-console
        console.warn(skipMessage);
      }
    });
    afterEach(async () => {
      if (!fixture) return;
      await fixture.queue.close();
      await fixture.cleanup();
    });

    const test = (title: string, body: () => Promise<void>) =>
      it(title, async () => {
        if (fixture) await body();
      });

    const jobs = (...ids: string[]): Job<{ n: string }>[] => ids.map((id) => ({ id, payload: { n: id } }));

    test('delivers every job, in the order added, with its payload', async () => {
      const ids = Array.from({ length: 30 }, (_, i) => `job-${i}`);
      await queue.add(q, jobs(...ids.slice(0, 10)));
      await queue.add(q, jobs(...ids.slice(10, 20)));
      const received: Job<{ n: string }>[] = [];
      const consumer = queue.consume<{ n: string }>(q, async (job) => {
        received.push(job);
      });
      await queue.add(q, jobs(...ids.slice(20)));
      await waitFor(() => received.length === 30);
      expect(received.map((j) => j.id)).toEqual(ids);
      expect(received.every((j) => j.payload.n === j.id)).toBe(true);
      await waitFor(() => consumer.status().processed === 30);
      expect(consumer.status()).toEqual({ state: 'running', processed: 30 });
    });

    test('handles one job at a time', async () => {
      let inFlight = 0;
      let maxInFlight = 0;
      let done = 0;
      queue.consume(q, async () => {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await sleep(2); // the handler's work (simulated), so that jobs would overlap if the queue let them
        inFlight -= 1;
        done += 1;
      });
      await queue.add(q, jobs('a', 'b', 'c', 'd', 'e', 'f'));
      await waitFor(() => done === 6);
      expect(maxInFlight).toBe(1);
    });

    test('a duplicate job id is enqueued once while the first is pending or in flight', async () => {
      await queue.add(q, jobs('a', 'b'));
      await queue.add(q, jobs('a', 'c'));
      expect(await queue.backlog(q)).toBe(3);
      const received: string[] = [];
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      queue.consume(q, async (job) => {
        received.push(job.id);
        if (job.id === 'c') await gate;
      });
      await waitFor(() => received.length === 3);
      await queue.add(q, jobs('c', 'd')); // c is in flight
      release();
      // A job added after them comes after any copy of c: once it is handled, no second c can come.
      await queue.add(q, jobs('e'));
      await waitFor(() => received.includes('e'));
      expect(received).toEqual(['a', 'b', 'c', 'd', 'e']);
    });

    test('a failing handler is retried in place and the following jobs wait', async () => {
      const received: string[] = [];
      let failures = 0;
      const consumer = queue.consume(
        q,
        async (job) => {
          received.push(job.id);
          if (job.id === '2' && failures < 2) {
            failures += 1;
            throw new Error('transient');
          }
        },
        { maxAttempts: 5, backoffMs: 10 },
      );
      await queue.add(q, jobs('1', '2', '3', '4'));
      await waitFor(() => consumer.status().processed === 4);
      expect(received).toEqual(['1', '2', '2', '2', '3', '4']);
      expect(consumer.status()).toEqual({ state: 'running', processed: 4 });
    });

    test('a handler that keeps failing stops the consumer without skipping the job', async () => {
      const received: string[] = [];
      const consumer = queue.consume(
        q,
        async (job) => {
          received.push(job.id);
          if (job.id === '2') throw new Error('broken projector');
        },
        { maxAttempts: 3, backoffMs: 10 },
      );
      await queue.add(q, jobs('1', '2', '3'));
      await waitFor(() => consumer.status().state === 'stopped');
      expect(consumer.status()).toEqual({ state: 'stopped', processed: 1, error: 'broken projector', jobId: '2' });
      expect(await queue.backlog(q)).toBe(2);
      await consumer.close();

      // Nothing was lost: the next consumer starts with the failed job, then the rest, in order.
      const after: string[] = [];
      const next = queue.consume(q, async (job) => {
        after.push(job.id);
      });
      await waitFor(() => next.status().processed === 2);
      expect(after).toEqual(['2', '3']);
      // And the stopped consumer tried no 4th time: had it still been trying, it would have taken job 2 before them.
      expect(received).toEqual(['1', '2', '2', '2']);
    });

    test('a store outage is waited out without spending attempts: the job goes on once the store is back', async () => {
      const received: string[] = [];
      let outageLeft = 8; // more tries than maxAttempts allows
      const consumer = queue.consume(
        q,
        async (job) => {
          received.push(job.id);
          if (job.id === '2' && outageLeft-- > 0) throw new Error('store unavailable');
        },
        { maxAttempts: 3, backoffMs: 5, isOutage: (err) => (err as Error).message === 'store unavailable' },
      );
      await queue.add(q, jobs('1', '2', '3'));
      await waitFor(() => received.filter((id) => id === '2').length === 3);
      // While it waits, the status says what for, and it still runs.
      expect(consumer.status()).toEqual({ state: 'running', processed: 1, outage: 'store unavailable' });
      await waitFor(() => consumer.status().processed === 3);
      expect(consumer.status()).toEqual({ state: 'running', processed: 3 });
      expect(received).toEqual(['1', ...Array(9).fill('2'), '3']);
      await consumer.close();
    });

    test('backlog counts the jobs not yet completed', async () => {
      expect(await queue.backlog(q)).toBe(0);
      await queue.add(q, jobs('a', 'b', 'c'));
      expect(await queue.backlog(q)).toBe(3);
      const consumer = queue.consume(q, async () => undefined);
      await waitFor(() => consumer.status().processed === 3);
      await waitFor(async () => (await queue.backlog(q)) === 0);
    });

    test('closing a consumer waits for the job in flight and starts no other', async () => {
      const started: string[] = [];
      let finished = 0;
      const consumer = queue.consume(q, async (job) => {
        started.push(job.id);
        await sleep(40); // the handler's work (simulated): close comes while it runs
        finished += 1;
      });
      await queue.add(q, jobs('a', 'b', 'c'));
      await waitFor(() => started.length === 1);
      await consumer.close();
      expect(finished).toBe(1);
      expect(await queue.backlog(q)).toBe(2);
      // The closed consumer starts no other: the next one gets b and c, and the first never saw them.
      const after: string[] = [];
      const next = queue.consume(q, async (job) => {
        after.push(job.id);
      });
      await waitFor(() => after.length === 2);
      expect(after).toEqual(['b', 'c']);
      expect(started).toEqual(['a']);
      await next.close();
    });

    test('closing aborts the signal of the job in flight; a job that then throws stays at the head, not counted as failed', async () => {
      let started = 0;
      const consumer = queue.consume(
        q,
        async (_job, signal) => {
          started += 1;
          await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
          throw new Error('interrupted');
        },
        { maxAttempts: 1 },
      );
      await queue.add(q, jobs('a', 'b'));
      await waitFor(() => started === 1);
      await consumer.close();
      expect(started).toBe(1);
      expect(consumer.status().state).not.toBe('stopped');
      expect(await queue.backlog(q)).toBe(2);
      const after: string[] = [];
      queue.consume(q, async (job) => {
        after.push(job.id);
      });
      await waitFor(() => after.length === 2);
      expect(after).toEqual(['a', 'b']);
    });

    test('two consumers of one queue (two instances) never overlap, keep the order, and hand over on close', async () => {
      const other = fixture!.another();
      try {
        const received: string[] = [];
        let inFlight = 0;
        let maxInFlight = 0;
        const handler = async (job: Job<{ n: string }>) => {
          inFlight += 1;
          maxInFlight = Math.max(maxInFlight, inFlight);
          received.push(job.id);
          await sleep(1 + (received.length % 3)); // the handler's work (simulated), of varying length
          inFlight -= 1;
        };
        const first = queue.consume(q, handler);
        const second = other.consume(q, handler);
        const ids = Array.from({ length: 40 }, (_, i) => `j${String(i).padStart(2, '0')}`);
        await queue.add(q, jobs(...ids));
        await waitFor(() => received.length >= 15);
        // Exactly one of them owns the queue; the other stands by.
        expect([first.status().state, second.status().state].sort()).toEqual(['running', 'standby']);
        const [owner, standby] = first.status().state === 'running' ? [first, second] : [second, first];
        await owner.close();
        await waitFor(() => received.length === 40, 8000);
        // A job added last comes after any repeat of the 40: once it is handled, none can come.
        await queue.add(q, jobs('last'));
        await waitFor(() => first.status().processed + second.status().processed === ids.length + 1);
        expect(received).toEqual([...ids, 'last']);
        expect(maxInFlight).toBe(1);
        expect(standby.status().state).toBe('running');
        expect(owner.status().processed + standby.status().processed).toBe(ids.length + 1); // the 40, and the last
        await standby.close();
      } finally {
        if (other !== queue) await other.close();
      }
    });

    test('a consumer standing by takes nothing until the owner closes, then takes over', async () => {
      const other = fixture!.another();
      try {
        const byFirst: string[] = [];
        const bySecond: string[] = [];
        const first = queue.consume(q, async (job) => {
          byFirst.push(job.id);
        });
        await queue.add(q, jobs('a', 'b'));
        await waitFor(() => byFirst.length === 2);
        const second = other.consume(q, async (job) => {
          bySecond.push(job.id);
        });
        await other.add(q, jobs('c', 'd'));
        await waitFor(() => byFirst.length === 4);
        expect(second.status().state).toBe('standby');
        await first.close();
        await queue.add(q, jobs('e'));
        await waitFor(() => bySecond.length === 1, 8000);
        expect(byFirst).toEqual(['a', 'b', 'c', 'd']);
        expect(bySecond).toEqual(['e']);
        expect(second.status()).toEqual({ state: 'running', processed: 1 });
      } finally {
        if (other !== queue) await other.close();
      }
    });

    test('onOwned runs before the first job of each new owner', async () => {
      const events: string[] = [];
      const consumer = queue.consume(
        q,
        async (job) => {
          events.push(`job ${job.id}`);
        },
        {
          onOwned: async () => {
            await sleep(10); // the hook's work (simulated): jobs must wait for it
            events.push('owned');
          },
        },
      );
      await queue.add(q, jobs('a', 'b'));
      await waitFor(() => consumer.status().processed === 2);
      expect(events).toEqual(['owned', 'job a', 'job b']);
    });

    test('runExclusive runs a duty in one place at a time; another takes over when the first closes', async () => {
      const other = fixture!.another();
      try {
        const name = `${q}-duty`;
        let running = 0;
        let maxRunning = 0;
        const started: string[] = [];
        const duty = (who: string) => async (signal: AbortSignal) => {
          running += 1;
          maxRunning = Math.max(maxRunning, running);
          started.push(who);
          await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
          running -= 1;
        };
        const a = queue.runExclusive(name, duty('a'));
        await waitFor(() => started.length === 1);
        const b = other.runExclusive(name, duty('b'));
        // b must not start while a holds the duty: had it started, maxRunning below would be 2.
        expect(started).toEqual(['a']);
        expect(a.isHeld()).toBe(true);
        expect(b.isHeld()).toBe(false);
        await a.close();
        expect(a.isHeld()).toBe(false);
        await waitFor(() => started.length === 2, 8000);
        expect(started).toEqual(['a', 'b']);
        expect(maxRunning).toBe(1);
        await b.close();
        expect(running).toBe(0);
      } finally {
        if (other !== queue) await other.close();
      }
    });

    test('runExclusive runs the duty again after it threw', async () => {
      let runs = 0;
      const errors: unknown[] = [];
      const run = queue.runExclusive(
        `${q}-flaky`,
        async (signal) => {
          runs += 1;
          if (runs === 1) throw new Error('first run fails');
          await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        },
        { retryMs: 10, onError: (err) => errors.push(err) },
      );
      await waitFor(() => runs === 2);
      expect((errors[0] as Error).message).toBe('first run fails');
      await run.close();
    });

    test('close of the queue ends its consumers', async () => {
      let handled = 0;
      queue.consume(q, async () => {
        handled += 1;
      });
      await queue.add(q, jobs('a'));
      await waitFor(() => handled === 1);
      await queue.close(); // afterEach closes again: close must be idempotent
    });
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const waitFor = waitUntil;
