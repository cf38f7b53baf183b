import { Job, JobQueue } from './queue.port';

export interface QueueFixture {
  queue: JobQueue;
  /** Removes what the fixture created; called after `queue.close()`. */
  cleanup: () => Promise<void>;
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
        await sleep(2);
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
      await waitFor(() => received.length === 4);
      await sleep(30);
      expect(received).toEqual(['a', 'b', 'c', 'd']);
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
      await sleep(50);
      expect(received).toEqual(['1', '2', '2', '2']);
      expect(await queue.backlog(q)).toBe(2);
      await consumer.close();

      // Nothing was lost: the next consumer starts with the failed job, then the rest, in order.
      const after: string[] = [];
      const next = queue.consume(q, async (job) => {
        after.push(job.id);
      });
      await waitFor(() => next.status().processed === 2);
      expect(after).toEqual(['2', '3']);
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
        await sleep(40);
        finished += 1;
      });
      await queue.add(q, jobs('a', 'b', 'c'));
      await waitFor(() => started.length === 1);
      await consumer.close();
      expect(finished).toBe(1);
      await sleep(50);
      expect(started).toEqual(['a']);
      expect(await queue.backlog(q)).toBe(2);
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

/** Polls `condition` until it holds; fails after `timeoutMs` (a liveness bound, not a performance check). */
async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 4000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(5);
  }
}
