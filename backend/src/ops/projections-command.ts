import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SingleBar } from 'cli-progress';
import { PROJECTIONS } from '../projections/projections';
import { collectionsOf } from '../projections/projector';
import { queueName, RELAY_CHECKPOINT, RELAY_DUTY } from '../projections/pipeline/jobs';
import type { ProjectionStatus } from '../projections/pipeline/status';
import { BullMqQueue } from '../queue/bullmq-queue';
import { MongoReadModelStore } from '../read-models/mongo-read-model-store';
import {
  physicalName,
  rebuildKey,
  stoppedKey,
  versionKey,
  VersionedReadModelStore,
} from '../read-models/versioned-read-model-store';
import { openOrExplain, type CliIo, type EventSource } from './cli-io';
import { openEventSource } from './events-command';
import { rebuildAtNextStart } from './rebuild-at-start';
import type { HealthReport } from './health';

const USAGE = `usage: npm run projections -- status | rebuild <name>
  status           each projection's checkpoint, the head, the lag and the state
  rebuild <name>   builds a new version of a projection's read models from position 0 while the active one
                   serves, then switches to it (MongoDB; the running worker that owns the projection does it);
                   on the embedded default, at the next start of the app
  projections: ${PROJECTIONS.map((p) => p.name).join(', ')}
  With MONGO_URL (and EVENTSTORE_URL / REDIS_URL as the app has them) the stores are read directly; on the
  embedded default the running app is asked at http://localhost:$PORT/api/health/details (with the ops token in DATA_DIR).`;

export interface ProjectionsCliOptions {
  /** How long `rebuild` waits for a worker to pick the request up (ms). */
  pickUpTimeoutMs?: number;
  /** How often `rebuild` looks at the progress (ms). */
  pollMs?: number;
}

/** `projections status | rebuild <name>`; resolves to the exit code. */
export async function runProjections(argv: string[], io: CliIo, options: ProjectionsCliOptions = {}): Promise<number> {
  const [command, ...args] = argv;
  if (command === 'status' && args.length === 0) return io.env.MONGO_URL ? statusFromStores(io) : statusFromApp(io);
  if (command === 'rebuild' && args.length === 1) {
    const name = args[0];
    if (!PROJECTIONS.some((p) => p.name === name)) {
      io.err(`Unknown projection ${name}; one of: ${PROJECTIONS.map((p) => p.name).join(', ')}\n`);
      return 2;
    }
    if (!io.env.MONGO_URL) return markForRebuildAtStart(name, io);
    return rebuildThroughWorker(name, io, options);
  }
  const asked = command === undefined || command === 'help' || command === '--help';
  io.err(`${asked ? '' : `unknown command ${argv.join(' ')}\n`}${USAGE}\n`);
  return asked ? 0 : 2;
}

/**
 * The embedded default: the one app process builds its read models at start (pipeline/catch-up.ts). Forgetting the
 * code version a projection was built with in `read-models.sqlite` makes the next start rebuild it from position 0
 * (the port answers 503 "starting" meanwhile). Safe while the app runs: it writes that checkpoint only at start.
 */
async function markForRebuildAtStart(name: string, io: CliIo): Promise<number> {
  if (!(await rebuildAtNextStart(io.env.DATA_DIR, [name]))) {
    io.out(`No read models in ${join(resolve(io.env.DATA_DIR ?? './data'), 'read-models.sqlite')} yet: the app builds them at its first start. Nothing to do here.\n`);
    return 0;
  }
  io.out(
    `Embedded default: ${name} is rebuilt from the events at the next start of the app (restart it: npm start).\n` +
      'Meanwhile the API answers 503 "starting" and the log shows the progress.\n',
  );
  return 0;
}

/** A plain text table: a header row, then the rows, columns padded to their widest cell. */
export function table(rows: readonly (readonly (string | number)[])[]): string {
  const cells = rows.map((row) => row.map(String));
  const widths = cells[0].map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  return cells.map((row) => row.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd()).join('\n') + '\n';
}

/** The ops token the running app wrote next to its data (or OPS_TOKEN, when the app was given one). */
function opsToken(env: NodeJS.ProcessEnv): string | null {
  if (env.OPS_TOKEN) return env.OPS_TOKEN;
  const file = join(resolve(env.DATA_DIR ?? './data'), 'ops-token');
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : null;
}

async function statusFromApp(io: CliIo): Promise<number> {
  const url = `http://localhost:${io.env.PORT || 3000}/api/health/details`;
  const token = opsToken(io.env);
  if (!token) {
    io.err(`No ops token in ${join(resolve(io.env.DATA_DIR ?? './data'), 'ops-token')}: set DATA_DIR to the app's data directory (or OPS_TOKEN to its token).\n`);
    return 1;
  }
  let report: HealthReport;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5000), headers: { authorization: `Bearer ${token}` } });
    if (res.status === 404) throw new Error('the app refused the ops token: is DATA_DIR the one of the app on this PORT?');
    report = (await res.json()) as HealthReport;
  } catch (err) {
    io.err(
      `No app answered at ${url} (${(err as Error).message}).\n` +
        'On the embedded default the running app is asked (its read models are in DATA_DIR/read-models.sqlite): start it (npm start) or set PORT\n' +
        'to its port. With MONGO_URL set, the stores are read directly instead.\n',
    );
    return 1;
  }
  io.out(`Embedded default: read models in SQLite (read-models.sqlite); asked ${url}\n\n`);
  io.out(statusTable(report.projections));
  for (const [part, state] of Object.entries({ 'event store': report.eventStore, events: report.events, keys: report.keys })) {
    if (state && !state.ok) io.out(`\n${part}: ${state.error}\n`);
  }
  io.out(`\nstatus: ${report.status}\n`);
  return 0;
}

function statusTable(projections: readonly ProjectionStatus[]): string {
  return table([
    ['projection', 'checkpoint', 'head', 'lag', 'state'],
    ...projections.map((p) => [p.name, p.checkpoint, p.head, p.lag, p.error ? `${p.state}: ${p.error}` : p.state]),
  ]);
}

interface Stores {
  readModels: VersionedReadModelStore;
  events: EventSource;
  queue: BullMqQueue | null;
  close(): Promise<void>;
}

function openStores(env: NodeJS.ProcessEnv): Stores {
  const readModels = new VersionedReadModelStore(
    new MongoReadModelStore(env.MONGO_URL!),
    PROJECTIONS.map((p) => ({ name: p.name, collections: collectionsOf(p) })),
    { refreshMs: 0 },
  );
  const events = openEventSource(env);
  const queue = env.REDIS_URL ? new BullMqQueue(env.REDIS_URL, env.REDIS_PREFIX || 'joy') : null;
  return {
    readModels,
    events,
    queue,
    async close() {
      await queue?.close();
      await events.close();
      await readModels.close();
    },
  };
}

async function statusFromStores(io: CliIo): Promise<number> {
  const stores = openOrExplain(io, () => openStores(io.env));
  if (!stores) return 1;
  const { readModels, events, queue } = stores;
  try {
    await readModels.refresh();
    const head = await events.headPosition();
    const relayed = await readModels.getCheckpoint(RELAY_CHECKPOINT);
    const relayHolder = queue ? await queue.leaseHolder(RELAY_DUTY) : null;
    const rows: (string | number)[][] = [['projection', 'version', 'checkpoint', 'head', 'lag', ...(queue ? ['queued'] : []), 'state']];
    for (const p of PROJECTIONS) {
      const inner = readModels.inner;
      const [checkpoint, stopped, requested] = await Promise.all([
        readModels.getCheckpoint(p.name),
        inner.getCheckpoint(stoppedKey(p.name)),
        inner.getCheckpoint(rebuildKey(p.name)),
      ]);
      const version = readModels.activeVersion(p.name);
      const holder = queue ? await queue.leaseHolder(queueName(p.name)) : null;
      let state = stopped > 0 ? `stopped at position ${stopped} (see the worker's log and /health)` : queue ? (holder ? `running on ${holder}` : 'no worker owns it') : 'unknown (no REDIS_URL)';
      if (requested > version) {
        const building = await inner.getCheckpoint(physicalName(p.name, requested));
        state += `; rebuilding version ${requested} (at ${building})`;
      }
      rows.push([p.name, version, checkpoint, head, Math.max(0, head - checkpoint), ...(queue ? [await queue.backlog(queueName(p.name))] : []), state]);
    }
    io.out(table(rows));
    io.out(`\nrelay: at ${relayed} of ${head}${queue ? `, ${relayHolder ? `running on ${relayHolder}` : 'no worker runs it'}` : ''}\n`);
    if (io.env.EVENTSTORE_URL) io.out('(EventStoreDB positions are log offsets: lag is in positions, not events)\n');
    return 0;
  } catch (err) {
    io.err(`${(err as Error).message}\n`);
    return 1;
  } finally {
    await stores.close();
  }
}

/**
 * The rebuild request goes through the read-model store: the CLI writes the version it wants
 * (`$rebuild:<name>`); the worker that owns the projection's queue lease notices it within a second, builds
 * the version in the background and switches under its consumer's lock (see ProjectionPipeline.rebuild for
 * why nothing is lost or reordered). The CLI shows progress from the new version's checkpoint.
 */
async function rebuildThroughWorker(name: string, io: CliIo, options: ProjectionsCliOptions): Promise<number> {
  const pickUpTimeoutMs = options.pickUpTimeoutMs ?? 60_000;
  const pollMs = options.pollMs ?? 500;
  const stores = openOrExplain(io, () => openStores(io.env));
  if (!stores) return 1;
  const { readModels, events } = stores;
  const inner = readModels.inner;
  const unit = io.env.EVENTSTORE_URL ? 'positions/s' : 'events/s';
  let bar: SingleBar | null = null;
  try {
    const active = await inner.getCheckpoint(versionKey(name));
    const pending = await inner.getCheckpoint(rebuildKey(name));
    const version = pending > active ? pending : active + 1;
    if (pending > active) io.out(`A rebuild of ${name} into version ${version} is already requested: following it.\n`);
    else await inner.setCheckpoint(rebuildKey(name), version);
    io.out(`Rebuilding ${name} into version ${version} (version ${active} keeps serving until the switch)\n`);

    const requestedAt = Date.now();
    let last = { position: 0, at: Date.now() };
    let speed = 0;
    bar = new SingleBar({
      format: `${name} v${version} |{bar}| {percentage}% | position {value}/{total} | {speed} ${unit}`,
      stream: process.stderr,
      hideCursor: true,
    });
    bar.start(await events.headPosition(), 0, { speed: 0 });
    for (;;) {
      if (io.signal?.aborted) {
        bar.stop();
        io.out(`Stopped watching; the worker goes on with the rebuild (run status to follow it).\n`);
        return 130;
      }
      const [position, head, switched] = await Promise.all([
        inner.getCheckpoint(physicalName(name, version)),
        events.headPosition(),
        inner.getCheckpoint(versionKey(name)),
      ]);
      const now = Date.now();
      if (position !== last.position) {
        speed = Math.round(((position - last.position) * 1000) / Math.max(1, now - last.at));
        last = { position, at: now };
      }
      bar.setTotal(Math.max(head, position, 1));
      bar.update(position, { speed });
      if (switched >= version) {
        bar.stop();
        io.out(`Done: ${name} now serves version ${version} (built up to position ${position}); api processes switch within a second or two.\n`);
        return 0;
      }
      if (position === 0 && now - requestedAt > pickUpTimeoutMs) {
        bar.stop();
        io.err(
          `No worker picked the request up in ${Math.round(pickUpTimeoutMs / 1000)} s. Is a worker running with the same MONGO_URL\n` +
            `(and REDIS_URL)? The request stays pending: the worker that owns ${name} will do it when it starts.\n`,
        );
        return 1;
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  } catch (err) {
    bar?.stop();
    io.err(`${(err as Error).message}\n`);
    return 1;
  } finally {
    await stores.close();
  }
}
