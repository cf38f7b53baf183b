import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredDoc } from './read-model-store.port';
import { SqliteReadModelStore } from './sqlite-read-model-store';

/*
 * The SQLite read models against a model of what they promise (a map of documents with their positions), over
 * random sequences of writes, reads, queries, commits, bulk loads (with the writer thread), drops and restarts,
 * with a tiny read cache and commits every few writes: the states where a document is pending, being written by
 * the writer thread, cached, forgotten or only in the file all come up. A start-up build once answered a document
 * older than the one it had written (fixed 11-26); this looks for any such answer. FUZZ_RUNS=n runs more cases.
 */

type Tag = 'a' | 'b' | 'c';
interface Doc {
  tag: Tag | Tag[];
  n: number;
}
const COLLECTIONS = ['plain', 'indexed'] as const;
type Collection = (typeof COLLECTIONS)[number];

type Write = { id: number; doc: Doc | null; stale: boolean };
type Op =
  | { kind: 'put'; c: Collection; write: Write }
  | { kind: 'bulkPut'; c: Collection; writes: Write[] }
  | { kind: 'get'; c: Collection; id: number }
  | { kind: 'find'; c: Collection; tag: Tag | null }
  | { kind: 'checkpoint'; value: number }
  | { kind: 'flush' }
  | { kind: 'release' }
  | { kind: 'tick' }
  | { kind: 'drop'; c: Collection }
  | { kind: 'reopen' }
  | { kind: 'bulk'; ops: Op[] };

const tag = fc.constantFrom<Tag>('a', 'b', 'c');
const doc: fc.Arbitrary<Doc> = fc.record({ tag: fc.oneof(tag, fc.uniqueArray(tag, { maxLength: 3 })), n: fc.nat(99) });
const write: fc.Arbitrary<Write> = fc.record({ id: fc.nat(11), doc: fc.option(doc, { freq: 5 }), stale: fc.boolean() }).map((w) => ({ ...w, stale: w.stale && w.id % 3 === 0 }));
const collection = fc.constantFrom<Collection>(...COLLECTIONS);

const leafOps = (insideBulk: boolean): fc.Arbitrary<Op>[] => [
  fc.record({ kind: fc.constant('put' as const), c: collection, write }),
  fc.record({ kind: fc.constant('bulkPut' as const), c: collection, writes: fc.array(write, { maxLength: 8 }) }),
  fc.record({ kind: fc.constant('get' as const), c: collection, id: fc.nat(11) }),
  fc.record({ kind: fc.constant('find' as const), c: collection, tag: fc.option(tag, { nil: null }) }),
  fc.record({ kind: fc.constant('checkpoint' as const), value: fc.nat(1000) }),
  fc.constant<Op>({ kind: 'flush' }),
  fc.constant<Op>({ kind: 'tick' }),
  fc.record({ kind: fc.constant('drop' as const), c: collection }),
  ...(insideBulk ? [fc.constant<Op>({ kind: 'release' })] : [fc.constant<Op>({ kind: 'reopen' })]),
];
const bulkOp: fc.Arbitrary<Op> = fc.record({ kind: fc.constant('bulk' as const), ops: fc.array(fc.oneof(...leafOps(true)), { maxLength: 40 }) });
const ops = fc.array(fc.oneof({ arbitrary: fc.oneof(...leafOps(false)), weight: 3 }, { arbitrary: bulkOp, weight: 1 }), { maxLength: 30 });

/** What the store promises: each document's last accepted write (a tombstone when null), and the checkpoint. */
class Model {
  docs = new Map<Collection, Map<string, { doc: Doc | null; position: number }>>(COLLECTIONS.map((c) => [c, new Map()]));
  checkpoint = 0;

  put(c: Collection, id: string, doc: Doc | null, position: number): boolean {
    const had = this.docs.get(c)!.get(id);
    if (had && had.position >= position) return false;
    this.docs.get(c)!.set(id, { doc, position });
    return true;
  }

  get(c: Collection, id: string): StoredDoc | null {
    const had = this.docs.get(c)!.get(id);
    return had?.doc ? { ...had.doc, _id: id, _position: had.position } : null;
  }

  find(c: Collection, wanted: Tag | null): StoredDoc[] {
    const found: StoredDoc[] = [];
    for (const id of this.docs.get(c)!.keys()) {
      const d = this.get(c, id);
      if (d && (wanted === null || (Array.isArray(d.tag) ? d.tag.includes(wanted) : d.tag === wanted))) found.push(d);
    }
    return byId(found);
  }
}

const byId = (docs: StoredDoc[]) => [...docs].sort((a, b) => (a._id < b._id ? -1 : 1));
const tick = () => new Promise((resolve) => setImmediate(resolve));

async function run(settings: { maxPending: number; cacheSize: number }, script: Op[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'joy-read-models-model-'));
  const file = join(dir, 'read-models.sqlite');
  const open = async () => {
    const opened = new SqliteReadModelStore(file, { flushMs: 60_000, ...settings });
    await opened.ensureIndex('indexed', 'tag');
    return opened;
  };
  const model = new Model();
  let store = await open();
  let position = 0;
  /** A write's position: the next one, or (stale) one its document may already be past. */
  const positionOf = (w: Write) => (w.stale ? Math.max(1, position - 3) : ++position);
  const step = async (op: Op): Promise<void> => {
    switch (op.kind) {
      case 'put': {
        const at = positionOf(op.write);
        expect(await store.put(op.c, `d${op.write.id}`, op.write.doc, at)).toBe(model.put(op.c, `d${op.write.id}`, op.write.doc, at));
        return;
      }
      case 'bulkPut': {
        // One entry per id, as a working set writes them.
        const entries = [...new Map(op.writes.map((w) => [w.id, w])).values()].map((w) => ({ id: `d${w.id}`, doc: w.doc, position: positionOf(w) }));
        const accepted = entries.filter((e) => model.put(op.c, e.id, e.doc, e.position)).length;
        expect(await store.bulkPut(op.c, entries)).toBe(accepted);
        return;
      }
      case 'get':
        expect(await store.get(op.c, `d${op.id}`)).toEqual(model.get(op.c, `d${op.id}`));
        return;
      case 'find':
        expect(byId(await store.find(op.c, op.tag === null ? {} : { tag: op.tag }))).toEqual(model.find(op.c, op.tag));
        return;
      case 'checkpoint':
        await store.setCheckpoint('p', (model.checkpoint = op.value));
        expect(await store.getCheckpoint('p')).toBe(op.value);
        return;
      case 'flush':
        store.flush();
        return;
      case 'release':
        store.releaseWritten();
        return;
      case 'tick':
        await tick();
        return;
      case 'drop':
        await store.dropCollection(op.c);
        model.docs.set(op.c, new Map());
        return;
      case 'reopen':
        await store.close();
        store = await open();
        return;
      case 'bulk':
        await store.bulk(async () => {
          for (const inner of op.ops) await step(inner);
        }, settings.maxPending);
    }
  };
  try {
    for (const op of script) await step(op);
    // Everything the model holds, as this store answers it and as the file gives it to the next start.
    const everything = async (s: SqliteReadModelStore) => {
      const docs: Record<string, unknown> = {};
      for (const c of COLLECTIONS) for (let id = 0; id < 12; id++) docs[`${c}/d${id}`] = await s.get(c, `d${id}`);
      return { docs, checkpoint: await s.getCheckpoint('p'), indexed: byId(await s.find('indexed', { tag: 'a' })) };
    };
    const expected: Record<string, unknown> = {};
    for (const c of COLLECTIONS) for (let id = 0; id < 12; id++) expected[`${c}/d${id}`] = model.get(c, `d${id}`);
    const wanted = { docs: expected, checkpoint: model.checkpoint, indexed: model.find('indexed', 'a') };
    expect(await everything(store)).toEqual(wanted);
    await store.close();
    const reopened = await open();
    expect(await everything(reopened)).toEqual(wanted);
    await reopened.close();
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('SqliteReadModelStore against a model of its promises', () => {
  it('answers every read, query and restart as the model does, whatever the order of writes, commits and loads', async () => {
    await fc.assert(
      fc.asyncProperty(fc.record({ maxPending: fc.integer({ min: 1, max: 8 }), cacheSize: fc.integer({ min: 1, max: 6 }) }), ops, run),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 150) },
    );
  }, 120_000);
});
