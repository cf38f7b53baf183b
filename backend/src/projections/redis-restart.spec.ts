import { Logger } from '@nestjs/common';
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../bench/app-process';
import { SqliteEventStore } from '../event-store/sqlite-event-store';
import { BullMqQueue } from '../queue/bullmq-queue';
import { InMemoryReadModelStore } from '../read-models/in-memory-read-model-store';
import { ProjectionPipeline } from './projection-pipeline';
import type { Projection } from './projector';
import { waitUntil } from '../testing/wait';

jest.setTimeout(60_000);
Logger.overrideLogger(false);

const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A private Redis on a free port, without persistence: a restart loses every queued job. */
async function startRedis(port: number): Promise<ChildProcess> {
  const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    if (spawnSync('redis-cli', ['-p', String(port), 'ping']).stdout?.toString().includes('PONG')) return redis;
    await sleep(50);
  }
  throw new Error('redis-server did not start');
}

function countingProjection() {
  const applied = new Map<number, number>();
  const projection: Projection = {
    name: 'restart-tally',
    projectors: [
      {
        collection: 'restart-tally',
        eventTypes: ['Counted'],
        ids: (event) => [String(event.position)],
        evolve: (_doc, event) => {
          applied.set(event.position, (applied.get(event.position) ?? 0) + 1);
          return { at: event.position };
        },
      },
    ],
  };
  return { projection, applied };
}

const counted = (i: number) => ({
  type: 'Counted',
  data: { i },
  metadata: { eventId: `restart-${i}-${Math.random()}`, schemaVersion: 1, correlationId: 'c', causationId: 'c', actorUserId: 'u', occurredAt: new Date().toISOString() },
});

(hasRedisServer ? describe : describe.skip)('the BullMQ pipeline across a Redis restart that loses every queued job', () => {
  it('applies every event exactly once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'joy-redis-restart-'));
    const port = await freePort();
    let redis = await startRedis(port);
    const store = new SqliteEventStore(join(dir, 'events.sqlite'));
    const readModels = new InMemoryReadModelStore();
    const queue = new BullMqQueue(`redis://127.0.0.1:${port}`, `restart-${process.pid}`);
    const { projection, applied } = countingProjection();
    const pipeline = new ProjectionPipeline(store, readModels, queue, [projection], { consumer: { maxAttempts: 1000, backoffMs: 50 } });
    try {
      await pipeline.start();
      let version = 0;
      const write = async (from: number, to: number) => {
        for (let i = from; i < to; i++) {
          await store.appendToStream('tally-1', [counted(i)], { expectedVersion: version });
          version += 1;
        }
      };
      await write(0, 100);
      // Redis dies with jobs queued, and comes back empty.
      redis.kill('SIGKILL');
      await new Promise((r) => redis.once('exit', r));
      await write(100, 150);
      await sleep(500); // Redis stays down a while with the relay retrying: the outage itself, not a wait for something
      redis = await startRedis(port);
      await write(150, 200);

      await waitUntil(() => applied.size >= 200, 40_000, 100).catch(() => undefined); // the assertion names what is missing
      const missing = Array.from({ length: 200 }, (_, i) => i + 1).filter((p) => !applied.has(p));
      expect(missing).toEqual([]);
      expect([...applied.values()].every((n) => n === 1)).toBe(true);
      expect(await readModels.getCheckpoint('restart-tally')).toBeGreaterThanOrEqual(await store.headPosition());
    } finally {
      await pipeline.stop();
      await queue.close();
      await store.close();
      redis.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
