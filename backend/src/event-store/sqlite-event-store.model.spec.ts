import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppendResult, type EventToAppend, type ExpectedVersion, type RecordedEvent, WrongExpectedVersionError } from './event-store.port';
import { SqliteEventStore } from './sqlite-event-store';

/*
 * The SQLite event store against what it promises, over random rounds of appends sent at once (group commit):
 * to a few streams, with the stream's version, a stale one, 'any', or a retry of an earlier append (the same events
 * again), then reads and restarts. After every round: exactly the acknowledged events are stored, once each, every
 * stream numbered 1..n in global order, each append's events together and its answer naming them, a retry answered
 * as the first time, pages and stream suffixes as the whole log says, and the same after a restart. FUZZ_RUNS=n runs
 * more cases.
 */

const STREAMS = ['ratings-a', 'ratings-b', 'groups-c'] as const;

type Expect = 'current' | 'stale' | 'any' | 'retry';
interface Intent {
  stream: number;
  events: number;
  expect: Expect;
  /** For a retry: which earlier acknowledged append (modulo how many there are). */
  pick: number;
}
type Round = { kind: 'appends'; intents: Intent[] } | { kind: 'read'; limit: number; after: number } | { kind: 'reopen' };

const intent: fc.Arbitrary<Intent> = fc.record({
  stream: fc.nat(STREAMS.length - 1),
  events: fc.integer({ min: 1, max: 3 }),
  expect: fc.constantFrom<Expect>('current', 'current', 'stale', 'any', 'retry'),
  pick: fc.nat(),
});
const round: fc.Arbitrary<Round> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('appends' as const), intents: fc.array(intent, { minLength: 1, maxLength: 4 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('read' as const), limit: fc.integer({ min: 1, max: 7 }), after: fc.nat(6) }) },
  { weight: 1, arbitrary: fc.constant<Round>({ kind: 'reopen' }) },
);

interface Acknowledged {
  streamId: string;
  events: EventToAppend[];
  expected: ExpectedVersion;
  result: AppendResult;
}

async function run(rounds: Round[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'joy-events-model-'));
  const file = join(dir, 'events.sqlite');
  let store = new SqliteEventStore(file);
  let made = 0;
  const newEvents = (n: number): EventToAppend[] =>
    Array.from({ length: n }, () => {
      const eventId = `e${++made}`;
      return { type: 'Happened', data: { n: made }, metadata: { eventId, schemaVersion: 1, correlationId: eventId, causationId: eventId, actorUserId: 'system', occurredAt: new Date(0).toISOString() } };
    });
  const acknowledged: Acknowledged[] = [];
  const refusedIds = new Set<string>();
  const all = () => store.readAll({ from: 0, limit: 1_000_000 });
  const versionOf = async (streamId: string) => (await store.readStream(streamId)).at(-1)?.streamVersion ?? 0;

  /** Everything the store must hold now, checked against what it answers. */
  const check = async (): Promise<RecordedEvent[]> => {
    const log = await all();
    const ids = log.map((e) => e.metadata.eventId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(log.map((e) => e.position)).toEqual([...log.map((e) => e.position)].sort((a, b) => a - b));
    expect(new Set(ids)).toEqual(new Set(acknowledged.flatMap((a) => a.events.map((e) => e.metadata.eventId))));
    for (const id of refusedIds) expect(ids).not.toContain(id);
    for (const streamId of STREAMS) {
      const stream = log.filter((e) => e.streamId === streamId);
      expect(stream.map((e) => e.streamVersion)).toEqual(stream.map((_e, i) => i + 1));
      expect(await store.readStream(streamId)).toEqual(stream);
    }
    for (const a of acknowledged) {
      const at = log.findIndex((e) => e.metadata.eventId === a.events[0].metadata.eventId);
      const mine = log.filter((e) => e.streamId === a.streamId);
      const from = mine.findIndex((e) => e.metadata.eventId === a.events[0].metadata.eventId);
      expect(mine.slice(from, from + a.events.length).map((e) => e.metadata.eventId)).toEqual(a.events.map((e) => e.metadata.eventId));
      const last = mine[from + a.events.length - 1];
      expect(a.result).toEqual({ nextVersion: last.streamVersion, position: last.position });
      if (typeof a.expected === 'number') expect(log[at].streamVersion).toBe(a.expected + 1);
    }
    expect(await store.headPosition()).toBe(log.at(-1)?.position ?? 0);
    return log;
  };

  try {
    for (const r of rounds) {
      if (r.kind === 'reopen') {
        const before = await all();
        await store.close();
        store = new SqliteEventStore(file);
        expect(await all()).toEqual(before);
        continue;
      }
      if (r.kind === 'read') {
        const log = await all();
        const pages: RecordedEvent[] = [];
        for (let from = 0; ; ) {
          const page = await store.readAll({ from, limit: r.limit });
          expect(page.length).toBeLessThanOrEqual(r.limit);
          if (page.length === 0) break;
          pages.push(...page);
          from = page[page.length - 1].position;
        }
        expect(pages).toEqual(log);
        for (const streamId of STREAMS) {
          const stream = log.filter((e) => e.streamId === streamId);
          expect(await store.readStream(streamId, { afterVersion: r.after })).toEqual(stream.filter((e) => e.streamVersion > r.after));
        }
        continue;
      }
      // A round of appends sent at once: each decided on the versions as they were before the round.
      const versions = await Promise.all(STREAMS.map((s) => versionOf(s)));
      const sent = r.intents.map((i) => {
        if (i.expect === 'retry' && acknowledged.length > 0) {
          const earlier = acknowledged[i.pick % acknowledged.length];
          return { streamId: earlier.streamId, events: earlier.events, expected: earlier.expected, retryOf: earlier };
        }
        const current = versions[i.stream];
        const expected: ExpectedVersion = i.expect === 'any' ? 'any' : i.expect === 'stale' ? Math.max(0, current - 1) : current;
        return { streamId: STREAMS[i.stream], events: newEvents(i.events), expected, retryOf: null as Acknowledged | null };
      });
      const answers = await Promise.allSettled(sent.map((s) => store.appendToStream(s.streamId, s.events, { expectedVersion: s.expected })));
      answers.forEach((answer, i) => {
        const s = sent[i];
        if (s.retryOf) {
          // A retry of an acknowledged append is answered as it was the first time, and stores nothing.
          expect(answer).toEqual({ status: 'fulfilled', value: s.retryOf.result });
          return;
        }
        if (answer.status === 'fulfilled') acknowledged.push({ streamId: s.streamId, events: s.events, expected: s.expected, result: answer.value });
        else {
          expect(answer.reason).toBeInstanceOf(WrongExpectedVersionError);
          for (const e of s.events) refusedIds.add(e.metadata.eventId);
        }
      });
      // Sent alone, an append with its stream's version or 'any' is taken.
      if (sent.length === 1 && !sent[0].retryOf && (sent[0].expected === 'any' || sent[0].expected === versions[STREAMS.indexOf(sent[0].streamId as (typeof STREAMS)[number])])) {
        expect(answers[0].status).toBe('fulfilled');
      }
      await check();
    }
    await store.close();
    store = new SqliteEventStore(file);
    await check();
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('SqliteEventStore against a model of its promises', () => {
  it('stores exactly the acknowledged appends, once, in order, through concurrent appends, retries, reads and restarts', async () => {
    await fc.assert(fc.asyncProperty(fc.array(round, { maxLength: 25, size: 'max' }), run), { numRuns: Number(process.env.FUZZ_RUNS ?? 60) });
  }, 120_000);
});
