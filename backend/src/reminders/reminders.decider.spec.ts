import { reminderDecision, ReminderFacts, remindersDecider, reminderWindowEnd } from './reminders.decider';

const facts = (overrides: Partial<ReminderFacts> = {}): ReminderFacts => ({
  timeZone: 'Europe/Paris',
  reminderTime: '20:00',
  latestDay: null,
  lastReminderDay: null,
  ...overrides,
});
// 2026-03-10 in Paris is UTC+1: 20:00 there is 19:00Z.
const at = (iso: string) => new Date(iso);

describe('when a reminder is due', () => {
  it('is due at the reminder time in the person\'s zone, and for the next hour', () => {
    expect(reminderDecision(facts(), at('2026-03-10T19:00:00Z'))).toEqual({ send: true, day: '2026-03-10' });
    expect(reminderDecision(facts(), at('2026-03-10T19:59:00Z'))).toEqual({ send: true, day: '2026-03-10' });
  });

  it('is not due before the time, nor long after it', () => {
    expect(reminderDecision(facts(), at('2026-03-10T18:59:00Z'))).toMatchObject({ send: false, reason: 'not_yet' });
    expect(reminderDecision(facts(), at('2026-03-10T20:00:00Z'))).toMatchObject({ send: false, reason: 'too_late' });
  });

  it('counts the time in the person\'s zone, not the server\'s', () => {
    const tokyo = facts({ timeZone: 'Asia/Tokyo', reminderTime: '08:30' }); // UTC+9
    expect(reminderDecision(tokyo, at('2026-03-09T23:30:00Z'))).toEqual({ send: true, day: '2026-03-10' });
    expect(reminderDecision(facts({ timeZone: null, reminderTime: '08:30' }), at('2026-03-10T08:30:00Z'))).toEqual({ send: true, day: '2026-03-10' });
  });

  it('is not due when that day is rated already', () => {
    expect(reminderDecision(facts({ latestDay: '2026-03-10' }), at('2026-03-10T19:10:00Z'))).toMatchObject({ send: false, reason: 'rated' });
    expect(reminderDecision(facts({ latestDay: '2026-03-09' }), at('2026-03-10T19:10:00Z'))).toEqual({ send: true, day: '2026-03-10' });
    // A rating just after midnight UTC is still the 10th in Los Angeles.
    const la = facts({ timeZone: 'America/Los_Angeles', reminderTime: '18:00', latestDay: '2026-03-10' });
    expect(reminderDecision(la, at('2026-03-11T01:05:00Z'))).toMatchObject({ send: false, day: '2026-03-10', reason: 'rated' });
  });

  it('is sent at most once a day', () => {
    expect(reminderDecision(facts({ lastReminderDay: '2026-03-10' }), at('2026-03-10T19:10:00Z'))).toMatchObject({ send: false, reason: 'already_sent' });
    expect(reminderDecision(facts({ lastReminderDay: '2026-03-09' }), at('2026-03-10T19:10:00Z'))).toEqual({ send: true, day: '2026-03-10' });
  });

  it('is never due without a reminder time', () => {
    expect(reminderDecision(facts({ reminderTime: null }), at('2026-03-10T19:00:00Z'))).toMatchObject({ send: false, reason: 'off' });
  });

  it('still goes out on the day the clocks skip the reminder time (DST)', () => {
    // Paris skips 02:00–03:00 on 2026-03-29: a 02:30 reminder goes out at 03:00 (01:00Z).
    expect(reminderDecision(facts({ reminderTime: '02:30' }), at('2026-03-29T01:00:00Z'))).toEqual({ send: true, day: '2026-03-29' });
  });
});

describe('a reminder on the days the clocks change', () => {
  /** Every minute from `from` until before `to` (ISO instants), with the decision at each. */
  const minutes = (person: ReminderFacts, from: string, to: string) => {
    const out: { at: string; decision: ReturnType<typeof reminderDecision> }[] = [];
    for (let t = Date.parse(from); t < Date.parse(to); t += 60_000) out.push({ at: new Date(t).toISOString(), decision: reminderDecision(person, new Date(t)) });
    return out;
  };
  /** The minutes it would go out, minute by minute, for a person who is reminded the first time it is due. */
  const sendsOver = (person: ReminderFacts, from: string, to: string) => {
    const sent: string[] = [];
    let lastReminderDay: string | null = null;
    for (let t = Date.parse(from); t < Date.parse(to); t += 60_000) {
      const decision = reminderDecision({ ...person, lastReminderDay }, new Date(t));
      if (decision.send) {
        sent.push(`${new Date(t).toISOString()} ${decision.day}`);
        lastReminderDay = decision.day;
      }
    }
    return sent;
  };
  /** The first and the last minute at which it is due (nothing else sent). */
  const window = (person: ReminderFacts, from: string, to: string) => {
    const due = minutes(person, from, to).filter((m) => m.decision.send);
    return due.length === 0 ? null : { first: due[0].at, last: due.at(-1)!.at, day: due[0].decision.day, count: due.length };
  };

  it.each([
    // Berlin goes from 02:00 to 03:00 on 2026-03-29 (01:00Z): due at 03:00 for the real hour after it.
    { zone: 'Europe/Berlin', time: '02:00', day: '2026-03-29', first: '2026-03-29T01:00:00.000Z', last: '2026-03-29T01:59:00.000Z' },
    // Santiago goes from 00:00 to 01:00 on 2026-09-06 (04:00Z).
    { zone: 'America/Santiago', time: '00:00', day: '2026-09-06', first: '2026-09-06T04:00:00.000Z', last: '2026-09-06T04:59:00.000Z' },
    // Havana goes from 00:00 to 01:00 on 2026-03-08 (05:00Z).
    { zone: 'America/Havana', time: '00:00', day: '2026-03-08', first: '2026-03-08T05:00:00.000Z', last: '2026-03-08T05:59:00.000Z' },
  ])('goes out at the end of the jump when the reminder time is its first minute ($zone $time on $day)', ({ zone, time, day, first, last }) => {
    const person = facts({ timeZone: zone, reminderTime: time });
    const from = new Date(Date.parse(first) - 6 * 3_600_000).toISOString();
    const to = new Date(Date.parse(first) + 6 * 3_600_000).toISOString();
    expect(window(person, from, to)).toEqual({ first, last, day, count: 60 });
    // Once, on that day, for a person reminded the first time it is due.
    expect(sendsOver(person, from, to)).toEqual([`${first} ${day}`]);
  });

  it('is due for the same real hour as on a normal day (Berlin 20:00 on 2026-03-10 and 2026-03-29)', () => {
    const person = facts({ timeZone: 'Europe/Berlin', reminderTime: '20:00' });
    expect(window(person, '2026-03-10T12:00:00Z', '2026-03-11T00:00:00Z')).toEqual({ first: '2026-03-10T19:00:00.000Z', last: '2026-03-10T19:59:00.000Z', day: '2026-03-10', count: 60 });
    expect(window(person, '2026-03-29T12:00:00Z', '2026-03-30T00:00:00Z')).toEqual({ first: '2026-03-29T18:00:00.000Z', last: '2026-03-29T18:59:00.000Z', day: '2026-03-29', count: 60 });
  });

  it('keeps a real hour when the clocks jump inside it (Berlin 01:30 on 2026-03-29: 00:30Z until 01:29Z)', () => {
    const person = facts({ timeZone: 'Europe/Berlin', reminderTime: '01:30' });
    expect(window(person, '2026-03-28T22:00:00Z', '2026-03-29T06:00:00Z')).toEqual({ first: '2026-03-29T00:30:00.000Z', last: '2026-03-29T01:29:00.000Z', day: '2026-03-29', count: 60 });
  });

  it('goes out from the first of the two 02:30s when the clocks go back, and not again at the second (Berlin 2026-10-25)', () => {
    // 02:30 CEST is 00:30Z, 02:30 CET is 01:30Z.
    const person = facts({ timeZone: 'Europe/Berlin', reminderTime: '02:30' });
    expect(window(person, '2026-10-24T20:00:00Z', '2026-10-25T08:00:00Z')).toEqual({ first: '2026-10-25T00:30:00.000Z', last: '2026-10-25T01:29:00.000Z', day: '2026-10-25', count: 60 });
    expect(reminderDecision(person, at('2026-10-25T01:30:00Z'))).toMatchObject({ send: false, reason: 'too_late' });
    expect(sendsOver(person, '2026-10-24T20:00:00Z', '2026-10-25T08:00:00Z')).toEqual(['2026-10-25T00:30:00.000Z 2026-10-25']);
  });

  it('is due for one real hour at an evening time on the day the clocks go back (Berlin 20:00 on 2026-10-25)', () => {
    const person = facts({ timeZone: 'Europe/Berlin', reminderTime: '20:00' });
    expect(window(person, '2026-10-25T12:00:00Z', '2026-10-26T00:00:00Z')).toEqual({ first: '2026-10-25T19:00:00.000Z', last: '2026-10-25T19:59:00.000Z', day: '2026-10-25', count: 60 });
  });

  it('sends once a day over a week that holds a jump (Santiago 00:00, 2026-09-04 to 2026-09-08)', () => {
    const person = facts({ timeZone: 'America/Santiago', reminderTime: '00:00' });
    expect(sendsOver(person, '2026-09-04T00:00:00Z', '2026-09-08T12:00:00Z')).toEqual([
      '2026-09-04T04:00:00.000Z 2026-09-04',
      '2026-09-05T04:00:00.000Z 2026-09-05',
      '2026-09-06T04:00:00.000Z 2026-09-06',
      '2026-09-07T03:00:00.000Z 2026-09-07',
      '2026-09-08T03:00:00.000Z 2026-09-08',
    ]);
  });

  describe('a late-evening reminder keeps its whole window past midnight', () => {
    // Paris, UTC+1 in March: 23:59 on the 10th is 22:59Z, midnight is 23:00Z.
    const late = facts({ reminderTime: '23:59' });

    it('is due for a real hour from 23:59, for the day it is for', () => {
      expect(window(late, '2026-03-10T12:00:00Z', '2026-03-11T12:00:00Z')).toEqual({ first: '2026-03-10T22:59:00.000Z', last: '2026-03-10T23:58:00.000Z', day: '2026-03-10', count: 60 });
      // At 00:30 on the 11th (a restart, a slow tick): still the 10th's reminder.
      expect(reminderDecision(late, at('2026-03-10T23:30:00Z'))).toEqual({ send: true, day: '2026-03-10' });
      expect(reminderDecision(late, at('2026-03-10T23:59:00Z'))).toMatchObject({ send: false, day: '2026-03-11', reason: 'not_yet' });
    });

    it('is not due past midnight once that day, or the new one, is rated, nor when it went out before midnight', () => {
      expect(reminderDecision({ ...late, latestDay: '2026-03-10' }, at('2026-03-10T23:30:00Z'))).toMatchObject({ send: false, day: '2026-03-10', reason: 'rated' });
      expect(reminderDecision({ ...late, latestDay: '2026-03-11' }, at('2026-03-10T23:30:00Z'))).toMatchObject({ send: false, day: '2026-03-10', reason: 'rated' });
      expect(reminderDecision({ ...late, lastReminderDay: '2026-03-10' }, at('2026-03-10T23:30:00Z'))).toMatchObject({ send: false, day: '2026-03-10', reason: 'already_sent' });
    });

    it('sends once a day, for each day, when the first tick comes after midnight', () => {
      expect(sendsOver(late, '2026-03-10T23:10:00Z', '2026-03-12T12:00:00Z')).toEqual(['2026-03-10T23:10:00.000Z 2026-03-10', '2026-03-11T22:59:00.000Z 2026-03-11']);
      // Over the night the clocks go forward (Paris 2026-03-29, 01:00Z): 23:30 is 22:30Z, then 21:30Z.
      const half = facts({ reminderTime: '23:30' });
      expect(sendsOver(half, '2026-03-27T00:00:00Z', '2026-03-31T00:00:00Z')).toEqual([
        '2026-03-27T22:30:00.000Z 2026-03-27',
        '2026-03-28T22:30:00.000Z 2026-03-28',
        '2026-03-29T21:30:00.000Z 2026-03-29',
        '2026-03-30T21:30:00.000Z 2026-03-30',
      ]);
      expect(window(half, '2026-03-28T12:00:00Z', '2026-03-29T12:00:00Z')).toEqual({ first: '2026-03-28T22:30:00.000Z', last: '2026-03-28T23:29:00.000Z', day: '2026-03-28', count: 60 });
    });

    it('ends the window (the scheduler\'s last retry) a real hour after the reminder time', () => {
      expect(reminderWindowEnd(late, '2026-03-10')).toEqual(at('2026-03-10T23:59:00Z'));
      expect(reminderWindowEnd(facts({ timeZone: 'Europe/Berlin', reminderTime: '02:30' }), '2026-03-29')).toEqual(at('2026-03-29T02:00:00Z'));
      expect(reminderWindowEnd(facts({ reminderTime: null }), '2026-03-10')).toBeNull();
    });
  });
});

describe('the reminders stream', () => {
  it('records a day once', () => {
    const sent = remindersDecider.decide({ userId: 'ada', day: '2026-03-10', at: at('2026-03-10T19:00:00Z'), devices: 2 }, remindersDecider.initialState);
    expect(sent).toEqual([{ type: 'ReminderSent', data: { userId: 'ada', day: '2026-03-10', sentAt: '2026-03-10T19:00:00.000Z', devices: 2 } }]);
    const state = sent.reduce(remindersDecider.evolve, remindersDecider.initialState);
    expect(remindersDecider.decide({ userId: 'ada', day: '2026-03-10', at: at('2026-03-10T19:01:00Z'), devices: 2 }, state)).toEqual([]);
    expect(remindersDecider.decide({ userId: 'ada', day: '2026-03-11', at: at('2026-03-11T19:00:00Z'), devices: 1 }, state)).toHaveLength(1);
  });
});
