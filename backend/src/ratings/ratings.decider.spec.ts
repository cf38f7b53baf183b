import { expectRefusal } from '../testing/refusals';
import { addDays, overallScore, RATINGS_PER_DAY_MAX } from '@joy/domain';
import { ratingsImportDecider } from './ratings-import.decider';
import { KEYS_REMEMBERED, type RatingEvent, type RatingsCommand, type RatingsState, type RatingSubmitted, ratingsDecider, standingRating, standingRatings, SubmitRating } from './ratings.decider';

const at = new Date('2026-11-20T08:30:00.000Z');
const submit = (scores: Partial<SubmitRating['scores']>): SubmitRating => ({
  ratingId: 'r1',
  userId: 'u1',
  at,
  scores: { relationships: 3, health: 3, purpose: 3, growth: 3, joy: 3, ...scores },
});
/** The i-th of many ratings' day: i days before `at`'s, cycling within the year (no day gets near its limit). */
const dayBack = (i: number) => addDays('2026-11-20', -(i % 300));

describe('ratings decider', () => {
  it('records a rating with the overall score as the mean to one decimal', () => {
    const events = ratingsDecider.decide(submit({ relationships: 5, health: 4, purpose: 4, growth: 3, joy: 5 }), ratingsDecider.initialState);
    expect(events).toEqual([
      {
        type: 'RatingSubmitted',
        data: { ratingId: 'r1', userId: 'u1', relationships: 5, health: 4, purpose: 4, growth: 3, joy: 5, overallScore: 4.2, submittedAt: at.toISOString(), day: '2026-11-20' },
      },
    ]);
  });

  it.each([
    [{ relationships: 1, health: 1, purpose: 1, growth: 1, joy: 2 }, 1.2],
    [{ relationships: 5, health: 5, purpose: 5, growth: 5, joy: 5 }, 5],
    [{ relationships: 2, health: 3, purpose: 3, growth: 3, joy: 3 }, 2.8],
    [{ relationships: 4, health: 4, purpose: 4, growth: 4, joy: 5 }, 4.2],
  ])('overall score of %o is %d', (scores, expected) => {
    expect(overallScore(scores)).toBe(expected);
  });

  it.each([0, 6, 2.5, -1, NaN, '3', null, undefined])('refuses %p as a factor value, naming the factor', (value) => {
    expectRefusal(() => ratingsDecider.decide(submit({ growth: value as number }), ratingsDecider.initialState), {
      kind: 'invalid',
      code: 'rating.factor_out_of_range',
      message: 'growth must be a whole number from 1 to 5',
    });
  });

  describe('Idempotency-Key: one save, one rating', () => {
    const fold = (events: ReturnType<typeof ratingsDecider.decide>, state: RatingsState = ratingsDecider.initialState) => events.reduce(ratingsDecider.evolve, state);
    const first = ratingsDecider.decide({ ...submit({ joy: 5 }), idempotencyKey: 'k-1' }, ratingsDecider.initialState);

    it('records the key with the rating, and decides nothing when the same key brings the same rating again', () => {
      expect((first[0].data as RatingSubmitted['data']).idempotencyKey).toBe('k-1');
      expect(ratingsDecider.decide({ ...submit({ joy: 5 }), ratingId: 'r2', idempotencyKey: 'k-1' }, fold(first))).toEqual([]);
      expect(ratingsDecider.decide({ ...submit({ joy: 5 }), ratingId: 'r2', idempotencyKey: 'k-2' }, fold(first))).toHaveLength(1);
      expect(ratingsDecider.decide({ ...submit({ joy: 5 }), ratingId: 'r2' }, fold(first))).toHaveLength(1);
    });

    it('refuses a key that saved a different rating', () => {
      expectRefusal(() => ratingsDecider.decide({ ...submit({ joy: 4 }), idempotencyKey: 'k-1' }, fold(first)), {
        kind: 'conflict',
        code: 'rating.idempotency_key_reused',
        message: 'This Idempotency-Key already saved a different rating; send a new key for a new rating',
      });
    });

    it('refuses the same save again once its rating was deleted, and a new key saves it anew', () => {
      const saved = fold(first);
      const withdrawn = fold(ratingsDecider.decide({ kind: 'withdraw', ratingId: 'r1', userId: 'u1', at: new Date('2026-11-21T09:00:00.000Z') }, saved), saved);
      expectRefusal(() => ratingsDecider.decide({ ...submit({ joy: 5 }), ratingId: 'r2', idempotencyKey: 'k-1' }, withdrawn), {
        kind: 'conflict',
        code: 'rating.idempotency_key_withdrawn',
        message: 'The rating this Idempotency-Key saved has been deleted since; send a new key to save a new rating',
      });
      expect(ratingsDecider.decide({ ...submit({ joy: 5 }), ratingId: 'r2', idempotencyKey: 'k-2' }, withdrawn)).toHaveLength(1);
    });

    it('remembers the keys of the latest ratings only', () => {
      let state = fold(first);
      for (let i = 0; i < KEYS_REMEMBERED; i++) state = fold(ratingsDecider.decide({ ...submit({}), ratingId: `n${i}`, idempotencyKey: `n${i}`, day: dayBack(i) }, state), state);
      expect(state.keyed).toHaveLength(KEYS_REMEMBERED);
      expect(ratingsDecider.decide({ ...submit({ joy: 5 }), ratingId: 'late', idempotencyKey: 'k-1' }, state)).toHaveLength(1);
      expect(ratingsDecider.decide({ ...submit({}), ratingId: 'again', idempotencyKey: `n${KEYS_REMEMBERED - 1}` }, state)).toEqual([]);
    });
  });

  describe('corrections and withdrawals: only a standing rating of the stream', () => {
    const later = new Date('2026-11-21T09:00:00.000Z');
    const fold = (state: RatingsState, events: RatingEvent[]) => events.reduce(ratingsDecider.evolve, state);
    const given = (...commands: RatingsCommand[]) => commands.reduce((state, c) => fold(state, ratingsDecider.decide(c, state)), ratingsDecider.initialState);
    const r1 = submit({ joy: 2 });
    const r2: SubmitRating = { ...submit({ joy: 4 }), ratingId: 'r2', at: new Date('2026-11-20T20:00:00.000Z') };
    const correct = (ratingId: string, scores: Partial<SubmitRating['scores']>): RatingsCommand => ({
      kind: 'correct',
      ratingId,
      userId: 'u1',
      at: later,
      scores: { relationships: 3, health: 3, purpose: 3, growth: 3, joy: 3, ...scores },
    });
    const withdraw = (ratingId: string): RatingsCommand => ({ kind: 'withdraw', ratingId, userId: 'u1', at: later });
    const notFound = { kind: 'not_found', code: 'rating.not_found', message: 'Rating not found' } as const;

    it('corrects a rating: new factors and overall score, the same id and time', () => {
      expect(ratingsDecider.decide(correct('r1', { joy: 5, health: 5 }), given(r1, r2))).toEqual([
        {
          type: 'RatingCorrected',
          data: { ratingId: 'r1', userId: 'u1', relationships: 3, health: 5, purpose: 3, growth: 3, joy: 5, overallScore: 3.8, submittedAt: at.toISOString(), day: '2026-11-20', note: null, correctedAt: later.toISOString() },
        },
      ]);
    });

    it('decides nothing when the correction brings the values the rating already has', () => {
      expect(ratingsDecider.decide(correct('r1', { joy: 2 }), given(r1))).toEqual([]);
      expect(ratingsDecider.decide(correct('r1', { joy: 5 }), given(r1, correct('r1', { joy: 5 })))).toEqual([]);
    });

    it('refuses a correction out of range, naming the factor', () => {
      expectRefusal(() => ratingsDecider.decide(correct('r1', { purpose: 0 }), given(r1)), {
        kind: 'invalid',
        code: 'rating.factor_out_of_range',
        message: 'purpose must be a whole number from 1 to 5',
      });
    });

    it('withdraws the newest rating, naming the one that is latest now', () => {
      expect(ratingsDecider.decide(withdraw('r2'), given(r1, r2, correct('r1', { joy: 5 })))).toEqual([
        {
          type: 'RatingWithdrawn',
          data: {
            ratingId: 'r2',
            userId: 'u1',
            submittedAt: r2.at.toISOString(),
            day: '2026-11-20', // the week it counted in
            withdrawnAt: later.toISOString(),
            latest: { ratingId: 'r1', relationships: 3, health: 3, purpose: 3, growth: 3, joy: 5, overallScore: 3.4, submittedAt: at.toISOString(), day: '2026-11-20' },
          },
        },
      ]);
    });

    it('names as latest the rating of the latest day, not a missed day rated later', () => {
      // r3 rates the 15th, made after r2 (the 20th); withdrawing r2 leaves r1 (the 20th, made earlier) as the latest.
      const r3: SubmitRating = { ...submit({ joy: 1 }), ratingId: 'r3', day: '2026-11-15', at: new Date('2026-11-20T21:00:00.000Z') };
      const [withdrawn] = ratingsDecider.decide(withdraw('r2'), given(r1, r2, r3));
      expect(withdrawn.data).toMatchObject({ ratingId: 'r2', latest: { ratingId: 'r1', day: '2026-11-20' } });
    });

    it('withdraws an older rating (the latest stays) and the last one (no latest remains)', () => {
      expect(ratingsDecider.decide(withdraw('r1'), given(r1, r2))[0].data).toMatchObject({ ratingId: 'r1', latest: { ratingId: 'r2', joy: 4 } });
      expect(ratingsDecider.decide(withdraw('r1'), given(r1))[0].data).toMatchObject({ ratingId: 'r1', latest: null });
    });

    it.each([
      ['an unknown rating', () => given(r1), 'nope'],
      ['a rating of another stream (another person)', () => ratingsDecider.initialState, 'r1'],
      ['a withdrawn rating', () => given(r1, r2, withdraw('r1')), 'r1'],
    ])('refuses to correct or withdraw %s with the same 404', (_label, state, ratingId) => {
      expectRefusal(() => ratingsDecider.decide(correct(ratingId, { joy: 5 }), state()), notFound);
      expectRefusal(() => ratingsDecider.decide(withdraw(ratingId), state()), notFound);
    });

    it('answers a retried save with the rating as corrected since', () => {
      const keyed = { ...r1, idempotencyKey: 'k-9' };
      const state = given(keyed, correct('r1', { joy: 5 }));
      expect(ratingsDecider.decide(keyed, state)).toEqual([]);
      expect(standingRating(state, 'r1')).toMatchObject({ joy: 5, overallScore: 3.4 });
    });
  });

  it('folds a long stream (10,000 ratings) and still decides on its oldest rating', () => {
    let state = ratingsDecider.initialState;
    const events: RatingEvent[] = [];
    for (let i = 0; i < 10_000; i++) {
      const [event] = ratingsDecider.decide({ ...submit({ joy: 1 + (i % 5) }), ratingId: `n${i}`, day: dayBack(i) }, state);
      events.push(event);
      state = ratingsDecider.evolve(state, event);
    }
    // The latest left is the one of the latest day (2026-11-20, every 300th), the last of them made (all at the same
    // time here: the newest in the stream).
    expect(ratingsDecider.decide({ kind: 'withdraw', ratingId: 'n0', userId: 'u1', at }, state)[0].data).toMatchObject({ ratingId: 'n0', latest: { ratingId: 'n9900' } });
    expect(standingRatings(events.map((e) => ({ type: e.type, data: e.data })))).toHaveLength(10_000);
  });

  describe('a day holds at most RATINGS_PER_DAY_MAX ratings', () => {
    const full = () => {
      let state = ratingsDecider.initialState;
      for (let i = 0; i < RATINGS_PER_DAY_MAX; i++) {
        const [event] = ratingsDecider.decide({ ...submit({}), ratingId: `d${i}`, idempotencyKey: `k${i}` }, state);
        state = ratingsDecider.evolve(state, event);
      }
      return state;
    };

    it('refuses one more rating of that day, naming the day, and takes other days and retried saves as before', () => {
      const state = full();
      expectRefusal(() => ratingsDecider.decide({ ...submit({}), ratingId: 'one-more' }, state), {
        kind: 'conflict',
        code: 'rating.day_full',
        message: `2026-11-20 already has ${RATINGS_PER_DAY_MAX} ratings, the most one day can hold. Delete one of them to add another.`,
      });
      expect(ratingsDecider.decide({ ...submit({}), ratingId: 'day-before', day: '2026-11-19' }, state)).toHaveLength(1);
      // The answer a retried save gets (its key saved the day's last rating) is the rating, not a refusal.
      expect(ratingsDecider.decide({ ...submit({}), ratingId: 'retry', idempotencyKey: `k${RATINGS_PER_DAY_MAX - 1}` }, state)).toEqual([]);
    });

    it('takes a rating again once one of the day is deleted (a deleted rating frees its place)', () => {
      const fullDay = full();
      expect(() => ratingsDecider.decide({ ...submit({}), ratingId: 'one-more' }, fullDay)).toThrow(/already has/);
      const [withdrawal] = ratingsDecider.decide({ kind: 'withdraw', ratingId: 'd7', userId: 'u1', at }, fullDay);
      const state = ratingsDecider.evolve(fullDay, withdrawal);
      const [event] = ratingsDecider.decide({ ...submit({}), ratingId: 'in-its-place' }, state);
      expect(event.data).toMatchObject({ ratingId: 'in-its-place', day: '2026-11-20' });
      expect(() => ratingsDecider.decide({ ...submit({}), ratingId: 'and-one-more' }, ratingsDecider.evolve(state, event))).toThrow(/already has/);
      // The counts were carried forward from the full day's; asked about that state again, it is still full.
      expect(() => ratingsDecider.decide({ ...submit({}), ratingId: 'one-more' }, fullDay)).toThrow(/already has/);
      expect(ratingsDecider.decide({ ...submit({}), ratingId: 'in-its-place-again' }, state)).toHaveLength(1);
    });
  });

  it('lists the standing ratings oldest first, as last corrected, without the withdrawn ones (the export)', () => {
    const data = (ratingId: string, joy: number) => ({ ratingId, userId: 'u1', relationships: 3, health: 3, purpose: 3, growth: 3, joy, overallScore: (12 + joy) / 5, submittedAt: at.toISOString() });
    expect(
      standingRatings([
        { type: 'RatingSubmitted', data: data('a', 1) },
        { type: 'RatingSubmitted', data: data('b', 2) },
        { type: 'RatingSubmitted', data: data('c', 3) },
        { type: 'RatingCorrected', data: { ...data('a', 5), correctedAt: at.toISOString() } },
        { type: 'RatingWithdrawn', data: { ratingId: 'b', userId: 'u1', submittedAt: at.toISOString(), withdrawnAt: at.toISOString(), latest: null } },
      ]).map((r) => `${r.ratingId}:${r.joy}`),
    ).toEqual(['a:5', 'c:3']);
  });

  describe('days and notes', () => {
    /** `act` is refused with 400 (request.invalid) naming `field`. */
    const refusedNaming = (act: () => unknown, field: string) => {
      let error: unknown;
      try {
        act();
      } catch (err) {
        error = err;
      }
      expect(error).toMatchObject({ kind: 'invalid', code: 'request.invalid', errors: [{ field }] });
    };
    const fold = (state: RatingsState, events: RatingEvent[]) => events.reduce(ratingsDecider.evolve, state);
    const dayOfNew = (command: Partial<SubmitRating>) => (ratingsDecider.decide({ ...submit({}), ...command }, ratingsDecider.initialState)[0] as RatingSubmitted).data;

    it("rates today in the person's zone unless an earlier day is given", () => {
      // 23:30 UTC on 20 November is already the 21st in Paris.
      expect(dayOfNew({ timeZone: 'Pacific/Auckland' }).day).toBe('2026-11-20'); // 21:30 there
      expect(dayOfNew({ at: new Date('2026-11-20T23:30:00Z'), timeZone: 'Europe/Paris' }).day).toBe('2026-11-21');
      expect(dayOfNew({ at: new Date('2026-11-20T23:30:00Z') }).day).toBe('2026-11-20');
      expect(dayOfNew({ day: '2026-11-02', timeZone: 'Europe/Paris' }).day).toBe('2026-11-02');
      expect(dayOfNew({ day: '2025-11-20' }).day).toBe('2025-11-20');
    });

    it('refuses a day in the future of the zone, more than 365 days back, or not a day, naming day', () => {
      const refused = (command: Partial<SubmitRating>) => refusedNaming(() => ratingsDecider.decide({ ...submit({}), ...command }, ratingsDecider.initialState), 'day');
      refused({ day: '2026-11-21' });
      refused({ day: '2025-11-19' });
      refused({ day: '2026-02-30' });
      // Tomorrow in UTC is today in Auckland: allowed there.
      expect(dayOfNew({ day: '2026-11-21', at: new Date('2026-11-20T12:00:00Z'), timeZone: 'Pacific/Auckland' }).day).toBe('2026-11-21');
    });

    it('keeps a trimmed note, and refuses one over 1,000 characters or with hidden characters, naming note', () => {
      expect(dayOfNew({ note: '  slept well \n' }).note).toBe('slept well');
      expect(dayOfNew({ note: '   ' })).not.toHaveProperty('note');
      expect(dayOfNew({ note: `  ${'x'.repeat(1000)}  ` }).note).toHaveLength(1000);
      const refused = (note: string) => refusedNaming(() => ratingsDecider.decide({ ...submit({}), note }, ratingsDecider.initialState), 'note');
      refused('x'.repeat(1001));
      refused('evil\u202Etext');
      // An emoji is one character: a note of 1,000 of them is taken, one more is not.
      expect(dayOfNew({ note: '👍🏽'.repeat(1000) }).note).toBe('👍🏽'.repeat(1000));
      refused('👍🏽'.repeat(1001));
    });

    it('corrects the note (left out: kept; null: removed) and keeps the day', () => {
      const state = fold(ratingsDecider.initialState, ratingsDecider.decide({ ...submit({}), day: '2026-11-18', note: 'first' }, ratingsDecider.initialState));
      const correct = (note?: string | null) =>
        ratingsDecider.decide({ kind: 'correct', ratingId: 'r1', userId: 'u1', at, scores: { relationships: 3, health: 3, purpose: 3, growth: 3, joy: 3 }, note }, state);
      expect(correct()).toEqual([]);
      expect(correct('first')).toEqual([]);
      expect(correct('second')[0].data).toMatchObject({ day: '2026-11-18', note: 'second' });
      expect(correct(null)[0].data).toMatchObject({ day: '2026-11-18', note: null });
    });

    it('never copies a note into a withdrawal', () => {
      let state = fold(ratingsDecider.initialState, ratingsDecider.decide({ ...submit({}), note: 'private' }, ratingsDecider.initialState));
      state = fold(state, ratingsDecider.decide({ ...submit({}), ratingId: 'r2', at: new Date('2026-11-20T09:00:00Z') }, state));
      const [withdrawn] = ratingsDecider.decide({ kind: 'withdraw', ratingId: 'r2', userId: 'u1', at }, state);
      expect(JSON.stringify(withdrawn)).not.toContain('private');
      expect(withdrawn.data).toMatchObject({ latest: { ratingId: 'r1', day: '2026-11-20' } });
    });
  });
});

describe('a closed ratings stream (the account is being deleted)', () => {
  const closed: RatingEvent = { type: 'RatingsClosed', data: { userId: 'u1', closedAt: at.toISOString() } };
  const submitted = ratingsDecider.decide(submit({}), ratingsDecider.initialState);
  const state = [...submitted, closed].reduce(ratingsDecider.evolve, ratingsDecider.initialState);

  it.each<[string, RatingsCommand]>([
    ['a new rating', { ...submit({}), ratingId: 'r2' }],
    ['a correction', { kind: 'correct', ratingId: 'r1', userId: 'u1', at, scores: { relationships: 4, health: 4, purpose: 4, growth: 4, joy: 4 } }],
    ['a withdrawal', { kind: 'withdraw', ratingId: 'r1', userId: 'u1', at }],
  ])('refuses %s: 401, the account was deleted meanwhile', (_what, command) => {
    expectRefusal(() => ratingsDecider.decide(command, state), { kind: 'unauthenticated', code: 'auth.unauthorized', message: 'This account has been deleted.' });
  });

  it('refuses an import into it too', () => {
    // The import folds the stream's events as stored, whatever their type.
    const importState = [...submitted, closed].reduce((s, e) => ratingsImportDecider.evolve(s, e as RatingSubmitted), ratingsImportDecider.initialState);
    expectRefusal(
      () => ratingsImportDecider.decide({ userId: 'u1', ratings: [{ sourceId: 'x', ratingId: 'y', createdAt: at.toISOString(), scores: { relationships: 2, health: 2, purpose: 2, growth: 2, joy: 2 } }] }, importState),
      { kind: 'unauthenticated', code: 'auth.unauthorized' },
    );
  });
});
