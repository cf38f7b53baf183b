import { isoWeekOfDay, ratingSummaryOf } from '@joy/domain';
import type { RecordedEvent } from '../event-store/event-store.port';
import { InMemoryReadModelStore } from '../read-models/in-memory-read-model-store';
import { recorded } from '../testing/events';
import { applyEvent } from './pipeline/applier';
import { mondayOf, type RatedDay, type RatingTotalsDoc, type RatingWeekDoc, weekMondays } from './rating-days.projector';
import { PROJECTIONS } from './projections';

const days = PROJECTIONS.find((p) => p.name === 'rating-days')!;

let position = 0;
const ev = (type: string, data: object): RecordedEvent => recorded(type, data, ++position);
const scores = (r: number, h: number, p: number, g: number, j: number) => ({ relationships: r, health: h, purpose: p, growth: g, joy: j, overallScore: Math.round(((r + h + p + g + j) / 5) * 10) / 10 });
const submitted = (ratingId: string, userId: string, day: string | undefined, at: string, s = scores(3, 3, 3, 3, 3)) =>
  ev('RatingSubmitted', { ratingId, userId, ...s, submittedAt: at, ...(day ? { day } : {}) });
const corrected = (ratingId: string, userId: string, day: string, at: string, s: ReturnType<typeof scores>) =>
  ev('RatingCorrected', { ratingId, userId, ...s, submittedAt: at, day, note: null, correctedAt: '2026-11-30T08:00:00.000Z' });
const withdrawn = (ratingId: string, userId: string, day: string | undefined, at: string) =>
  ev('RatingWithdrawn', { ratingId, userId, submittedAt: at, ...(day ? { day } : {}), withdrawnAt: '2026-11-30T09:00:00.000Z', latest: null });

async function storeWith(events: RecordedEvent[]) {
  const store = new InMemoryReadModelStore();
  await store.ensureIndex('rating-weeks', 'userId');
  for (const e of events) await applyEvent(store, days, e);
  return store;
}

/** A person's rated days, oldest first, as their weeks hold them. */
const daysOf = async (store: InMemoryReadModelStore, userId: string): Promise<RatedDay[]> =>
  (await store.find<RatingWeekDoc>('rating-weeks', { userId })).flatMap((w) => w.days).sort((a, b) => a.day.localeCompare(b.day));

/** What a reader sees of a day (`<userId>:<day>`): its count and sums (not the bookkeeping), from its week. */
const sumsOf = async (store: InMemoryReadModelStore, id: string) => {
  const [userId, day] = id.split(':');
  const week = await store.get<RatingWeekDoc>('rating-weeks', `${userId}:${mondayOf(day)}`);
  const found = week?.days.find((d) => d.day === day);
  if (!found) return null;
  const { count, overallTenths, relationships, health, purpose, growth, joy, firstAt } = found;
  return { day, count, overallTenths, relationships, health, purpose, growth, joy, firstAt };
};

/** The sums a person's totals hold, and the same sums added up from their day documents. */
const sumsOfTotals = async (store: InMemoryReadModelStore, userId: string) => {
  const { count, overallTenths, relationships, health, purpose, growth, joy } = (await store.get<RatingTotalsDoc>('rating-totals', userId))!;
  return { count, overallTenths, relationships, health, purpose, growth, joy };
};
const sumsOfDays = async (store: InMemoryReadModelStore, userId: string) => {
  const sums = { count: 0, overallTenths: 0, relationships: 0, health: 0, purpose: 0, growth: 0, joy: 0 };
  for (const d of await daysOf(store, userId)) for (const k of Object.keys(sums) as (keyof typeof sums)[]) sums[k] += d[k];
  return sums;
};

describe('the weeks of a span of days', () => {
  it("gives the Monday of each week from the first day's to the last day's, and ends past 9999", () => {
    expect(weekMondays('2026-11-25', '2026-12-07')).toEqual(['2026-11-23', '2026-11-30', '2026-12-07']);
    expect(weekMondays('2026-11-23', '2026-11-23')).toEqual(['2026-11-23']);
    expect(weekMondays('2026-11-30', '2026-11-23')).toEqual([]);
    expect(weekMondays('9999-12-20', '9999-12-31')).toEqual(['9999-12-20', '9999-12-27']);
  });
});

describe('rating-days projection (days kept in their weeks)', () => {
  beforeEach(() => (position = 0));

  it('given ratings on two days in the person\'s zone, keeps per day the count and the sums of the overall score and each factor', async () => {
    const store = await storeWith([
      // Made at 23:30 UTC on the 19th, but for the 20th in the person's zone: it counts on its own day.
      submitted('r1', 'ada', '2026-11-20', '2026-11-19T23:30:00.000Z', scores(5, 4, 3, 2, 1)),
      submitted('r2', 'ada', '2026-11-20', '2026-11-20T12:00:00.000Z', scores(4, 4, 4, 4, 5)),
      submitted('r3', 'ada', '2026-11-21', '2026-11-21T08:00:00.000Z', scores(2, 2, 2, 2, 2)),
      submitted('b1', 'bob', '2026-11-20', '2026-11-20T08:00:00.000Z', scores(1, 1, 1, 1, 1)),
    ]);
    // 3.0 + 4.2 = 7.2 → 72 tenths.
    expect(await sumsOf(store, 'ada:2026-11-20')).toEqual({
      day: '2026-11-20', count: 2, overallTenths: 72, relationships: 9, health: 8, purpose: 7, growth: 6, joy: 6, firstAt: '2026-11-19T23:30:00.000Z',
    });
    expect(await sumsOf(store, 'ada:2026-11-21')).toMatchObject({ count: 1, overallTenths: 20, joy: 2 });
    expect(await sumsOf(store, 'bob:2026-11-20')).toMatchObject({ count: 1, overallTenths: 10 });
    expect((await daysOf(store, 'ada')).map((d) => d.day)).toEqual(['2026-11-20', '2026-11-21']);
    // One document per person and ISO week (the 20th and 21st are a Friday and a Saturday).
    expect((await store.find<RatingWeekDoc>('rating-weeks', { userId: 'ada' })).map((w) => w._id)).toEqual(['ada:2026-11-16']);
  });

  it('counts a rating from before days were kept on the UTC day of its time', async () => {
    const store = await storeWith([submitted('old', 'ada', undefined, '2025-03-01T23:59:00.000Z')]);
    expect(await sumsOf(store, 'ada:2025-03-01')).toMatchObject({ count: 1, overallTenths: 30 });
  });

  it('given a correction, replaces that rating\'s values in its day\'s sums', async () => {
    const store = await storeWith([
      submitted('r1', 'ada', '2026-11-20', '2026-11-20T08:00:00.000Z', scores(3, 3, 3, 3, 3)),
      submitted('r2', 'ada', '2026-11-20', '2026-11-20T09:00:00.000Z', scores(2, 2, 2, 2, 2)),
      corrected('r1', 'ada', '2026-11-20', '2026-11-20T08:00:00.000Z', scores(5, 5, 5, 5, 4)),
    ]);
    // 4.8 + 2.0
    expect(await sumsOf(store, 'ada:2026-11-20')).toMatchObject({ count: 2, overallTenths: 68, relationships: 7, joy: 6 });
  });

  it('given a withdrawal, takes the rating out of its day, and the day goes with its last rating; a correction after changes nothing', async () => {
    const store = await storeWith([
      submitted('r1', 'ada', '2026-11-20', '2026-11-20T08:00:00.000Z', scores(3, 3, 3, 3, 3)),
      submitted('r2', 'ada', '2026-11-20', '2026-11-20T09:00:00.000Z', scores(5, 5, 5, 5, 5)),
      submitted('r3', 'ada', '2026-11-21', '2026-11-21T09:00:00.000Z'),
      withdrawn('r1', 'ada', '2026-11-20', '2026-11-20T08:00:00.000Z'),
      withdrawn('r3', 'ada', '2026-11-21', '2026-11-21T09:00:00.000Z'),
      corrected('r3', 'ada', '2026-11-21', '2026-11-21T09:00:00.000Z', scores(1, 1, 1, 1, 1)),
    ]);
    expect(await sumsOf(store, 'ada:2026-11-20')).toEqual({
      day: '2026-11-20', count: 1, overallTenths: 50, relationships: 5, health: 5, purpose: 5, growth: 5, joy: 5, firstAt: '2026-11-20T09:00:00.000Z',
    });
    expect(await sumsOf(store, 'ada:2026-11-21')).toBeNull();
  });

  it('counts an imported rating (made long before it arrives) on its own day', async () => {
    const store = await storeWith([
      submitted('r1', 'ada', '2026-11-20', '2026-11-20T08:00:00.000Z'),
      submitted('imported', 'ada', '2024-02-29', '2024-02-29T10:00:00.000Z', scores(4, 4, 4, 4, 4)),
    ]);
    expect(await sumsOf(store, 'ada:2024-02-29')).toMatchObject({ count: 1, overallTenths: 40, firstAt: '2024-02-29T10:00:00.000Z' });
    expect(await store.get('rating-day-span', 'ada')).toMatchObject({ first: '2024-02-29', last: '2026-11-20' });
  });

  it('given an account deletion, leaves nothing of that person, and the other person\'s days as they were', async () => {
    const store = await storeWith([
      submitted('r1', 'ada', '2026-01-02', '2026-01-02T08:00:00.000Z'),
      submitted('r2', 'ada', '2026-11-20', '2026-11-20T08:00:00.000Z'),
      submitted('r3', 'ada', '2025-12-31', '2026-01-01T08:00:00.000Z'),
      submitted('b1', 'bob', '2026-11-20', '2026-11-20T08:00:00.000Z'),
      ev('UserDeleted', { userId: 'ada', deletedAt: '2026-11-22T00:00:00.000Z' }),
    ]);
    expect(await store.find('rating-weeks', { userId: 'ada' })).toEqual([]);
    expect(await store.get('rating-day-span', 'ada')).toBeNull();
    expect(await sumsOf(store, 'bob:2026-11-20')).toMatchObject({ count: 1 });
    expect(await store.get('rating-day-span', 'bob')).toMatchObject({ first: '2026-11-20', last: '2026-11-20' });
  });

  it('gives the same documents when events are applied twice', async () => {
    const events = [
      submitted('r1', 'ada', '2026-11-20', '2026-11-20T08:00:00.000Z', scores(2, 3, 4, 5, 1)),
      submitted('r2', 'ada', '2026-11-20', '2026-11-20T09:00:00.000Z'),
      corrected('r1', 'ada', '2026-11-20', '2026-11-20T08:00:00.000Z', scores(5, 5, 5, 5, 5)),
      withdrawn('r2', 'ada', '2026-11-20', '2026-11-20T09:00:00.000Z'),
    ];
    const store = await storeWith(events);
    const once = { week: await store.get('rating-weeks', 'ada:2026-11-16'), totals: await store.get('rating-totals', 'ada') };
    for (const e of events) await applyEvent(store, days, e);
    expect({ week: await store.get('rating-weeks', 'ada:2026-11-16'), totals: await store.get('rating-totals', 'ada') }).toEqual(once);
    expect(await sumsOf(store, 'ada:2026-11-20')).toMatchObject({ count: 1, overallTenths: 50 });
  });

  it('keeps each person\'s totals (the whole history\'s summary) equal to the sum of their days, through corrections, withdrawals, redeliveries and a deletion', async () => {
    // A fixed pseudo-random run: 600 events over two people, ten days and a pool of ratings.
    let seed = 7;
    // mulberry32: a small generator whose low bits are as random as its high ones.
    const next = (n: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) % n;
    };
    const events: RecordedEvent[] = [];
    const standing = new Map<string, { userId: string; day: string; at: string; s: ReturnType<typeof scores> }>();
    for (let i = 0; i < 600; i++) {
      const userId = next(2) === 0 ? 'ada' : 'bob';
      const s = scores(1 + next(5), 1 + next(5), 1 + next(5), 1 + next(5), 1 + next(5));
      const known = [...standing.entries()].filter(([, r]) => r.userId === userId);
      const pick = known.length > 0 ? known[next(known.length)] : undefined;
      const roll = next(10);
      if (roll < 5 || !pick) {
        const day = `2026-11-${String(10 + next(10)).padStart(2, '0')}`;
        const at = `${day}T${String(next(24)).padStart(2, '0')}:00:00.000Z`;
        standing.set(`${userId}-${i}`, { userId, day, at, s });
        events.push(submitted(`${userId}-${i}`, userId, day, at, s));
      } else if (roll < 7) {
        events.push(corrected(pick[0], userId, pick[1].day, pick[1].at, s));
        pick[1].s = s;
      }
      else if (roll < 9) {
        events.push(withdrawn(pick[0], userId, pick[1].day, pick[1].at));
        standing.delete(pick[0]);
      } else events.push(events[next(events.length)]); // a redelivery of an earlier event
    }
    const store = await storeWith(events);
    for (const userId of ['ada', 'bob']) {
      const rated = await daysOf(store, userId);
      const fromDays = ratingSummaryOf(rated, { from: null, to: null });
      const totals = await store.get<RatingTotalsDoc>('rating-totals', userId);
      expect(totals).toMatchObject({ userId, count: fromDays.count, daysTracked: fromDays.daysTracked });
      expect(ratingSummaryOf([{ ...totals!, day: '' }], { from: null, to: null }).averages).toEqual(fromDays.averages);
      expect(totals!.count).toBe([...standing.values()].filter((r) => r.userId === userId).length);
      // Each day holds the sums of its standing ratings as they stand now, worked out here from the ratings alone.
      const mine = [...standing.values()].filter((r) => r.userId === userId);
      const expected = [...new Set(mine.map((r) => r.day))].sort().map((day) => {
        const of = mine.filter((r) => r.day === day);
        const sum = (f: 'relationships' | 'health' | 'purpose' | 'growth' | 'joy') => of.reduce((n, r) => n + r.s[f], 0);
        return {
          day,
          count: of.length,
          overallTenths: of.reduce((n, r) => n + Math.round(r.s.overallScore * 10), 0),
          relationships: sum('relationships'), health: sum('health'), purpose: sum('purpose'), growth: sum('growth'), joy: sum('joy'),
          firstAt: of.map((r) => r.at).sort()[0],
        };
      });
      expect(rated.map(({ ratings: _ratings, ...sums }) => sums)).toEqual(expected);
      expect(rated.every((d) => d.ratings.length === d.count)).toBe(true);
    }
    expect(await sumsOfTotals(store, 'ada')).toEqual(await sumsOfDays(store, 'ada'));
    // Each week holds only its own days, and is keyed by its Monday.
    for (const userId of ['ada', 'bob']) {
      for (const w of await store.find<RatingWeekDoc>('rating-weeks', { userId })) {
        expect(w._id).toBe(`${userId}:${w.weekStart}`);
        expect(w.days.every((d) => isoWeekOfDay(d.day).weekStart === w.weekStart)).toBe(true);
      }
    }

    await applyEvent(store, days, ev('UserDeleted', { userId: 'ada', deletedAt: '2026-11-30T00:00:00.000Z' }));
    expect(await store.get('rating-totals', 'ada')).toBeNull();
    expect(await store.find('rating-weeks', { userId: 'ada' })).toEqual([]);
    expect((await store.find('rating-weeks', { userId: 'bob' })).length).toBeGreaterThan(0);
    expect(await store.get('rating-totals', 'bob')).toMatchObject({ userId: 'bob' });
  });
});
