import { spawnSync } from 'node:child_process';
import { Redis } from 'ioredis';

/**
 * Polls `condition` until it holds; fails after `timeoutMs` (a liveness bound, not a performance check). Tests
 * wait for what they expect rather than sleep a fixed time.
 */
export async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs = 8000, pollMs = 5): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/**
 * Whether Redis answers a PING within about a second. Jest registers tests synchronously, so a child process
 * asks (any RESP reply, even an auth error, means a Redis is there).
 */
export function redisAnswers(url: string): boolean {
  const { hostname, port } = new URL(url);
  const probe = `
    const socket = require('node:net').connect(${Number(port) || 6379}, ${JSON.stringify(hostname || '127.0.0.1')});
    socket.setTimeout(900, () => process.exit(1));
    socket.on('error', () => process.exit(1));
    socket.on('connect', () => socket.write('PING\\r\\n'));
    socket.on('data', (d) => process.exit(/^[+-]/.test(d.toString()) ? 0 : 1));`;
  return spawnSync(process.execPath, ['-e', probe], { timeout: 1500 }).status === 0;
}

/** Deletes every Redis key that starts with `prefix:` (what a test run left behind). */
export async function deleteRedisKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
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
