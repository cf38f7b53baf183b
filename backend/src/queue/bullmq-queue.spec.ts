import { Redis } from 'ioredis';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { deleteRedisKeys, redisAnswers, waitUntil } from '../testing/wait';
import { BullMqQueue } from './bullmq-queue';
import { describeQueueConformance } from './queue.conformance';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';


const prefix = `joytest-${process.pid}-${Date.now().toString(36)}`;

/** Deletes every key of this run's prefix. */
const deleteKeys = () => deleteRedisKeys(redisUrl, prefix);

/** Short leases, so that takeovers in the cases are quick. */
const lease = { ttlMs: 900, retryMs: 50 };
const available = redisAnswers(redisUrl);

describeQueueConformance(
  'BullMQ',
  available
    ? async () => ({
        queue: new BullMqQueue(redisUrl, prefix, { lease }),
        cleanup: deleteKeys,
        another: () => new BullMqQueue(redisUrl, prefix, { lease }),
      })
    : null,
);

const describeRedis = available ? describe : describe.skip;

describeRedis('BullMqQueue with Redis gone away', () => {
  it('answers a count with an error within seconds instead of waiting for Redis to come back (health names the queue)', async () => {
    // A relay in front of Redis, cut once the queue has counted through it: as Redis stopping under the app.
    const { port: redisPort, hostname } = new URL(redisUrl);
    const sockets = new Set<Socket>();
    const relay = createServer((client) => {
      const upstream = connect(Number(redisPort || 6379), hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const queue = new BullMqQueue(`redis://127.0.0.1:${(relay.address() as AddressInfo).port}`, prefix, { lease });
    try {
      expect(await queue.backlog('probe')).toBe(0);
      relay.close();
      for (const socket of sockets) socket.destroy();
      const started = Date.now();
      await expect(queue.backlog('probe')).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await Promise.race([queue.close(), new Promise((resolve) => setTimeout(resolve, 1000))]);
    }
  });
});

describeRedis('BullMqQueue leases (Redis)', () => {
  const waitFor = waitUntil;
  let queue: BullMqQueue;
  let redis: Redis;
  beforeEach(() => {
    queue = new BullMqQueue(redisUrl, prefix, { lease });
    redis = new Redis(redisUrl);
  });
  afterEach(async () => {
    await queue.close();
    await redis.quit();
    await deleteKeys();
  });

  it('names the holder in the lease, and a lost lease (Redis forgot it) stops and resumes the consumer', async () => {
    const q = `lease-${Date.now().toString(36)}`;
    const received: string[] = [];
    let handledWhileAnotherHeld = false;
    const consumer = queue.consume(q, async (job) => {
      if ((await redis.get(`${prefix}:lease:${q}`)) === 'someone-else') handledWhileAnotherHeld = true;
      received.push(job.id);
    });
    await waitFor(async () => (await queue.leaseHolder(q)) !== null);
    expect(await queue.leaseHolder(q)).toMatch(new RegExp(`:${process.pid}:`));
    // Another process takes the lease over (as after Redis lost the key and someone else set it).
    await redis.set(`${prefix}:lease:${q}`, 'someone-else', 'PX', 1500);
    await waitFor(() => consumer.status().state === 'standby');
    await queue.add(q, [{ id: 'a', payload: 1 }]);
    // The other holder's lease expires: this consumer takes it back and catches up, and it handled nothing while
    // the other one held the lease (the handler looks at the lease when it runs).
    await waitFor(() => received.length === 1, 8000);
    expect(handledWhileAnotherHeld).toBe(false);
    expect(consumer.status()).toEqual({ state: 'running', processed: 1 });
  });

  it('tells its listeners when the connection comes back after a drop (not on the first connect)', async () => {
    let reconnects = 0;
    const off = queue.onReconnect(() => reconnects++);
    expect(await queue.backlog('probe')).toBe(0); // connected
    expect(reconnects).toBe(0);
    // Drop the producer connection as a Redis restart would; ioredis reconnects by itself.
    (queue as unknown as { connection: Redis }).connection.disconnect(true);
    await waitFor(() => reconnects === 1);
    off();
  });

  it('runExclusive aborts the duty when its lease is lost and runs it again once it is back', async () => {
    const name = `duty-${Date.now().toString(36)}`;
    const runs: string[] = [];
    const run = queue.runExclusive(name, async (signal) => {
      runs.push('start');
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      runs.push('aborted');
    });
    await waitFor(() => runs.length === 1);
    await redis.set(`${prefix}:lease:${name}`, 'someone-else', 'PX', 800);
    await waitFor(() => runs.length === 2);
    expect(run.isHeld()).toBe(false);
    await waitFor(() => runs.length === 3, 8000);
    expect(runs).toEqual(['start', 'aborted', 'start']);
    await run.close();
  });

  it('a new owner puts a dead owner\'s active job (lock expired) back at the head, before newer jobs', async () => {
    const q = `dead-${Date.now().toString(36)}`;
    await queue.add(q, [
      { id: 'a', payload: 1 },
      { id: 'b', payload: 2 },
    ]);
    // Simulate an owner that took job a and died: a is active, without a lock.
    const waitKey = `${prefix}:${q}:wait`;
    const moved = await redis.rpoplpush(waitKey, `${prefix}:${q}:active`);
    expect(moved).toBe('j_a');
    const received: string[] = [];
    const consumer = queue.consume(q, async (job) => {
      received.push(job.id);
    });
    await waitFor(() => received.length === 2);
    expect(received).toEqual(['a', 'b']);
    await consumer.close();
  });
});
