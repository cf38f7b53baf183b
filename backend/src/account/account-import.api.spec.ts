import { FACTOR_NAMES, type RatingView } from '@joy/domain';
import { metadataFor } from '../event-store/decider';
import { type EventToAppend, EventStoreUnavailableError } from '../event-store/event-store.port';
import { allRatingsOf, api, signIn, startTestApp, TestApp } from '../testing/app-harness';
import { waitUntil } from '../testing/wait';
import { IMPORT_MESSAGES, MAX_IMPORT_RATINGS } from './account-import';

jest.setTimeout(120_000);

/** Three ratings a day for a year. */
const A_YEAR = 3 * 365;
const DAY_MS = 24 * 3600 * 1000;

interface ExportFile {
  formatVersion: number;
  ratings: RatingView[];
  [section: string]: unknown;
}

/** The part of a rating that says what it was: its time and its five factors (never its id). */
const what = (r: RatingView) => `${Date.parse(r.createdAt)}|${FACTOR_NAMES.map((f) => r[f]).join('')}`;

describe('importing ratings from an export (POST /api/account/import), over HTTP', () => {
  let app: TestApp; // this install
  let other: TestApp; // another install, with its own accounts
  let ada: string; // on this install: a year of ratings
  let bob: string; // on this install: imports ada's file into a second account
  let cy: string; // on this install: the refusals and the edge cases
  let dee: string; // on this install: a file that fills a day
  let eve: string; // on this install: an import the store fails part way
  let ada2: string; // ada on the other install
  let adaFile: ExportFile;
  const as = (cookie?: string, on: TestApp = app) => api(on.baseUrl, cookie);
  const head = (on: TestApp = app) => on.running.infra.store.headPosition();
  const exportOf = async (cookie: string, on: TestApp = app): Promise<ExportFile> => {
    const res = await as(cookie, on).get('/api/account/export?format=json').buffer(true).parse((r, done) => {
      let text = '';
      r.on('data', (c: Buffer) => (text += c.toString('utf8')));
      r.on('end', () => done(null, text));
    });
    expect(res.status).toBe(200);
    return JSON.parse(res.body as string);
  };
  const importInto = (cookie: string, file: unknown, on: TestApp = app) => as(cookie, on).post('/api/account/import', file as object);
  const ratingsOf = (cookie: string, on: TestApp = app) => allRatingsOf<RatingView>(on.baseUrl, cookie);

  beforeAll(async () => {
    app = await startTestApp({ RATE_LIMIT_WRITES_PER_MIN: '10000' });
    other = await startTestApp({ RATE_LIMIT_WRITES_PER_MIN: '10000' });
    ada = await signIn(app.baseUrl, 'ada@import.example', 'Ada');
    bob = await signIn(app.baseUrl, 'bob@import.example', 'Bob');
    cy = await signIn(app.baseUrl, 'cy@import.example', 'Cy');
    dee = await signIn(app.baseUrl, 'dee@import.example', 'Dee');
    eve = await signIn(app.baseUrl, 'eve@import.example', 'Eve');
    ada2 = await signIn(other.baseUrl, 'ada@elsewhere.example', 'Ada');
    // A year of ratings, as the app stores them (seeded straight into the store: a year of requests would be slow).
    const adaId = (await as(ada).get('/api/auth/user')).body.id as string;
    const start = Date.now() - 366 * DAY_MS;
    const events: EventToAppend[] = Array.from({ length: A_YEAR }, (_, i) => {
      const s = FACTOR_NAMES.map((_f, k) => 1 + ((i + k * 2) % 5));
      const factors = Object.fromEntries(FACTOR_NAMES.map((f, k) => [f, s[k]]));
      const overallScore = Math.round((s.reduce((a, b) => a + b, 0) / 5) * 10) / 10;
      const ratingId = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      const data = { ratingId, userId: adaId, ...factors, overallScore, submittedAt: new Date(start + i * (DAY_MS / 3)).toISOString() };
      return { type: 'RatingSubmitted', data, metadata: metadataFor({ actorUserId: adaId }, ratingId) };
    });
    await app.running.infra.store.appendToStream(`ratings-${adaId}`, events, { expectedVersion: 0 });
    // And one made today through the API.
    expect((await as(ada).post('/api/joy-ratings', { relationships: 5, health: 4, purpose: 5, growth: 4, joy: 5 })).status).toBe(201);
    adaFile = await exportOf(ada);
  });
  afterAll(async () => {
    await app?.destroy();
    await other?.destroy();
  });

  it('refuses a signed-out caller with 401 before reading the body, adding nothing', async () => {
    const before = await head();
    const res = await importInto('', adaFile);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ statusCode: 401, code: 'auth.unauthorized', message: 'Unauthorized' });
    expect(await head()).toBe(before);
  });

  it('takes a year of ratings exported on one install into an account on another: all added, at their times, newest first', async () => {
    expect(adaFile.ratings).toHaveLength(A_YEAR + 1);
    // Larger than the 100 KB other requests may send.
    expect(Buffer.byteLength(JSON.stringify(adaFile))).toBeGreaterThan(100 * 1024);
    const res = await importInto(ada2, adaFile, other);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ imported: A_YEAR + 1, skipped: 0 });

    // Read-your-writes: the list shows every rating at once, each with its time and factors, newest first.
    const list = await ratingsOf(ada2, other);
    expect(list).toHaveLength(A_YEAR + 1);
    expect(list.map(what)).toEqual([...adaFile.ratings].reverse().map(what));
    expect(list[0]).toMatchObject({ relationships: 5, health: 4, purpose: 5, growth: 4, joy: 5, overallScore: 4.6 });
    expect((await as(ada2, other).get('/api/joy-ratings/latest')).body).toEqual(list[0]);
    // Its own export holds them, oldest first, the same ratings.
    expect((await exportOf(ada2, other)).ratings.map(what)).toEqual(adaFile.ratings.map(what));
  });

  it('adds nothing when the same file is imported again', async () => {
    const before = await head(other);
    const res = await importInto(ada2, adaFile, other);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ imported: 0, skipped: A_YEAR + 1 });
    expect(await head(other)).toBe(before);
    expect(await ratingsOf(ada2, other)).toHaveLength(A_YEAR + 1);
  });

  it('adds nothing when the ratings come back: the account’s own export, or the export of the account that imported them', async () => {
    const before = await head();
    expect((await importInto(ada, adaFile)).body).toEqual({ imported: 0, skipped: A_YEAR + 1 });
    // The other install's export names the ratings by the ids they got there: the same time and factors are the same rating.
    const back = await exportOf(ada2, other);
    expect(back.ratings.map((r) => r.id)).not.toEqual(adaFile.ratings.map((r) => r.id));
    expect((await importInto(ada, back)).body).toEqual({ imported: 0, skipped: A_YEAR + 1 });
    expect(await head()).toBe(before);
  });

  it('imports the file into a second account of the same install under ids of its own, leaving the first as it was', async () => {
    const res = await importInto(bob, adaFile);
    expect(res.body).toEqual({ imported: A_YEAR + 1, skipped: 0 });
    const bobs = await ratingsOf(bob);
    const adas = await ratingsOf(ada);
    expect(bobs.map(what)).toEqual(adas.map(what));
    const adaIds = new Set(adas.map((r) => r.id));
    expect(bobs.filter((r) => adaIds.has(r.id))).toEqual([]);
    expect(adas).toHaveLength(A_YEAR + 1);
  });

  it('places older imported ratings at their time: the latest rating stays the newest one, and a repeat inside the file counts once', async () => {
    expect((await as(cy).post('/api/joy-ratings', { relationships: 4, health: 4, purpose: 4, growth: 4, joy: 4 })).status).toBe(201);
    const latest = (await as(cy).get('/api/joy-ratings/latest')).body;
    const old = { id: 'from-elsewhere-1', createdAt: '2025-06-01T07:30:00.000Z', overallScore: 1, relationships: 1, health: 1, purpose: 1, growth: 1, joy: 1 };
    const file = {
      formatVersion: 1,
      ratings: [
        old,
        { ...old }, // the same rating twice
        { ...old, id: 'another-id' }, // the same time and factors under another id
        { id: 'from-elsewhere-2', createdAt: '2025-06-02T07:30:00+02:00', relationships: 2, health: 3, purpose: 2, growth: 3, joy: 2 }, // no overallScore: it is derived
      ],
    };
    const res = await importInto(cy, file);
    expect(res.body).toEqual({ imported: 2, skipped: 2 });
    const list = await ratingsOf(cy);
    expect(list.map((r) => [r.createdAt, r.overallScore])).toEqual([
      [latest.createdAt, 4],
      ['2025-06-02T05:30:00.000Z', 2.4],
      ['2025-06-01T07:30:00.000Z', 1],
    ]);
    expect((await as(cy).get('/api/joy-ratings/latest')).body).toEqual(latest);
  });

  const valid = (i: number) => ({ id: `r-${i}`, createdAt: new Date(Date.UTC(2026, 0, 1 + i, 9)).toISOString(), overallScore: 3, relationships: 3, health: 3, purpose: 3, growth: 3, joy: 3 });
  const withRating = (index: number, rating: unknown) => ({ formatVersion: 1, ratings: [0, 1, 2, 3, 4].map((i) => (i === index ? rating : valid(i))) });

  it.each([
    ['a list instead of an export', [valid(0)], 'body', IMPORT_MESSAGES.notAnExport],
    ['an object that is no export', { hello: 'world' }, 'ratings', IMPORT_MESSAGES.notAnExport],
    ['another format version', { formatVersion: 2, ratings: [valid(0)] }, 'formatVersion', IMPORT_MESSAGES.formatVersion],
    ['no format version', { ratings: [valid(0)] }, 'formatVersion', IMPORT_MESSAGES.formatVersion],
    ['ratings that are no list', { formatVersion: 1, ratings: { 0: valid(0) } }, 'ratings', IMPORT_MESSAGES.ratings],
    ['a factor out of range', withRating(3, { ...valid(3), health: 6 }), 'ratings[3].health', IMPORT_MESSAGES.factor('ratings[3].health')],
    ['a factor that is not whole', withRating(2, { ...valid(2), joy: 2.5 }), 'ratings[2].joy', IMPORT_MESSAGES.factor('ratings[2].joy')],
    ['a missing factor', withRating(4, { ...valid(4), purpose: undefined }), 'ratings[4].purpose', IMPORT_MESSAGES.factor('ratings[4].purpose')],
    ['a time that is no instant', withRating(1, { ...valid(1), createdAt: 'yesterday' }), 'ratings[1].createdAt', IMPORT_MESSAGES.createdAt('ratings[1].createdAt')],
    ['a day without a time', withRating(1, { ...valid(1), createdAt: '2026-01-02' }), 'ratings[1].createdAt', IMPORT_MESSAGES.createdAt('ratings[1].createdAt')],
    // Before 1970 a zone's day has no week Joy can work out: such a rating once stopped the projections for everyone.
    ['a time before 1970', withRating(2, { ...valid(2), createdAt: '0001-06-01T00:00:00Z' }), 'ratings[2].createdAt', IMPORT_MESSAGES.beforeJoy('ratings[2].createdAt')],
    ['a time in the future', withRating(0, { ...valid(0), createdAt: new Date(Date.now() + 2 * DAY_MS).toISOString() }), 'ratings[0].createdAt', IMPORT_MESSAGES.future('ratings[0].createdAt')],
    // Date.parse would move these to the next day rather than refuse them.
    ['a date that does not exist', withRating(1, { ...valid(1), createdAt: '2026-02-30T10:00:00Z' }), 'ratings[1].createdAt', IMPORT_MESSAGES.createdAt('ratings[1].createdAt')],
    ['a month that does not exist', withRating(1, { ...valid(1), createdAt: '2026-13-02T10:00:00Z' }), 'ratings[1].createdAt', IMPORT_MESSAGES.createdAt('ratings[1].createdAt')],
    ['midnight written as 24:00', withRating(1, { ...valid(1), createdAt: '2026-01-02T24:00:00Z' }), 'ratings[1].createdAt', IMPORT_MESSAGES.createdAt('ratings[1].createdAt')],
    // Cy's zone is UTC: tomorrow there is a day no rating made here could rate.
    ['a day after today', withRating(0, { ...valid(0), createdAt: new Date().toISOString(), day: new Date(Date.now() + DAY_MS).toISOString().slice(0, 10) }), 'ratings[0].day', IMPORT_MESSAGES.afterToday('ratings[0].day', 'UTC')],
    ['no id', withRating(3, { ...valid(3), id: undefined }), 'ratings[3].id', IMPORT_MESSAGES.id('ratings[3].id')],
    ['an overall score that is not the mean', withRating(3, { ...valid(3), overallScore: 4.2 }), 'ratings[3].overallScore', IMPORT_MESSAGES.overallScore('ratings[3].overallScore')],
    ['a field a rating does not have', withRating(3, { ...valid(3), mood: 'great' }), 'ratings[3].mood', IMPORT_MESSAGES.unknown('ratings[3].mood')],
    ['a rating that is no object', withRating(3, 'r-3'), 'ratings[3]', IMPORT_MESSAGES.rating('ratings[3]')],
    // A note of three characters with a hidden one: named for what it is (POST /api/joy-ratings says the same), not for its length.
    ['a note with a direction override', withRating(2, { ...valid(2), note: 'a\u202Ebc' }), 'ratings[2].note', 'ratings[2].note must not contain control or direction-changing characters'],
    // A copied line edited by hand: one of the two would be lost without a word.
    ['two different ratings under one id', withRating(4, { ...valid(4), id: 'r-1' }), 'ratings[4].id', IMPORT_MESSAGES.sameId('ratings[4].id', 'ratings[1]')],
  ])('refuses %s with 400 naming the field, adding nothing (not even the valid ratings)', async (_label, file, field, message) => {
    const before = await head();
    const count = (await ratingsOf(cy)).length;
    const res = await importInto(cy, file);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, code: 'request.invalid', message });
    // Each problem once (a time far in the future was listed twice: as future, and as a day after today).
    expect(res.body.errors).toEqual([{ field, message }]);
    expect(await head()).toBe(before);
    expect(await ratingsOf(cy)).toHaveLength(count);
  });

  it('takes a day given as null as a day left out (the day of its time), and the same rating twice once', async () => {
    const count = (await ratingsOf(cy)).length;
    const res = await importInto(cy, { formatVersion: 1, ratings: [{ ...valid(40), id: 'null-day', day: null }, { ...valid(40), id: 'null-day', day: null }] });
    expect([res.status, res.body]).toEqual([200, { imported: 1, skipped: 1 }]);
    const imported = (await ratingsOf(cy)).find((r) => r.createdAt === valid(40).createdAt);
    expect(imported?.day).toBe(valid(40).createdAt.slice(0, 10));
    expect(await ratingsOf(cy)).toHaveLength(count + 1);
  });

  it('refuses a file that would fill a day past 100 ratings with 409 naming the day, adding nothing (also beyond its first 500)', async () => {
    const before = await head();
    const ratingOn = (i: number, at: number) => ({ ...valid(i), id: `d-${i}`, createdAt: new Date(at).toISOString() });
    // 520 ratings a day apart, then 101 on 2025-06-01 (past the first write of 500).
    const file = {
      formatVersion: 1,
      ratings: [
        ...Array.from({ length: 520 }, (_, i) => ratingOn(i, Date.UTC(2023, 0, 1 + i, 9))),
        ...Array.from({ length: 101 }, (_, i) => ratingOn(520 + i, Date.UTC(2025, 5, 1, 6, i))),
      ],
    };
    const res = await importInto(dee, file);
    expect([res.status, res.body.code]).toEqual([409, 'rating.day_full']);
    // Said of the file: the day holds none in Joy (it said "already has 100 ratings" of an empty day).
    expect(res.body.message).toMatch(/^The file would give 2025-06-01 more than 100 ratings, the most one day can hold \(it has 0 in Joy now\)/);
    expect(await head()).toBe(before);
    // One fewer on that day: all of them.
    expect((await importInto(dee, { ...file, ratings: file.ratings.slice(0, -1) })).body).toEqual({ imported: 620, skipped: 0 });
  });

  it('says how many ratings it stored when the store fails between two writes, and the same file then adds the rest', async () => {
    const eveId = (await as(eve).get('/api/auth/user')).body.id as string;
    const file = { formatVersion: 1, ratings: Array.from({ length: 620 }, (_, i) => ({ ...valid(i), id: `e-${i}`, createdAt: new Date(Date.UTC(2023, 0, 1 + i, 9)).toISOString() })) };
    const store = app.running.infra.store;
    const append = store.appendToStream.bind(store);
    let writes = 0;
    const failing = jest.spyOn(store, 'appendToStream').mockImplementation((stream, events, options) => {
      if (stream === `ratings-${eveId}` && ++writes === 2) return Promise.reject(new EventStoreUnavailableError('events.sqlite: the disk is full'));
      return append(stream, events, options);
    });
    try {
      const res = await importInto(eve, file);
      expect([res.status, res.body.code]).toEqual([503, 'account.import_incomplete']);
      expect(res.body.message).toBe(IMPORT_MESSAGES.incomplete(500));
      expect(res.body.message).toMatch(/^The import stopped part way: 500 ratings were imported before it stopped\. Import the same file again/);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      failing.mockRestore();
    }
    await waitUntil(async () => (await ratingsOf(eve)).length === 500);
    expect((await importInto(eve, file)).body).toEqual({ imported: 120, skipped: 500 });
    expect(await ratingsOf(eve)).toHaveLength(620);
  });

  it('names every broken field of the file at once (up to 20)', async () => {
    const file = { formatVersion: 1, ratings: [valid(0), { ...valid(1), health: 0 }, valid(2), { ...valid(3), createdAt: 'soon', joy: 'five' }] };
    const res = await importInto(cy, file);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['ratings[1].health', 'ratings[3].createdAt', 'ratings[3].joy']);
  });

  it('refuses a file with more broken ratings than it lists with 400, adding nothing', async () => {
    const before = await head();
    const count = (await ratingsOf(cy)).length;
    const file = { formatVersion: 1, ratings: Array.from({ length: 25 }, (_, i) => ({ ...valid(i), createdAt: undefined })) };
    const res = await importInto(cy, file);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toEqual({ field: 'ratings[0].createdAt', message: IMPORT_MESSAGES.createdAt('ratings[0].createdAt') });
    // Nine listed, then how many more: 25 problems in all.
    expect(res.body.errors).toHaveLength(10);
    expect(res.body.errors[8].field).toBe('ratings[8].createdAt');
    expect(res.body.errors[9]).toEqual({ field: 'ratings', message: 'The file has 16 more problems than are listed here.' });
    expect(await head()).toBe(before);
    expect(await ratingsOf(cy)).toHaveLength(count);
  });

  it('refuses a file that is not JSON, too many ratings, and a body over 5 MB, adding nothing', async () => {
    const before = await head();
    const broken = await as(cy).post('/api/account/import').set('Content-Type', 'application/json').send('{"formatVersion":1,"ratings":[');
    expect(broken.status).toBe(400);
    expect(broken.body.code).toBe('request.malformed_json');
    const many = await importInto(cy, { formatVersion: 1, ratings: Array.from({ length: MAX_IMPORT_RATINGS + 1 }, () => 0) });
    expect(many.status).toBe(400);
    expect(many.body.errors).toEqual([{ field: 'ratings', message: IMPORT_MESSAGES.tooMany }]);
    const huge = await importInto(cy, { formatVersion: 1, ratings: [], padding: 'x'.repeat(5 * 1024 * 1024) });
    expect(huge.status).toBe(413);
    expect(huge.body).toEqual({ statusCode: 413, code: 'request.too_large', message: 'Request body is too large (5 MB at most)' });
    expect(await head()).toBe(before);
    // Other routes keep their 100 KB.
    const big = await as(cy).patch('/api/settings', { firstName: 'x'.repeat(120 * 1024) });
    expect(big.status).toBe(413);
  });
});
