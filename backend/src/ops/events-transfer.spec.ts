import Database from 'better-sqlite3';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventStoreDbEventStore } from '../event-store/eventstoredb-event-store';
import { EventStoreDbStandIn } from '../event-store/standin/server';
import type { EventStore, EventToAppend, RecordedEvent } from '../event-store/event-store.port';
import { SqliteEventStore } from '../event-store/sqlite-event-store';
import { Stopped } from './cli-io';
import { runEvents } from './events-command';
import { exportEvents, importEvents, truncatedAway } from './events-transfer';
import type { Progress } from './progress';
import { captureCli } from '../testing/cli-capture';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'joy-transfer-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const event = (type: string, id: string, data: Record<string, unknown> = {}): EventToAppend => ({
  type,
  data,
  metadata: { eventId: id, schemaVersion: 2, correlationId: `c-${id}`, causationId: `k-${id}`, actorUserId: 'u1', occurredAt: '2026-11-20T08:00:00.000Z' },
});

/** A small install's log: several streams interleaved, a multi-event append, encrypted-looking personal data. */
async function fill(store: EventStore): Promise<void> {
  await store.appendToStream('user-1', [event('UserRegistered', 'e1', { name: { v: 2, iv: 'aXY=', ct: 'Y2lwaGVy' } })], { expectedVersion: 0 });
  await store.appendToStream('ratings-1', [event('RatingSubmitted', 'e2', { joy: 7 })], { expectedVersion: 0 });
  await store.appendToStream('user-2', [event('UserRegistered', 'e3', { name: null })], { expectedVersion: 0 });
  await store.appendToStream('ratings-1', [event('RatingSubmitted', 'e4', { joy: 8 }), event('RatingSubmitted', 'e5', { joy: 9 })], { expectedVersion: 1 });
  await store.appendToStream('group-9', [event('GroupCreated', 'e6', { name: 'Family' })], { expectedVersion: 0 });
  await store.appendToStream('user-1', [event('MemberJoined', 'e7', { groupId: '9' })], { expectedVersion: 1 });
}

/** What an event store holds, without its own positions (the target numbers its own). */
async function contents(store: EventStore): Promise<Omit<RecordedEvent, 'position'>[]> {
  const all = await store.readAll({ from: 0, limit: 10_000 });
  return all.map(({ position: _, ...rest }) => rest);
}

const silent: Progress = { start() {}, update() {}, stop() {} };

describe('events export', () => {
  let source: SqliteEventStore;
  beforeEach(async () => {
    source = new SqliteEventStore(join(dir, 'events.sqlite'));
    await fill(source);
  });
  afterEach(() => source.close());

  it('writes every event in global order as NDJSON, data and metadata exactly as stored, to a 0600 file', async () => {
    const file = join(dir, 'export.ndjson');
    const cli = captureCli({ DATA_DIR: dir });
    expect(await runEvents(['export', '--to', file], cli.io)).toBe(0);
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const stored = await source.readAll({ from: 0, limit: 100 });
    expect(lines).toEqual(
      stored.map((e) => ({ streamId: e.streamId, streamVersion: e.streamVersion, eventId: e.metadata.eventId, type: e.type, data: e.data, metadata: e.metadata, position: e.position })),
    );
    expect(lines.map((l) => l.eventId)).toEqual(['e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7']);
    expect(lines[0].data).toEqual({ name: { v: 2, iv: 'aXY=', ct: 'Y2lwaGVy' } }); // still encrypted
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(cli.err()).toContain('Exported 7 events (up to position 7)');
    expect(cli.err()).toContain('npm run keys -- export');
  });

  it('writes to stdout without --to, and refuses to replace an existing file', async () => {
    const cli = captureCli({ DATA_DIR: dir });
    expect(await runEvents(['export'], cli.io)).toBe(0);
    expect(cli.out().trim().split('\n')).toHaveLength(7);

    const file = join(dir, 'taken.ndjson');
    writeFileSync(file, 'mine');
    const again = captureCli({ DATA_DIR: dir });
    expect(await runEvents(['export', '--to', file], again.io)).toBe(1);
    expect(again.err()).toContain(`${file} already exists`);
    expect(readFileSync(file, 'utf8')).toBe('mine');
  });

  it('stops on an event it cannot read, pointing at verify, and leaves no file behind', async () => {
    const raw = new Database(join(dir, 'events.sqlite'));
    raw.prepare("UPDATE events SET data = '{torn' WHERE position = 3").run();
    raw.close();
    const file = join(dir, 'export.ndjson');
    const cli = captureCli({ DATA_DIR: dir });
    expect(await runEvents(['export', '--to', file], cli.io)).toBe(1);
    expect(cli.err()).toContain('Export failed (when an event cannot be read, npm run events -- verify names it)');
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}.partial`)).toBe(false);
  });

  it('says where the events are missing from', async () => {
    const cli = captureCli({ DATA_DIR: join(dir, 'nowhere') });
    expect(await runEvents(['export'], cli.io)).toBe(1);
    expect(cli.err()).toContain('No event store at');
  });
});

describe('events import into SQLite', () => {
  let file: string;
  let target: string;
  beforeEach(async () => {
    const source = new SqliteEventStore(join(dir, 'events.sqlite'));
    await fill(source);
    await source.close();
    file = join(dir, 'export.ndjson');
    expect(await runEvents(['export', '--to', file], captureCli({ DATA_DIR: dir }).io)).toBe(0);
    target = join(dir, 'target');
  });

  const open = (at: string) => new SqliteEventStore(join(at, 'events.sqlite'));

  it('recreates the same streams, versions, event ids, order and metadata', async () => {
    const cli = captureCli({ DATA_DIR: target });
    expect(await runEvents(['import', file], cli.io)).toBe(0);
    expect(cli.err()).toContain('Imported 7 events');
    const [from, to] = [open(dir), open(target)];
    expect(await contents(to)).toEqual(await contents(from));
    expect((await to.readStream('ratings-1')).map((e) => e.streamVersion)).toEqual([1, 2, 3]);
    await from.close();
    await to.close();
  });

  it('refuses a target that already holds events, and changes nothing in it', async () => {
    const existing = open(dir); // the source itself: not empty
    const before = await contents(existing);
    const cli = captureCli({ DATA_DIR: dir });
    expect(await runEvents(['import', file], cli.io)).toBe(1);
    expect(cli.err()).toContain('The target event store already holds events (up to position 7)');
    expect(cli.err()).toContain('--resume');
    expect(await contents(existing)).toEqual(before);
    await existing.close();
  });

  it('refuses a damaged file before writing anything, naming the line and the field', async () => {
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    const bad = JSON.parse(lines[4]);
    delete bad.type;
    writeFileSync(file.replace('export', 'bad'), [...lines.slice(0, 4), JSON.stringify(bad), ...lines.slice(5)].join('\n'));
    const cli = captureCli({ DATA_DIR: target });
    expect(await runEvents(['import', file.replace('export', 'bad')], cli.io)).toBe(1);
    expect(cli.err()).toContain('line 5: type must be a non-empty string: nothing was imported');
    const to = open(target);
    expect(await to.headPosition()).toBe(0);
    await to.close();
  });

  it('refuses a file whose stream versions do not follow, naming the line', async () => {
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    writeFileSync(join(dir, 'gap.ndjson'), [...lines.slice(0, 3), ...lines.slice(4)].join('\n')); // ratings-1 v2 missing
    const cli = captureCli({ DATA_DIR: target });
    expect(await runEvents(['import', join(dir, 'gap.ndjson')], cli.io)).toBe(1);
    expect(cli.err()).toContain('line 4: ratings-1 version 3 does not follow the target\'s version 1 of that stream');
  });

  it('--resume continues an interrupted import after the last event the target holds', async () => {
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    const half = join(dir, 'half.ndjson');
    writeFileSync(half, lines.slice(0, 4).join('\n')); // the import stopped after e4 (mid-append of e4, e5)
    expect(await runEvents(['import', half], captureCli({ DATA_DIR: target }).io)).toBe(0);

    const cli = captureCli({ DATA_DIR: target });
    expect(await runEvents(['import', file, '--resume'], cli.io)).toBe(0);
    expect(cli.err()).toContain('Imported 3 events (4 were already there)');
    const [from, to] = [open(dir), open(target)];
    expect(await contents(to)).toEqual(await contents(from));
    await from.close();
    await to.close();

    // Resuming a finished import writes nothing more.
    const done = captureCli({ DATA_DIR: target });
    expect(await runEvents(['import', file, '--resume'], done.io)).toBe(0);
    expect(done.err()).toContain('Imported 0 events (7 were already there)');
  });

  it('stops between two batches when asked (Ctrl-C), leaving a whole beginning of the file that --resume completes', async () => {
    const stop = new AbortController();
    mkdirSync(target);
    const to = open(target);
    const progress: Progress = { start() {}, update: () => stop.abort(), stop() {} };
    await expect(importEvents(to, file, { resume: false, progress, batchSize: 2, signal: stop.signal })).rejects.toThrow(Stopped);
    expect((await to.readAll({ from: 0, limit: 100 })).map((e) => e.metadata.eventId)).toEqual(['e1', 'e2']);
    await to.close();

    const cli = captureCli({ DATA_DIR: target });
    expect(await runEvents(['import', file, '--resume'], cli.io)).toBe(0);
    expect(cli.err()).toContain('Imported 5 events (2 were already there)');

    const asked = new AbortController();
    asked.abort();
    const stopped = captureCli({ DATA_DIR: dir });
    const out = join(dir, 'stopped.ndjson');
    expect(await runEvents(['export', '--to', out], { ...stopped.io, signal: asked.signal })).toBe(130);
    expect(stopped.err()).toContain(`Stopped: no export was written (${out} does not exist)`);
    expect(existsSync(out) || existsSync(`${out}.partial`)).toBe(false);
  });

  it('--resume refuses a file that does not hold the target\'s last event', async () => {
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(await runEvents(['import', file], captureCli({ DATA_DIR: target }).io)).toBe(0);
    const other = join(dir, 'other.ndjson');
    writeFileSync(other, lines.slice(0, 3).join('\n'));
    const cli = captureCli({ DATA_DIR: target });
    expect(await runEvents(['import', other, '--resume'], cli.io)).toBe(1);
    expect(cli.err()).toContain("The target's last event (e7, user-1 version 2) is not in");
  });
});

describe('events import into EventStoreDB (the adapter through the official client, on the gRPC stand-in)', () => {
  it('recreates the streams, versions, ids and metadata in order; a second import is refused; --resume finishes one', async () => {
    const source = new SqliteEventStore(join(dir, 'events.sqlite'));
    await fill(source);
    const file = join(dir, 'export.ndjson');
    expect(await runEvents(['export', '--to', file], captureCli({ DATA_DIR: dir }).io)).toBe(0);

    const server = await EventStoreDbStandIn.start();
    const esdb = new EventStoreDbEventStore(server.url);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    writeFileSync(join(dir, 'half.ndjson'), lines.slice(0, 5).join('\n'));
    expect(await importEvents(esdb, join(dir, 'half.ndjson'), { resume: false, progress: silent, batchSize: 2 })).toEqual({ imported: 5, skipped: 0 });
    await expect(importEvents(esdb, file, { resume: false, progress: silent })).rejects.toThrow('already holds events');
    expect(await importEvents(esdb, file, { resume: true, progress: silent })).toEqual({ imported: 2, skipped: 5 });

    expect(await contents(esdb)).toEqual(await contents(source));
    // EventStoreDB's own ids are the ones the adapter derives from Joy's event ids, so a retried append is recognised.
    const ids = server.log.records
      .filter((r) => r.kind === 'event' && !r.type.startsWith('$'))
      .map((r) => (JSON.parse(Buffer.from(r.metadata).toString('utf8')) as { eventId: string }).eventId);
    expect(ids).toEqual(['e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7']);
    await esdb.close();
    await server.stop();
    await source.close();
  });
});

describe('events export from EventStoreDB (the adapter through the official client, on the gRPC stand-in)', () => {
  it('leaves out the events truncated away from a rewritten stream; SQLite takes the stream with its versions', async () => {
    const [server, empty] = [await EventStoreDbStandIn.start(), await EventStoreDbStandIn.start()];
    const esdb = new EventStoreDbEventStore(server.url);
    // A stream the personal-data migration rewrote: plaintext originals, their copies, truncated before the copies.
    await esdb.appendToStream('user-1', [event('UserRegistered', 'e1', { firstName: 'Ada' }), event('UserProfileUpdated', 'e2', { firstName: 'Ada L' })], { expectedVersion: 0 });
    await esdb.appendToStream('ratings-1', [event('RatingSubmitted', 'e3', { joy: 7 })], { expectedVersion: 0 });
    await esdb.appendToStream('user-1', [event('UserRegistered', 'rekey-e1', { firstName: { ct: 'x' } }), event('UserProfileUpdated', 'rekey-e2', { firstName: { ct: 'y' } })], { expectedVersion: 2 });
    await esdb.truncateBefore('user-1', 3);

    let text = '';
    const result = await exportEvents(esdb, (t) => void (text += t), { progress: silent, hidden: truncatedAway(esdb) });
    expect(result).toMatchObject({ count: 3, hidden: 2 });
    const lines = text.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.eventId, l.streamVersion])).toEqual([['e3', 1], ['rekey-e1', 3], ['rekey-e2', 4]]);
    expect(text).not.toContain('Ada'); // the plaintext originals stay behind

    const file = join(dir, 'from-esdb.ndjson');
    writeFileSync(file, text);
    const target = new SqliteEventStore(join(dir, 'events.sqlite'));
    expect(await importEvents(target, file, { resume: false, progress: silent })).toEqual({ imported: 3, skipped: 0 });
    expect(await target.readStream('user-1')).toEqual(
      (await esdb.readStream('user-1')).map((e, i) => ({ ...e, position: [2, 3][i] })),
    );
    // The stream goes on from its version, as it would on EventStoreDB.
    await target.appendToStream('user-1', [event('UserProfileUpdated', 'e9')], { expectedVersion: 4 });

    // EventStoreDB cannot take a stream that starts past version 1: the import says so.
    const other = new EventStoreDbEventStore(empty.url);
    await expect(importEvents(other, file, { resume: false, progress: silent })).rejects.toThrow(
      'line 2: user-1 starts at version 3 in the file (its earlier events were truncated in the source EventStoreDB)',
    );
    await Promise.all([esdb.close(), other.close(), target.close()]);
    await Promise.all([server.stop(), empty.stop()]);
  });
});
