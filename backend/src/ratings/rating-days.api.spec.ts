import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { addDays, dayOf, type RatingCalendarView, RATINGS_PER_DAY_MAX, type RatingView } from '@joy/domain';
import { api, signIn, startTestApp, TestApp } from '../testing/app-harness';

jest.setTimeout(60_000);

const scores = (n: number) => ({ relationships: n, health: n, purpose: n, growth: n, joy: n });
/** Far east: most of the time her today is not the server's UTC today. */
const ZONE = 'Pacific/Kiritimati';
const NOTE = 'Walked the cliffs with Ines; the sea was silver';

/** Missed days, private notes and the year calendar (issue #19 items 3, 4, 5) over HTTP. */
describe('rating days, notes and the calendar over HTTP', () => {
  let app: TestApp;
  let ada: string;
  let bob: string;
  let groupId: string;
  const as = (cookie?: string) => api(app.baseUrl, cookie);
  const head = () => app.running.infra.store.headPosition();
  const today = () => dayOf(new Date(), ZONE)!;
  const rate = async (cookie: string, body: object): Promise<RatingView> => {
    const res = await as(cookie).post('/api/joy-ratings', body);
    expect([res.status, res.body]).toEqual([201, expect.any(Object)]);
    return res.body;
  };
  const list = async (cookie: string): Promise<RatingView[]> => (await as(cookie).get('/api/joy-ratings')).body;
  const calendar = async (cookie: string, year: number): Promise<RatingCalendarView> => {
    const res = await as(cookie).get(`/api/joy-ratings/calendar?year=${year}`);
    expect(res.status).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    app = await startTestApp();
    ada = await signIn(app.baseUrl, 'ada@example.com', 'Ada');
    bob = await signIn(app.baseUrl, 'bob@example.com', 'Bob');
    expect((await as(ada).patch('/api/settings', { timeZone: ZONE })).status).toBe(200);
    const group = (await as(ada).post('/api/groups', { name: 'Cliff walkers' })).body;
    groupId = group.id;
    expect((await as(bob).post('/api/groups/join', { inviteCode: group.inviteCode })).status).toBe(200);
  });
  afterAll(() => app.destroy());

  it("gives a rating today's day in the person's zone, and an earlier day when asked (a missed day)", async () => {
    const now = await rate(ada, scores(3));
    expect(now.day).toBe(today());
    const missed = await rate(ada, { ...scores(4), day: addDays(today(), -3) });
    expect(missed.day).toBe(addDays(today(), -3));
    expect(Date.now() - Date.parse(missed.createdAt)).toBeLessThan(60_000); // made now, for that day
    expect((await list(ada)).find((r) => r.id === missed.id)).toEqual(missed);
    const yearAgo = await rate(ada, { ...scores(2), day: addDays(today(), -365) });
    expect(yearAgo.day).toBe(addDays(today(), -365));
    // A day given as null is a day left out (as a note given as null is none): today.
    expect((await rate(ada, { ...scores(3), day: null })).day).toBe(today());
  });

  it('keeps the latest rating the one of the latest day: a missed day rated later is not how she is now, for her or her group', async () => {
    const now = await rate(ada, scores(4));
    await rate(ada, { ...scores(1), day: addDays(today(), -2) });
    expect((await as(ada).get('/api/joy-ratings/latest')).body).toMatchObject({ id: now.id, overallScore: 4 });
    const members = (await as(bob).get(`/api/groups/${groupId}/members`)).body as { id: string; latestScore: number | null }[];
    const adaId = (await as(ada).get('/api/auth/user')).body.id;
    expect(members.find((m) => m.id === adaId)?.latestScore).toBe(4);
  });

  it.each([
    ['tomorrow in her zone', () => addDays(today(), 1), /future/],
    ['366 days back', () => addDays(today(), -366), /365 days/],
    ['a day that does not exist', () => '2026-02-30', /YYYY-MM-DD/],
    ['another format', () => '25/11/2026', /YYYY-MM-DD/],
    ['a number', () => 20261125, /YYYY-MM-DD/],
  ])('refuses a day %s: 400 naming day, nothing stored', async (_label, day, message) => {
    const before = await head();
    const res = await as(ada).post('/api/joy-ratings', { ...scores(3), day: day() });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(message);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'day' })]);
    expect(await head()).toBe(before);
  });

  it(`takes ${RATINGS_PER_DAY_MAX} ratings on one day, then 409 naming the day, storing nothing, until one is deleted`, async () => {
    const cleo = await signIn(app.baseUrl, 'cleo@example.com', 'Cleo');
    const day = addDays(dayOf(new Date(), 'UTC')!, -10);
    const saved: RatingView[] = [];
    for (let i = 0; i < RATINGS_PER_DAY_MAX; i++) saved.push(await rate(cleo, { ...scores(1 + (i % 5)), day }));
    const before = await head();
    const refused = await as(cleo).post('/api/joy-ratings', { ...scores(3), day });
    expect([refused.status, refused.body.code]).toEqual([409, 'rating.day_full']);
    expect(refused.body.message).toBe(`${day} already has ${RATINGS_PER_DAY_MAX} ratings, the most one day can hold. Delete one of them to add another.`);
    expect(await head()).toBe(before);
    // The day before takes ratings as ever; a deleted rating of the full day frees its place.
    await rate(cleo, { ...scores(3), day: addDays(day, -1) });
    expect((await as(cleo).delete(`/api/joy-ratings/${saved[0].id}`)).status).toBe(204);
    expect((await rate(cleo, { ...scores(5), day })).day).toBe(day);
  });

  it('refuses a day on a correction (a rating keeps its day)', async () => {
    const [newest] = await list(ada);
    const res = await as(ada).put(`/api/joy-ratings/${newest.id}`, { ...scores(3), day: today() });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('day');
  });

  it.each([
    ['over 1,000 characters', 'x'.repeat(1001)],
    ['with a direction override', 'fine\u202Eenif'],
    ['that is not text', 42],
  ])('refuses a note %s: 400 naming note, nothing stored', async (_label, note) => {
    const before = await head();
    const res = await as(ada).post('/api/joy-ratings', { ...scores(3), note });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('note');
    expect(await head()).toBe(before);
    const [newest] = await list(ada);
    expect((await as(ada).put(`/api/joy-ratings/${newest.id}`, { ...scores(3), note })).status).toBe(400);
  });

  it.each([
    ['Persian, with the non-joiner its keyboards type', 'امروز می\u200Cخواهم بیشتر بخوابم'],
    ['Sinhala, with a joiner', 'ශ්\u200Dරී ලංකා'],
    ['Hebrew, with a right-to-left mark', 'רצתי 5 ק״מ\u200F!'],
    ["a subdivision's flag", 'Hiking \u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}'],
  ])('keeps a note written in %s as written (they were refused as "invisible characters")', async (_label, note) => {
    const writer = await signIn(app.baseUrl, 'noor@example.com', 'Noor');
    const rating = await rate(writer, { ...scores(4), note });
    expect(rating.note).toBe(note);
    expect((await list(writer)).find((r) => r.id === rating.id)!.note).toBe(note);
  });

  it('keeps a note for its owner only: trimmed, corrected with PUT, never in a group answer, encrypted at rest', async () => {
    const rating = await rate(ada, { ...scores(5), note: `  ${NOTE}  `, day: addDays(today(), -1) });
    expect(rating.note).toBe(NOTE);
    expect((await list(ada)).find((r) => r.id === rating.id)!.note).toBe(NOTE);

    // A correction without a note keeps it; with one, replaces it.
    expect((await as(ada).put(`/api/joy-ratings/${rating.id}`, scores(4))).body.note).toBe(NOTE);
    const corrected = await as(ada).put(`/api/joy-ratings/${rating.id}`, { ...scores(4), note: `${NOTE}, and then rain` });
    expect(corrected.body).toMatchObject({ note: `${NOTE}, and then rain`, day: addDays(today(), -1) });

    // Bob shares her group: her score, never her note.
    for (const path of [`/api/groups/${groupId}/ratings`, `/api/groups/${groupId}/members`, `/api/groups/${groupId}`, '/api/groups']) {
      const res = await as(bob).get(path);
      expect(res.status).toBe(200);
      expect(res.text).not.toContain('cliffs');
      expect(res.text).not.toContain('"note"');
    }
    // Nor in Bob's own lists.
    expect(JSON.stringify(await list(bob))).not.toContain('cliffs');

    // At rest: the events hold only ciphertext.
    for (const file of ['events.sqlite', 'events.sqlite-wal']) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(join(app.config.dataDir, file));
      } catch {
        continue;
      }
      expect(bytes.includes('cliffs')).toBe(false);
      expect(bytes.includes('silver')).toBe(false);
    }
  });

  it('answers the calendar of a year: each day its mean score and count, and the streaks', async () => {
    const carol = await signIn(app.baseUrl, 'carol@example.com', 'Carol');
    expect((await as(carol).patch('/api/settings', { timeZone: ZONE })).status).toBe(200);
    const t = today();
    // Rated: 10 days ago (alone), then 4, 3 (twice), 2 and 1 days ago; not today yet.
    await rate(carol, { ...scores(2), day: addDays(t, -10) });
    for (const [n, s] of [[4, 3], [3, 2], [3, 5], [2, 4], [1, 4]] as const) await rate(carol, { ...scores(s), day: addDays(t, -n) });
    const year = Number(t.slice(0, 4));
    const expected = [
      { day: addDays(t, -10), overallScore: 2, count: 1 },
      { day: addDays(t, -4), overallScore: 3, count: 1 },
      { day: addDays(t, -3), overallScore: 3.5, count: 2 },
      { day: addDays(t, -2), overallScore: 4, count: 1 },
      { day: addDays(t, -1), overallScore: 4, count: 1 },
    ];
    const cal = await calendar(carol, year);
    expect(cal.days).toEqual(expected.filter((d) => d.day.startsWith(`${year}-`)));
    // Today is not rated yet: the current streak runs up to yesterday.
    expect([cal.currentStreak, cal.longestStreak]).toEqual([4, 4]);

    // Rating today extends it.
    const todays = await rate(carol, scores(1));
    expect(await calendar(carol, year)).toMatchObject({ currentStreak: 5, longestStreak: 5 });

    // A correction changes the day's mean; withdrawing a day's only rating breaks the streak.
    const ratings = await list(carol);
    const threeAgo = ratings.filter((r) => r.day === addDays(t, -3));
    expect((await as(carol).put(`/api/joy-ratings/${threeAgo[0].id}`, scores(1))).status).toBe(200);
    const other = threeAgo[1].overallScore;
    const afterCorrection = await calendar(carol, Number(addDays(t, -3).slice(0, 4)));
    expect(afterCorrection.days.find((d) => d.day === addDays(t, -3))).toEqual({ day: addDays(t, -3), overallScore: (1 + other) / 2, count: 2 });
    const twoAgo = ratings.find((r) => r.day === addDays(t, -2))!;
    expect((await as(carol).delete(`/api/joy-ratings/${twoAgo.id}`)).status).toBe(204);
    const afterWithdrawal = await calendar(carol, year);
    expect(afterWithdrawal.days.map((d) => d.day)).not.toContain(addDays(t, -2));
    expect([afterWithdrawal.currentStreak, afterWithdrawal.longestStreak]).toEqual([2, 2]); // 4 and 3 days ago; yesterday and today
    expect((await as(carol).delete(`/api/joy-ratings/${todays.id}`)).status).toBe(204);
    expect(await calendar(carol, year)).toMatchObject({ currentStreak: 1, longestStreak: 2 });

    // Another year: no days there.
    expect((await calendar(carol, year - 3)).days).toEqual([]);
  });

  it("answers a day's ratings (GET /api/joy-ratings/days/:day): newest first with their notes, the calendar's day, the caller's own only", async () => {
    const eve = await signIn(app.baseUrl, 'eve@example.com', 'Eve');
    expect((await as(eve).patch('/api/settings', { timeZone: ZONE })).status).toBe(200);
    const ofDay = async (cookie: string, day: string): Promise<RatingView[]> => {
      const res = await as(cookie).get(`/api/joy-ratings/days/${day}`);
      expect(res.status).toBe(200);
      return res.body;
    };
    const day = addDays(today(), -2);
    const first = await rate(eve, { ...scores(2), day, note: 'Slow morning' });
    const second = await rate(eve, { ...scores(4), day });
    const dayBefore = await rate(eve, { ...scores(5), day: addDays(day, -1) });
    const bobs = await rate(bob, { ...scores(3), day });

    expect(await ofDay(eve, day)).toEqual([second, first]);
    expect((await ofDay(eve, day))[1].note).toBe('Slow morning');
    expect((await calendar(eve, Number(day.slice(0, 4)))).days.find((d) => d.day === day)?.count).toBe(2);
    expect(await ofDay(eve, addDays(day, -1))).toEqual([dayBefore]);
    expect(await ofDay(eve, addDays(day, -30))).toEqual([]);
    // Bob rated the same day: each sees their own.
    expect(await ofDay(bob, day)).toEqual([bobs]);

    // A correction shows at once with its new values and note; a withdrawn rating is gone.
    const corrected = await as(eve).put(`/api/joy-ratings/${first.id}`, { ...scores(3), note: 'Better by noon' });
    expect(corrected.status).toBe(200);
    expect(await ofDay(eve, day)).toEqual([second, corrected.body]);
    expect((await as(eve).delete(`/api/joy-ratings/${second.id}`)).status).toBe(204);
    expect(await ofDay(eve, day)).toEqual([corrected.body]);
  });

  it("answers the last day there is (its week ends past 9999) at once, as an empty day", async () => {
    const res = await as(ada).get('/api/joy-ratings/days/9999-12-31');
    expect([res.status, res.body]).toEqual([200, []]);
    expect((await as(ada).get(`/api/joy-ratings/days/${today()}`)).status).toBe(200);
  });

  it.each([['2026-02-30'], ['26-11-2026'], ['today'], ['2026-1-5'], ['1969-12-31'], ['0000-01-01']])('refuses the ratings of day %s: 400 naming day', async (day) => {
    const res = await as(ada).get(`/api/joy-ratings/days/${day}`);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'day' })]);
  });

  it("refuses a day's ratings to a signed-out caller", async () => {
    expect((await as().get(`/api/joy-ratings/days/${today()}`)).status).toBe(401);
  });

  it.each([['abc'], ['20261'], [''], ['-1']])('refuses the calendar of year=%s: 400 naming year', async (year) => {
    const res = await as(ada).get(`/api/joy-ratings/calendar?year=${year}`);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'year' })]);
  });

  it('refuses the calendar to a signed-out caller', async () => {
    expect((await as().get('/api/joy-ratings/calendar?year=2026')).status).toBe(401);
  });

  it('exports days and notes, and an import into another account brings them along, encrypted again', async () => {
    const exported = await as(ada).get('/api/account/export?format=json');
    expect(exported.status).toBe(200);
    const file = JSON.parse(exported.text);
    const withNote = file.ratings.find((r: RatingView) => r.note !== null);
    expect(withNote).toMatchObject({ note: `${NOTE}, and then rain`, day: addDays(today(), -1) });
    expect(file.ratings.every((r: RatingView) => /^\d{4}-\d{2}-\d{2}$/.test(r.day))).toBe(true);

    // Dora lives where Ada does (a browser sets its zone at the first sign-in): Ada's today is hers too. Elsewhere, a
    // rating of a day after the importer's today is refused (account-import.api.spec.ts).
    const dora = await signIn(app.baseUrl, 'dora@example.com', 'Dora');
    expect((await as(dora).patch('/api/settings', { timeZone: ZONE })).status).toBe(200);
    const res = await as(dora).post('/api/account/import', file);
    expect(res.status).toBe(200);
    expect(res.body.imported).toBe(file.ratings.length);
    const imported = (await list(dora)).find((r) => r.note !== null)!;
    expect(imported).toMatchObject({ note: `${NOTE}, and then rain`, day: addDays(today(), -1), overallScore: 4 });

    // A bad day or note in a file: 400 naming its path, nothing added.
    const before = await head();
    const bad = await as(dora).post('/api/account/import', { ...file, ratings: [{ ...withNote, id: 'other', note: 'y'.repeat(1001), day: 'soon' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['ratings[0].day', 'ratings[0].note']);
    expect(await head()).toBe(before);
  });
});
