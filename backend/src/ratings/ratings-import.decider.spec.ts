import { type FactorScores, RATINGS_PER_DAY_MAX } from '@joy/domain';
import { expectRefusal } from '../testing/refusals';
import type { RatingCorrected, RatingSubmitted, RatingWithdrawn } from './ratings.decider';
import { type RatingToImport, ratingsImportDecider } from './ratings-import.decider';

const given = (events: (RatingSubmitted | RatingCorrected | RatingWithdrawn)[]) => events.reduce((state, e) => ratingsImportDecider.evolve(state, e as RatingSubmitted), ratingsImportDecider.initialState);
const scores = (n: number): FactorScores => ({ relationships: n, health: n, purpose: n, growth: 3, joy: 3 });
const submitted = (ratingId: string, submittedAt: string, s: FactorScores): RatingSubmitted => ({
  type: 'RatingSubmitted',
  data: { ratingId, userId: 'ada', ...s, overallScore: (s.relationships + s.health + s.purpose + s.growth + s.joy) / 5, submittedAt, day: submittedAt.slice(0, 10) },
});
const toImport = (sourceId: string, createdAt: string, s: FactorScores, ratingId = `new-${sourceId}`): RatingToImport => ({ sourceId, ratingId, createdAt, scores: s });
const decide = (ratings: RatingToImport[], history: (RatingSubmitted | RatingCorrected | RatingWithdrawn)[] = []) => ratingsImportDecider.decide({ userId: 'ada', ratings }, given(history));

describe('ratings import decider', () => {
  it('adds each rating at its original time under its new id, with the overall score computed', () => {
    expect(decide([toImport('r1', '2025-06-01T07:30:00.000Z', scores(1)), toImport('r2', '2025-06-02T07:30:00.000Z', scores(5))])).toEqual([
      { type: 'RatingSubmitted', data: { ratingId: 'new-r1', userId: 'ada', ...scores(1), overallScore: 1.8, submittedAt: '2025-06-01T07:30:00.000Z', day: '2025-06-01' } },
      { type: 'RatingSubmitted', data: { ratingId: 'new-r2', userId: 'ada', ...scores(5), overallScore: 4.2, submittedAt: '2025-06-02T07:30:00.000Z', day: '2025-06-02' } },
    ]);
  });

  it("keeps the file's day and note, and gives a rating without a day its time's day in the person's zone", () => {
    const events = ratingsImportDecider.decide(
      {
        userId: 'ada',
        timeZone: 'Pacific/Auckland',
        ratings: [
          { ...toImport('r1', '2025-06-01T20:30:00.000Z', scores(1)), day: '2025-05-30', note: 'a long walk' },
          toImport('r2', '2025-06-01T20:30:00.000Z', scores(2)),
        ],
      },
      given([]),
    );
    expect(events.map((e) => [e.data.day, e.data.note])).toEqual([
      ['2025-05-30', 'a long walk'],
      ['2025-06-02', undefined],
    ]);
  });

  it('skips a rating whose id is one of the account’s (its own export), or the id it got when imported before', () => {
    const history = [submitted('r1', '2025-06-01T07:30:00.000Z', scores(1)), submitted('new-r2', '2025-06-02T07:30:00.000Z', scores(2))];
    // Even with other factors (corrected since), the same id is the same rating.
    expect(decide([toImport('r1', '2025-06-01T07:30:00.000Z', scores(4)), toImport('r2', '2025-06-02T07:30:00.000Z', scores(5))], history)).toEqual([]);
  });

  it('skips a rating made at the same instant with the same five factors, whatever its id', () => {
    const history = [submitted('x', '2025-06-01T07:30:00.000Z', scores(1))];
    expect(decide([toImport('other', '2025-06-01T09:30:00+02:00', scores(1))], history)).toEqual([]);
    // Another instant, or other factors: another rating.
    expect(decide([toImport('a', '2025-06-01T07:30:00.001Z', scores(1)), toImport('b', '2025-06-01T07:30:00.000Z', scores(2))], history)).toHaveLength(2);
  });

  // A review (11-27): A corrects a rating and exports; B imports the file (new ids) and exports; A imports B's file:
  // the rating came back beside itself, its corrected values unknown to the key.
  it('skips a rating made at the same instant with the values it was corrected to (moved A → B → A)', () => {
    const original = submitted('x', '2025-06-01T07:30:00.000Z', scores(1));
    const correction: RatingCorrected = { type: 'RatingCorrected', data: { ...original.data, ...scores(4), overallScore: 3.6, correctedAt: '2025-06-03T10:00:00.000Z' } };
    expect(decide([toImport('b-copy-of-x', '2025-06-01T07:30:00.000Z', scores(4))], [original, correction])).toEqual([]);
    // The values it had before are still the same rating (an older export of it).
    expect(decide([toImport('older-copy', '2025-06-01T07:30:00.000Z', scores(1))], [original, correction])).toEqual([]);
  });

  it('counts a rating repeated inside the file once', () => {
    const r = toImport('r1', '2025-06-01T07:30:00.000Z', scores(1));
    expect(decide([r, r, { ...r, sourceId: 'copy', ratingId: 'new-copy' }])).toHaveLength(1);
  });

  it('adds nothing when the same ratings are decided again on the stream they were added to', () => {
    const ratings = [toImport('r1', '2025-06-01T07:30:00.000Z', scores(1)), toImport('r2', '2025-06-02T07:30:00.000Z', scores(2))];
    const first = decide(ratings);
    expect(first).toHaveLength(2);
    expect(decide(ratings, first)).toEqual([]);
  });

  it('refuses ratings that would fill a day past RATINGS_PER_DAY_MAX, counting the standing ones there (not the deleted)', () => {
    const at = (i: number) => `2025-06-01T${String(Math.floor(i / 60) % 24).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00.000Z`;
    const history: (RatingSubmitted | RatingWithdrawn)[] = Array.from({ length: RATINGS_PER_DAY_MAX - 1 }, (_, i) => submitted(`h${i}`, at(i), scores(1)));
    const withdrawal: RatingWithdrawn = {
      type: 'RatingWithdrawn',
      data: { ratingId: 'h0', userId: 'ada', submittedAt: at(0), day: '2025-06-01', withdrawnAt: '2025-06-02T08:00:00.000Z', latest: null },
    };
    const two = [toImport('f1', '2025-06-01T22:00:00.000Z', scores(2)), toImport('f2', '2025-06-01T23:00:00.000Z', scores(2))];
    expectRefusal(() => decide(two, history), {
      kind: 'conflict',
      code: 'rating.day_full',
      message: `The file would give 2025-06-01 more than ${RATINGS_PER_DAY_MAX} ratings, the most one day can hold (it has ${RATINGS_PER_DAY_MAX - 1} in Joy now). Take some of that day out of the file, or delete some of it in Joy, and import again.`,
    });
    // One of the day's withdrawn: both fit; another day takes any number.
    expect(decide(two, [...history, withdrawal])).toHaveLength(2);
    expect(decide([toImport('f3', '2025-06-02T07:00:00.000Z', scores(2))], history)).toHaveLength(1);
  });

  it('decides the same on a state that grew since its last decision (its index handed on) as on one folded afresh', () => {
    const at = (i: number) => new Date(Date.UTC(2025, 0, 1, 6) + i * 3_600_000).toISOString();
    const file = Array.from({ length: 300 }, (_, i) => toImport(`f${i}`, at(i), scores(1 + (i % 5))));
    // As the import handler does: the whole file decided, then each part on the stream as the writes left it.
    let history: (RatingSubmitted | RatingWithdrawn)[] = [submitted('own', at(5), scores(1))];
    let state = given(history);
    const first = state;
    const whole = ratingsImportDecider.decide({ userId: 'ada', ratings: file }, state);
    const added: RatingSubmitted[] = [];
    for (let i = 0; i < file.length; i += 100) {
      const part = ratingsImportDecider.decide({ userId: 'ada', ratings: file.slice(i, i + 100) }, state);
      expect(part).toEqual(ratingsImportDecider.decide({ userId: 'ada', ratings: file.slice(i, i + 100) }, given(history)));
      added.push(...part);
      for (const e of part) state = ratingsImportDecider.evolve(state, e);
      history = [...history, ...part];
    }
    expect(added).toEqual(whole);
    // The same file again adds nothing; a withdrawal after the index was made frees its day's place.
    expect(ratingsImportDecider.decide({ userId: 'ada', ratings: file }, state)).toEqual([]);
    const day = added[0].data.day!;
    const standing = history.filter((e) => e.data.day === day).length;
    const fill = (n: number) => Array.from({ length: n }, (_, i) => toImport(`d${i}`, `${day}T00:${String(i % 60).padStart(2, '0')}:${String(Math.floor(i / 60)).padStart(2, '0')}.000Z`, scores(5)));
    expect(() => ratingsImportDecider.decide({ userId: 'ada', ratings: fill(RATINGS_PER_DAY_MAX - standing + 1) }, state)).toThrow(/more than 100 ratings/);
    expect(ratingsImportDecider.decide({ userId: 'ada', ratings: fill(RATINGS_PER_DAY_MAX - standing) }, state)).toHaveLength(RATINGS_PER_DAY_MAX - standing);
    const withdrawal: RatingWithdrawn = {
      type: 'RatingWithdrawn',
      data: { ratingId: added[0].data.ratingId, userId: 'ada', submittedAt: added[0].data.submittedAt, day, withdrawnAt: at(400), latest: null },
    };
    const later = ratingsImportDecider.evolve(state, withdrawal as unknown as RatingSubmitted);
    expect(ratingsImportDecider.decide({ userId: 'ada', ratings: fill(RATINGS_PER_DAY_MAX - standing + 1) }, later)).toHaveLength(RATINGS_PER_DAY_MAX - standing + 1);
    // An older state decided after its index was handed on still sees only its own ratings.
    expect(ratingsImportDecider.decide({ userId: 'ada', ratings: file }, first)).toEqual(whole);
  });

  it('refuses a rating that was not checked (another entry point)', () => {
    expect(() => decide([toImport('r1', 'soon', scores(1))])).toThrow(/not checked/);
    expect(() => decide([toImport('r1', '2025-06-01T07:30:00.000Z', { ...scores(1), joy: 9 })])).toThrow(/not checked/);
  });
});
