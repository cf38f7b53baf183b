import { spawnSync } from 'node:child_process';
import { Redis } from 'ioredis';
import { BullMqQueue } from './bullmq-queue';
import { describeQueueConformance } from './queue.conformance';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Jest registers tests synchronously, so whether Redis answers is decided before: a child process tries a
 * PING for at most ~1 s (any RESP reply, even an auth error, means a Redis is there).
 */
function redisAnswers(url: string): boolean {
  const { hostname, port } = new URL(url);
  const probe = `
    const socket = require('node:net').connect(${Number(port) || 6379}, ${JSON.stringify(hostname || '127.0.0.1')});
    socket.setTimeout(900, () => process.exit(1));
    socket.on('error', () => process.exit(1));
    socket.on('connect', () => socket.write('PING\\r\\n'));
    socket.on('data', (d) => process.exit(/^[+-]/.test(d.toString()) ? 0 : 1));`;
  return spawnSync(process.execPath, ['-e', probe], { timeout: 1500 }).status === 0;
}

const prefix = `joytest-${process.pid}-${Date.now().toString(36)}`;

/** Deletes every key of this run's prefix. */
async function deleteKeys(): Promise<void> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    await redis.quit();
  }
}

describeQueueConformance(
  'BullMQ',
  redisAnswers(redisUrl) ? async () => ({ queue: new BullMqQueue(redisUrl, prefix), cleanup: deleteKeys }) : null,
);
