import { expectRejection } from '../testing/refusals';
import { isoWeekOf } from '@joy/domain';
import { Logger } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decideAndAppend } from '../event-store/decider';
import {
  WrongExpectedVersionError,
  type EventMetadata,
  type EventStore,
  type EventToAppend,
  type RecordedEvent,
} from '../event-store/event-store.port';
import { EventStoreDbEventStore } from '../event-store/eventstoredb-event-store';
import { EventStoreDbStandIn } from '../event-store/standin/server';
import {
  GetGroupHandler,
  GetGroupMembersHandler,
  GetGroupMembersQuery,
  GetGroupQuery,
  GetMyGroupsHandler,
  GetMyGroupsQuery,
} from '../groups/groups.queries';
import { membershipDecider, MESSAGES } from '../groups/groups.decider';
import { userStreamCodec } from '../identity/accounts';
import { IDENTITY_MESSAGES, identityDecider } from '../identity/identity.decider';
import { type KeyStore } from '../identity/key-store';
import { SqliteKeyStore } from '../identity/key-stores';
import { sealPersonalData } from '../identity/personal-data';
import { readProfiles } from '../identity/profiles';
import { weeklyActivityId, type GroupMemberStatsDoc, type GroupWeeklyActivityDoc } from '../projections/group-stats.projector';
import type { GroupDoc, MembershipsDoc } from '../projections/groups.projector';
import { applyEvent } from '../projections/pipeline/applier';
import { PROJECTIONS } from '../projections/projections';
import { InMemoryReadModelStore } from '../read-models/in-memory-read-model-store';
import { containerRuntimeMayExist, eventStoreDbUrl, TestServer } from '../testing/containers';
import { contractViolations } from '../testing/event-contract';
import {
  migratePersonalDataInEventStoreDb,
  MIGRATION_CHECKPOINT_STREAM,
  nextRekeyStep,
  type MigratableEventStore,
} from './personal-data-migration';

jest.setTimeout(180_000);
Logger.overrideLogger(false);

/*
 * The EventStoreDB migration of plaintext identity events (schemaVersion 1): re-keyed by copying every event of
 * their streams, then truncating the streams before the copies. Against the gRPC stand-in (always, through the
 * official client),
 * and against a real server when EVENTSTORE_URL is set (or a container runtime is there).
 */

const ISSUER = 'https://id.example/oidc';
/** Every plaintext personal value of the fixtures: none may be left in the streams after the migration. */
const PLAINTEXT = [
  'augusta.byronfield@example.com',
  'Augusta',
  'example.com/augusta.png',
  'bartholomew.quince@example.com',
  'Bartholomew',
  'example.com/bart.png',
  'cleopatra.vance@example.com',
  'Cleopatra',
  'dante.alighieri@example.com',
  'Dante',
];
const NOW = new Date('2026-10-09T12:00:00.000Z');

interface World {
  ada: string;
  bart: string;
  /** Deleted before the migration: her key is destroyed. */
  cleo: string;
  /** Registered after encryption came in: his identity event is already schemaVersion 2. */
  dan: string;
  g1: string;
  g2: string;
  /** Every stream of the world. */
  streams: string[];
  userStreams: string[];
}

let sequence = 0;
const meta = (eventId: string, actorUserId: string, occurredAt: string, schemaVersion = 1): EventMetadata => ({
  eventId,
  schemaVersion,
  correlationId: `c-${eventId}`,
  causationId: `c-${eventId}`,
  actorUserId,
  occurredAt,
});

/**
 * The events an older version of the app wrote (identity events v1, in plaintext), then one registration of the
 * current version (v2): four people, two groups, ratings, one account deleted (key destroyed).
 */
async function seedWorld(store: EventStore, keys: KeyStore, run: string): Promise<World> {
  const id = (name: string) => `${name}${run}`;
  const w = { ada: id('ada'), bart: id('bart'), cleo: id('cleo'), dan: id('dan'), g1: id('g1'), g2: id('g2') };
  const at = (day: number, hour = 8) => new Date(Date.UTC(2026, 9, day, hour)).toISOString();
  const append = async (streamId: string, events: [string, Record<string, unknown>, string, string?][]) => {
    const current = await store.readStream(streamId);
    const batch: EventToAppend[] = events.map(([type, data, occurredAt, actor]) => ({
      type,
      data,
      metadata: meta(`${run}-e${++sequence}`, actor ?? String(data.userId ?? data.createdBy ?? 'system'), occurredAt),
    }));
    await store.appendToStream(streamId, batch, { expectedVersion: current.at(-1)?.streamVersion ?? 0 });
  };
  const registered = (userId: string, email: string, firstName: string, profileImageUrl: string | null) => ({
    userId, issuer: ISSUER, subject: email, email, firstName, profileImageUrl,
  });
  const rating = (userId: string, n: number, joy: number, day: number) => ({
    ratingId: `${userId}-r${n}`, userId, relationships: 3, health: 3, purpose: 3, growth: 3, joy,
    overallScore: (12 + joy) / 5, submittedAt: at(day),
  });
  const joined = (userId: string, groupId: string, role: string, day: number) => ({
    groupId, userId, role, joinedAt: at(day), ...(role === 'member' ? { inviteCode: 'ABCDEFGH' } : {}),
  });
  const group = (groupId: string, name: string, day: number) => ({
    groupId, name, description: null, inviteCode: 'ABCDEFGH', createdBy: w.ada, createdAt: at(day),
  });

  await append(`user-${w.ada}`, [['UserRegistered', registered(w.ada, 'augusta.byronfield@example.com', 'Augusta', null), at(1)]]);
  await append(`user-${w.bart}`, [['UserRegistered', registered(w.bart, 'bartholomew.quince@example.com', 'Bartholomew', 'https://example.com/bart.png'), at(1, 9)]]);
  await append(`user-${w.cleo}`, [['UserRegistered', registered(w.cleo, 'cleopatra.vance@example.com', 'Cleopatra', null), at(1, 10)]]);
  await append(`group-${w.g1}`, [['GroupCreated', group(w.g1, 'Morning people', 2), at(2)]]);
  await append(`user-${w.ada}`, [['MemberJoined', joined(w.ada, w.g1, 'creator', 2), at(2)]]);
  await append(`user-${w.bart}`, [['MemberJoined', joined(w.bart, w.g1, 'member', 3), at(3)]]);
  await append(`user-${w.cleo}`, [['MemberJoined', joined(w.cleo, w.g1, 'member', 3), at(3, 9)]]);
  await append(`ratings-${w.ada}`, [['RatingSubmitted', rating(w.ada, 1, 4, 4), at(4)]]);
  await append(`ratings-${w.bart}`, [['RatingSubmitted', rating(w.bart, 1, 1, 4), at(4, 9)]]);
  await append(`ratings-${w.cleo}`, [['RatingSubmitted', rating(w.cleo, 1, 5, 4), at(4, 10)]]);
  await append(`user-${w.ada}`, [['UserProfileUpdated', { userId: w.ada, email: 'augusta.byronfield@example.com', firstName: 'Augustabelle', profileImageUrl: 'https://example.com/augusta.png' }, at(5)]]);
  await append(`user-${w.cleo}`, [
    ['MemberLeft', { groupId: w.g1, userId: w.cleo, reason: 'account_deleted', leftAt: at(6) }, at(6)],
    ['UserDeleted', { userId: w.cleo, deletedAt: at(6) }, at(6)],
  ]);
  await keys.destroy(w.cleo);
  await append(`group-${w.g2}`, [['GroupCreated', group(w.g2, 'Evening people', 7), at(7)]]);
  await append(`user-${w.ada}`, [['MemberJoined', joined(w.ada, w.g2, 'creator', 7), at(7)]]);
  // Dan signed in with the current version: his identity event is sealed already (v2).
  const danKey = await keys.keyFor(w.dan);
  await store.appendToStream(
    `user-${w.dan}`,
    [{
      type: 'UserRegistered',
      data: sealPersonalData('UserRegistered', registered(w.dan, 'dante.alighieri@example.com', 'Dante', null), danKey),
      metadata: meta(`${run}-e${++sequence}`, w.dan, at(7, 9), 2),
    }],
    { expectedVersion: 0 },
  );
  await append(`user-${w.dan}`, [['MemberJoined', joined(w.dan, w.g2, 'member', 8), at(8)]]);
  await append(`ratings-${w.dan}`, [['RatingSubmitted', rating(w.dan, 1, 3, 8), at(8, 9)]]);
  await append(`ratings-${w.ada}`, [['RatingSubmitted', rating(w.ada, 2, 2, 8), at(8, 10)]]);

  const userStreams = [w.ada, w.bart, w.cleo, w.dan].map((u) => `user-${u}`);
  const streams = [...userStreams, `group-${w.g1}`, `group-${w.g2}`, ...[w.ada, w.bart, w.cleo, w.dan].map((u) => `ratings-${u}`)];
  return { ...w, streams, userStreams };
}

/** The plaintext values found in a text (none, hopefully). */
const plaintextIn = (text: string) => PLAINTEXT.filter((value) => text.includes(value));
/** Everything the stand-in's log holds (what a scavenge must clear), as text. */
const logText = (standIn: EventStoreDbStandIn) =>
  standIn.log.records.map((r) => `${r.streamId} ${r.type} ${Buffer.from(r.data).toString('utf8')} ${Buffer.from(r.metadata).toString('utf8')}`).join('\n');
const json = (value: unknown) => JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? String(v) : v));

async function readStreams(store: EventStore, streams: readonly string[]): Promise<Record<string, RecordedEvent[]>> {
  return Object.fromEntries(await Promise.all(streams.map(async (s) => [s, await store.readStream(s)] as const)));
}

/** The events of the world's streams in $all, in global order. */
async function worldInAll(store: EventStore, w: World, from = 0): Promise<RecordedEvent[]> {
  const mine = new Set(w.streams);
  const events: RecordedEvent[] = [];
  for (;;) {
    const page = await store.readAll({ from, limit: 1000 });
    if (page.length === 0) return events;
    events.push(...page.filter((e) => mine.has(e.streamId)));
    from = page[page.length - 1].position;
  }
}

/** What the migration would see of a store, with a step that fails once (a crash) where asked. */
function crashing(store: EventStoreDbEventStore, crash: { afterAppend?: boolean; beforeTruncate?: boolean }): MigratableEventStore {
  return {
    readAll: (options) => store.readAll(options),
    readStream: (streamId, options) => store.readStream(streamId, options),
    headPosition: () => store.headPosition(),
    streamMetadata: (streamId) => store.streamMetadata(streamId),
    setStreamMetadata: (streamId, metadata) => store.setStreamMetadata(streamId, metadata),
    appendToStream: async (streamId, events, options) => {
      const result = await store.appendToStream(streamId, events, options);
      if (crash.afterAppend) throw new Error('connection lost after the append');
      return result;
    },
    truncateBefore: async (streamId, version) => {
      if (crash.beforeTruncate) throw new Error('crashed before the truncation');
      return store.truncateBefore(streamId, version);
    },
  };
}

/** The checks that hold on any EventStoreDB, the stand-in or a real one. */
function describeMigration(
  name: string,
  setup: (() => Promise<{ store: EventStoreDbEventStore; checkpointStream: string; cleanup: () => Promise<void> } | null>) | null,
): void {
  if (!setup) {
    describe.skip(`personal data migration on ${name}`, () => {
      it(`skipped: ${name} is not available (set EVENTSTORE_URL)`, () => undefined);
    });
    // eslint-disable-next-line no-console
    console.warn(`Personal data migration on ${name} skipped: set EVENTSTORE_URL (or provide a container runtime) to run it`);
    return;
  }

  describe(`personal data migration on ${name}`, () => {
    let dir: string;
    let keys: SqliteKeyStore;
    let fixture: Awaited<ReturnType<NonNullable<typeof setup>>>;
    const run = () => `x${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    /** A new world in the store, and what the migration sees of the store before any of it. */
    const newWorld = async () => {
      const store = fixture!.store;
      // The scan starts at the head before this world (a shared server may hold anything before it).
      await store.setStreamMetadata(fixture!.checkpointStream, { scannedUpTo: await store.headPosition() });
      return seedWorld(store, keys, run());
    };
    const migrate = (store: MigratableEventStore = fixture!.store) =>
      migratePersonalDataInEventStoreDb(store, keys, { checkpointStream: fixture!.checkpointStream });

    beforeEach(async () => {
      dir = mkdtempSync(join(tmpdir(), 'joy-esdb-migration-'));
      keys = new SqliteKeyStore(join(dir, 'keys.sqlite'));
      fixture = await setup();
    });
    afterEach(async () => {
      await fixture?.store.close();
      await fixture?.cleanup();
      await keys.close();
      rmSync(dir, { recursive: true, force: true });
    });
    /** Runs `body` only when the server is there (a runtime skip). */
    const test = (title: string, body: () => Promise<void>) =>
      it(title, async () => {
        if (fixture) await body();
      });

    test('copies every event of the v1 streams, re-keyed, and truncates the originals away from stream reads', async () => {
      const { store } = fixture!;
      const w = await newWorld();
      const before = await readStreams(store, w.streams);
      expect(plaintextIn(json(before)).sort()).toEqual(PLAINTEXT.filter((p) => !p.startsWith('Dante') && !p.startsWith('dante')).sort());

      expect(await migrate()).toEqual({ rekeyed: 3, redacted: 1, streams: 3, copied: 4 + 2 + 4 });
      const after = await readStreams(store, w.streams);
      expect(plaintextIn(json(after))).toEqual([]);

      // Ada: every event copied in order, ids `rekey-<id>`, versions after the originals'; identity events v2.
      const ada = after[`user-${w.ada}`];
      const adaBefore = before[`user-${w.ada}`];
      expect(ada.map((e) => [e.type, e.streamVersion, e.metadata.eventId, e.metadata.schemaVersion])).toEqual(
        adaBefore.map((e, i) => [e.type, adaBefore.length + i + 1, `rekey-${e.metadata.eventId}`, e.type === 'MemberJoined' ? 1 : 2]),
      );
      expect(ada[0].data).toEqual({
        userId: w.ada,
        issuer: ISSUER,
        subject: expect.stringMatching(/^enc:v1:/),
        email: expect.stringMatching(/^enc:v1:/),
        firstName: expect.stringMatching(/^enc:v1:/),
        profileImageUrl: null,
      });
      expect(ada[1].data).toEqual(adaBefore[1].data); // MemberJoined as it was
      // Everything but the id and schemaVersion of the metadata is kept (who, when, correlation).
      expect(ada[2].metadata).toEqual({ ...adaBefore[2].metadata, eventId: `rekey-${adaBefore[2].metadata.eventId}`, schemaVersion: 2 });
      // The decider reads the same plaintext as before, with the person's key.
      const codec = userStreamCodec(await keys.existingKey(w.ada));
      expect(ada.map(codec.upcast)).toEqual(adaBefore.map((e) => ({ type: e.type, data: e.data })));

      // Cleo (deleted, key destroyed): redacted, not encrypted.
      const cleo = after[`user-${w.cleo}`];
      expect(cleo.map((e) => e.type)).toEqual(['UserRegistered', 'MemberJoined', 'MemberLeft', 'UserDeleted']);
      expect(cleo[0].data).toEqual({ userId: w.cleo, issuer: ISSUER, subject: null, email: null, firstName: null, profileImageUrl: null });
      expect(await keys.isDestroyed(w.cleo)).toBe(true);

      // Dan's stream (already v2), the groups' and the ratings' are untouched; the copies follow the contract.
      for (const stream of w.streams.filter((s) => ![w.ada, w.bart, w.cleo].some((u) => s === `user-${u}`))) {
        expect([stream, after[stream]]).toEqual([stream, before[stream]]);
        expect(await store.streamMetadata(stream)).toEqual({});
      }
      expect(Object.values(after).flat().flatMap(contractViolations)).toEqual([]);

      // The truncation is stream metadata: before the first copy (a revision).
      expect(await store.streamMetadata(`user-${w.ada}`)).toEqual({ truncateBefore: 4 });
      // $all holds the originals (plaintext) until a scavenge, then the copies.
      const all = await worldInAll(store, w);
      expect(all.filter((e) => e.streamId === `user-${w.ada}`)).toHaveLength(8);
      expect(plaintextIn(json(all))).toContain('augusta.byronfield@example.com');
    });

    test('deciders go on appending after the copies: the versions are the last events\', and the state is the same', async () => {
      const { store } = fixture!;
      const w = await newWorld();
      const adaKey = await keys.keyFor(w.ada);
      const signIn = (firstName: string) => ({
        userId: w.ada, issuer: ISSUER, subject: 'augusta.byronfield@example.com', email: 'augusta.byronfield@example.com',
        firstName, profileImageUrl: 'https://example.com/augusta.png',
      });
      // A stale fold from before the migration (cached at version 4).
      expect((await decideAndAppend(store, `user-${w.ada}`, identityDecider, signIn('Augustabelle'), { actorUserId: w.ada }, userStreamCodec(adaKey))).events).toEqual([]);

      await migrate();
      // The same claims append nothing; a changed name appends after the copies (version 4 + 4 + 1).
      expect((await decideAndAppend(store, `user-${w.ada}`, identityDecider, signIn('Augustabelle'), { actorUserId: w.ada }, userStreamCodec(adaKey))).events).toEqual([]);
      const renamed = await decideAndAppend(store, `user-${w.ada}`, identityDecider, signIn('Gusta'), { actorUserId: w.ada }, userStreamCodec(adaKey));
      expect(renamed.append?.nextVersion).toBe(9);
      // Memberships: Ada is in 2 groups (never counted twice): a third is fine, a fourth is over the free plan.
      const join = (groupId: string) =>
        decideAndAppend(store, `user-${w.ada}`, membershipDecider, { groupId, userId: w.ada, role: 'member', isPremium: false, at: NOW }, { actorUserId: w.ada }, {
          upcast: (e) => ({ type: e.type, data: e.data }) as never,
        });
      await expectRejection(join(w.g1), { kind: 'conflict', code: 'group.already_member', message: MESSAGES.alreadyMember });
      expect((await join(`${w.g1}-3`)).append?.nextVersion).toBe(10);
      await expectRejection(join(`${w.g1}-4`), { kind: 'forbidden', code: 'plan.group_limit', message: MESSAGES.freePlanLimit });
      // Cleo stays deleted.
      await expectRejection(
        decideAndAppend(store, `user-${w.cleo}`, identityDecider, { ...signIn('Cleo'), userId: w.cleo }, { actorUserId: w.cleo }, userStreamCodec(null)),
        { kind: 'conflict', code: 'account.deleted', message: IDENTITY_MESSAGES.deleted },
      );
      expect((await store.readStream(`user-${w.ada}`)).map((e) => e.streamVersion)).toEqual([5, 6, 7, 8, 9, 10]);
    });

    test('is idempotent: a second run changes nothing, also without its checkpoint', async () => {
      const { store } = fixture!;
      const w = await newWorld();
      const start = await store.streamMetadata(fixture!.checkpointStream);
      await migrate();
      const once = await readStreams(store, w.streams);
      const inAll = (await worldInAll(store, w)).length;
      expect(await migrate()).toEqual({ rekeyed: 0, redacted: 0, streams: 0, copied: 0 });
      // Without the checkpoint (another one, from the head before the world), the old events in $all are looked at
      // again: their streams need nothing.
      const fromScratch = `${fixture!.checkpointStream}-again`;
      await store.setStreamMetadata(fromScratch, start);
      expect(await migratePersonalDataInEventStoreDb(store, keys, { checkpointStream: fromScratch })).toEqual({ rekeyed: 0, redacted: 0, streams: 0, copied: 0 });
      expect(await readStreams(store, w.streams)).toEqual(once);
      expect(await worldInAll(store, w)).toHaveLength(inAll);
      for (const stream of w.userStreams) expect(nextRekeyStep(once[stream])).toEqual({ step: 'none' });
    });

    test('an interrupted run (copies appended, truncation missing) completes at the next run without copying twice', async () => {
      const { store } = fixture!;
      const w = await newWorld();
      const before = await readStreams(store, w.userStreams);
      await expect(migrate(crashing(store, { beforeTruncate: true }))).rejects.toThrow('crashed before the truncation');
      const halfway = await store.readStream(`user-${w.ada}`);
      expect(halfway).toHaveLength(8); // the originals, then the copies
      expect(nextRekeyStep(halfway)).toEqual({ step: 'truncate', firstCopyVersion: 5 });
      // Meanwhile the app goes on: a join lands after the copies.
      const joined = await decideAndAppend(
        store,
        `user-${w.ada}`,
        membershipDecider,
        { groupId: `${w.g1}-3`, userId: w.ada, role: 'member', isPremium: false, at: NOW },
        { actorUserId: w.ada },
        { upcast: (e) => ({ type: e.type, data: e.data }) as never },
      );
      expect(joined.append?.nextVersion).toBe(9);

      // Ada's stream is completed (truncated only); Bart's and Cleo's were not reached by the first run.
      expect(await migrate()).toEqual({ rekeyed: 1, redacted: 1, streams: 3, copied: 2 + 4 });
      const after = await readStreams(store, w.userStreams);
      expect(after[`user-${w.ada}`].map((e) => [e.type, e.streamVersion, e.metadata.eventId])).toEqual([
        ...before[`user-${w.ada}`].map((e, i) => [e.type, 5 + i, `rekey-${e.metadata.eventId}`]),
        ['MemberJoined', 9, expect.not.stringMatching(/^rekey-/)],
      ]);
      expect(plaintextIn(json(after))).toEqual([]);
      const inAll = await worldInAll(store, w);
      expect(inAll.filter((e) => e.streamId === `user-${w.ada}`)).toHaveLength(4 + 4 + 1); // copied once
      expect(await migrate()).toEqual({ rekeyed: 0, redacted: 0, streams: 0, copied: 0 });
    });

    test('a lost answer to the copies\' append: the retry finds them there and only truncates', async () => {
      const { store } = fixture!;
      const w = await newWorld();
      await expect(migrate(crashing(store, { afterAppend: true }))).rejects.toThrow('connection lost');
      expect(await migrate()).toEqual({ rekeyed: 1, redacted: 1, streams: 3, copied: 2 + 4 });
      expect((await worldInAll(store, w)).filter((e) => e.streamId === `user-${w.ada}`)).toHaveLength(8);
      expect((await store.readStream(`user-${w.ada}`)).map((e) => e.streamVersion)).toEqual([5, 6, 7, 8]);
    });

    test('an append to the stream between its read and the copies: the copies are made again, including it', async () => {
      const { store } = fixture!;
      const w = await newWorld();
      let raced = false;
      const racing: MigratableEventStore = {
        ...crashing(store, {}),
        appendToStream: async (streamId, events, options) => {
          if (!raced && streamId === `user-${w.bart}`) {
            raced = true;
            await decideAndAppend(store, streamId, membershipDecider, { groupId: w.g2, userId: w.bart, role: 'member', isPremium: false, at: NOW }, { actorUserId: w.bart }, {
              upcast: (e) => ({ type: e.type, data: e.data }) as never,
            });
          }
          return store.appendToStream(streamId, events, options);
        },
      };
      expect(await migrate(racing)).toEqual({ rekeyed: 3, redacted: 1, streams: 3, copied: 4 + 3 + 4 });
      expect((await store.readStream(`user-${w.bart}`)).map((e) => [e.type, e.streamVersion, e.metadata.eventId.startsWith('rekey-')])).toEqual([
        ['UserRegistered', 4, true],
        ['MemberJoined', 5, true],
        ['MemberJoined', 6, true],
      ]);
    });

    test('two processes migrating at once copy each stream once', async () => {
      const { store } = fixture!;
      const w = await newWorld();
      const reports = await Promise.all([migrate(), migrate()]);
      expect(reports.reduce((n, r) => n + r.streams, 0)).toBeGreaterThanOrEqual(3);
      const all = await worldInAll(store, w);
      for (const [user, events] of [[w.ada, 4], [w.bart, 2], [w.cleo, 4]] as const) {
        expect([user, all.filter((e) => e.streamId === `user-${user}`).length]).toEqual([user, events * 2]);
        expect((await store.readStream(`user-${user}`)).every((e) => e.metadata.eventId.startsWith('rekey-'))).toBe(true);
      }
      expect(plaintextIn(json(await readStreams(store, w.streams)))).toEqual([]);
    });

    test('a WrongExpectedVersionError that never ends gives up with an error (and the checkpoint stays)', async () => {
      const { store } = fixture!;
      await newWorld();
      const checkpoint = await store.streamMetadata(fixture!.checkpointStream);
      const conflicting: MigratableEventStore = {
        ...crashing(store, {}),
        appendToStream: async (streamId, _events, options) => {
          throw new WrongExpectedVersionError(streamId, options.expectedVersion, 99);
        },
      };
      await expect(migrate(conflicting)).rejects.toThrow(/still needs a copy after 10 attempts/);
      expect(await store.streamMetadata(fixture!.checkpointStream)).toEqual(checkpoint);
    });
  });
}

// ---- against the EventStoreDB stand-in (gRPC): the same, plus the projections and a scavenge ----------------

describeMigration('the EventStoreDB stand-in', async () => {
  const standIn = await EventStoreDbStandIn.start();
  const store = new EventStoreDbEventStore(standIn.url);
  return { store, checkpointStream: MIGRATION_CHECKPOINT_STREAM, cleanup: () => standIn.stop() };
});

/** Every collection of the app's projections, documents sorted by id. */
async function dump(readModels: InMemoryReadModelStore, options: { positions: boolean }) {
  const collections = [...new Set(PROJECTIONS.flatMap((p) => p.projectors.map((projector) => projector.collection)))];
  const out: Record<string, object[]> = {};
  for (const collection of collections) {
    const docs = (await readModels.find<Record<string, unknown>>(collection, {})).map((doc) => {
      const copy: Record<string, unknown> = { ...doc };
      if (!options.positions) delete copy._position;
      return copy;
    });
    out[collection] = docs.sort((a, b) => String(a._id).localeCompare(String(b._id)));
  }
  return out;
}

/** Applies every event after `from` to the read models, as the projection pipeline does; returns the last position. */
async function project(store: EventStore, readModels: InMemoryReadModelStore, from: number): Promise<number> {
  for (;;) {
    const page = await store.readAll({ from, limit: 500 });
    if (page.length === 0) return from;
    for (const event of page) for (const projection of PROJECTIONS) await applyEvent(readModels, projection, event);
    from = page[page.length - 1].position;
  }
}

/** What the API shows of the groups and people. */
async function views(readModels: InMemoryReadModelStore, keys: KeyStore, w: World) {
  return {
    g1: await new GetGroupHandler(readModels).execute(new GetGroupQuery(w.ada, w.g1, NOW)),
    g2: await new GetGroupHandler(readModels).execute(new GetGroupQuery(w.ada, w.g2, NOW)),
    g1Members: await new GetGroupMembersHandler(readModels, keys).execute(new GetGroupMembersQuery(w.ada, w.g1)),
    g2Members: await new GetGroupMembersHandler(readModels, keys).execute(new GetGroupMembersQuery(w.dan, w.g2)),
    adaGroups: await new GetMyGroupsHandler(readModels).execute(new GetMyGroupsQuery(w.ada)),
    profiles: Object.fromEntries(await readProfiles(readModels, keys, [w.ada, w.bart, w.cleo, w.dan])),
  };
}

describe('personal data migration on the EventStoreDB stand-in: projections and scavenge', () => {
  let dir: string;
  let keys: SqliteKeyStore;
  let standIn: EventStoreDbStandIn;
  let store: EventStoreDbEventStore;
  let w: World;
  /** The read models as the running projections kept them: before the migration, then with the copies. */
  let live: InMemoryReadModelStore;
  let projected: number;
  let beforeDocs: Awaited<ReturnType<typeof dump>>;
  let beforeViews: Awaited<ReturnType<typeof views>>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'joy-esdb-migration-'));
    keys = new SqliteKeyStore(join(dir, 'keys.sqlite'));
    standIn = await EventStoreDbStandIn.start();
    store = new EventStoreDbEventStore(standIn.url);
    w = await seedWorld(store, keys, 'p');
    live = new InMemoryReadModelStore();
    projected = await project(store, live, 0);
    beforeDocs = await dump(live, { positions: false });
    beforeViews = await views(live, keys, w);
    expect(beforeViews.g1.memberCount).toBe(2);
    expect(beforeViews.profiles[w.ada]?.firstName).toBe('Augustabelle');

    await migratePersonalDataInEventStoreDb(store, keys);
    projected = await project(store, live, projected); // the copies reach the running projections
  });
  afterAll(async () => {
    await store.close();
    await standIn.stop();
    await keys.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the running projections apply the copies idempotently: what the API shows is unchanged', async () => {
    expect(await views(live, keys, w)).toEqual(beforeViews);
    // Group membership, member stats, weekly activity, care suggestions, ratings...: the same documents.
    const { 'user-profiles': profilesAfter, ...after } = await dump(live, { positions: false });
    const { 'user-profiles': profilesBefore, ...before } = beforeDocs;
    expect(after).toEqual(before);
    // The profiles hold ciphertexts now (the read model forgets the plaintext too).
    expect(profilesAfter.map((p) => p)).toHaveLength(profilesBefore.length);
    expect(plaintextIn(json(profilesAfter))).toEqual([]);
  });

  it('they equal a full rebuild from $all', async () => {
    const rebuilt = new InMemoryReadModelStore();
    await project(store, rebuilt, 0);
    expect(await dump(rebuilt, { positions: true })).toEqual(await dump(live, { positions: true }));
  });

  it('after a scavenge no plaintext is left in $all or the log; a rebuild gives the same read models, members in the same order', async () => {
    expect(plaintextIn(logText(standIn))).not.toEqual([]);
    expect(standIn.scavenge()).toBe(4 + 2 + 4); // Ada's, Bart's and Cleo's originals
    expect(plaintextIn(logText(standIn))).toEqual([]);
    expect(plaintextIn(json(await store.readAll({ from: 0, limit: 100_000 })))).toEqual([]);
    expect(await migratePersonalDataInEventStoreDb(store, keys)).toEqual({ rekeyed: 0, redacted: 0, streams: 0, copied: 0 });

    // The copies now stand where the originals were in the global order: after the ratings, and Ada's copied
    // joins after Dan's (untouched) one.
    const all = await worldInAll(store, w);
    const at = (type: string, userId: string, groupId?: string) =>
      all.findIndex((e) => e.type === type && e.data.userId === userId && (groupId === undefined || e.data.groupId === groupId));
    expect(at('MemberJoined', w.ada, w.g2)).toBeGreaterThan(at('MemberJoined', w.dan, w.g2));
    expect(at('MemberJoined', w.ada, w.g1)).toBeGreaterThan(at('RatingSubmitted', w.ada));

    const rebuilt = new InMemoryReadModelStore();
    await project(store, rebuilt, 0);
    // What the API shows is the same, in the same order: members by join time, the creator first.
    const after = await views(rebuilt, keys, w);
    expect(after).toEqual(beforeViews);
    expect(after.g1Members.map((m) => m.id)).toEqual([w.ada, w.bart]);
    expect(after.g2Members.map((m) => m.id)).toEqual([w.ada, w.dan]);
    expect(after.adaGroups.map((g) => g.id)).toEqual([w.g2, w.g1]);

    // The documents are the same as the running projections' (after the copies), but for where the events are in
    // $all: `_position`, and the position of each membership's join (`seq`: the copy's, after the scavenge).
    // (The weeks of group-member-weeks, and their list in group-member-stats, are the shared ratings' groups: the
    // same known limit as group-weekly-activity, below.)
    const { 'group-weekly-activity': weeklyRebuilt, 'group-member-weeks': _sharedRebuilt, ...rebuiltDocs } = withoutJoinPositions(await dump(rebuilt, { positions: false }));
    const { 'group-weekly-activity': weeklyLive, 'group-member-weeks': _sharedLive, ...liveDocs } = withoutJoinPositions(await dump(live, { positions: false }));
    expect(rebuiltDocs).toEqual(liveDocs);
    expect(liveDocs.groups.map((g) => (g as GroupDoc).members.map((m) => m.userId))).toEqual([[w.ada, w.bart], [w.ada, w.dan]]);

    // Known limit (docs/decisions.md; no endpoint serves it): group-weekly-activity counts a rating only in the
    // groups joined before it in $all, and the copied joins now come after the ratings made before the migration:
    // only Dan's (his join was not copied) is left.
    const counts = (docs: object[]) => docs.map((d) => [(d as { _id: string })._id, (d as GroupWeeklyActivityDoc).ratingsCount]);
    const [day4, day8] = [isoWeekOf('2026-10-04T08:00:00.000Z', 'UTC').week, isoWeekOf('2026-10-08T09:00:00.000Z', 'UTC').week];
    expect(counts(weeklyLive)).toEqual([
      [weeklyActivityId(w.g1, day4), 3], // Ada, Bart, Cleo
      [weeklyActivityId(w.g1, day8), 1], // Ada
      [weeklyActivityId(w.g2, day8), 2], // Dan, Ada
    ]);
    expect(counts(weeklyRebuilt)).toEqual([[weeklyActivityId(w.g2, day8), 1]]);
  });
});

/** A dump without the positions of the memberships' joins (`seq` in groups, memberships and group-member-stats) and the weeks of shared ratings. */
function withoutJoinPositions(docs: Awaited<ReturnType<typeof dump>>): Awaited<ReturnType<typeof dump>> {
  const dropSeq = (list: unknown) => (list as { seq?: number }[]).map(({ seq: _seq, ...rest }) => rest);
  const out: Awaited<ReturnType<typeof dump>> = { ...docs };
  out.groups = docs.groups.map((d) => ({ ...d, members: dropSeq((d as GroupDoc).members) }));
  out.memberships = docs.memberships.map((d) => ({ ...d, groups: dropSeq((d as MembershipsDoc).groups) }));
  out['group-member-stats'] = docs['group-member-stats'].map((doc) => {
    const { weeks: _weeks, ...d } = doc as GroupMemberStatsDoc;
    return { ...d, groups: dropSeq(d.groups) };
  });
  return out;
}

// ---- against a real EventStoreDB (EVENTSTORE_URL, or a throwaway container when a runtime is there) ---------

let server: Promise<TestServer | null> | undefined;
afterAll(async () => {
  const started = await server;
  await started?.stop();
});

describeMigration(
  'EventStoreDB',
  process.env.EVENTSTORE_URL || containerRuntimeMayExist()
    ? async () => {
        const started = await (server ??= eventStoreDbUrl());
        if (!started) return null;
        // A checkpoint stream of its own per case: a shared server's own migration is not disturbed.
        return {
          store: new EventStoreDbEventStore(started.url),
          checkpointStream: `migrations-test-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`,
          cleanup: async () => undefined,
        };
      }
    : null,
);
