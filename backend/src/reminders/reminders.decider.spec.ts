import { reminderDecision, ReminderFacts, remindersDecider } from './reminders.decider';

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

describe('the reminders stream', () => {
  it('records a day once', () => {
    const sent = remindersDecider.decide({ userId: 'ada', day: '2026-03-10', at: at('2026-03-10T19:00:00Z'), devices: 2 }, remindersDecider.initialState);
    expect(sent).toEqual([{ type: 'ReminderSent', data: { userId: 'ada', day: '2026-03-10', sentAt: '2026-03-10T19:00:00.000Z', devices: 2 } }]);
    const state = sent.reduce(remindersDecider.evolve, remindersDecider.initialState);
    expect(remindersDecider.decide({ userId: 'ada', day: '2026-03-10', at: at('2026-03-10T19:01:00Z'), devices: 2 }, state)).toEqual([]);
    expect(remindersDecider.decide({ userId: 'ada', day: '2026-03-11', at: at('2026-03-11T19:00:00Z'), devices: 1 }, state)).toHaveLength(1);
  });
});
