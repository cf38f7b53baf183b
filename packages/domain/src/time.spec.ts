import { latestFirst, addDays, dayOf, isDayInLastWeek, isInLastWeek, isoWeekOf, lastWeekFirstDay, ratingDay } from './time';

const isoWeek = (instant: string) => isoWeekOf(instant, 'UTC');

describe('isoWeek (UTC)', () => {
  it('gives the ISO week and its Monday, across year boundaries', () => {
    expect(isoWeek('2026-11-16T00:00:00Z')).toEqual({ week: '2026-W47', weekStart: '2026-11-16' }); // a Monday
    expect(isoWeek('2026-11-22T23:59:59Z')).toEqual({ week: '2026-W47', weekStart: '2026-11-16' }); // its Sunday
    expect(isoWeek('2027-01-01T10:00:00Z')).toEqual({ week: '2026-W53', weekStart: '2026-12-28' }); // Friday: 2026's week 53
    expect(isoWeek('2024-12-30T10:00:00Z')).toEqual({ week: '2025-W01', weekStart: '2024-12-30' }); // Monday: 2025's week 1
  });
});

describe('a day and a week in a time zone', () => {
  it('puts an instant on the calendar day of the zone', () => {
    expect(dayOf('2026-11-22T23:30:00Z', 'UTC')).toBe('2026-11-22');
    expect(dayOf('2026-11-22T23:30:00Z', 'Europe/Berlin')).toBe('2026-11-23');
    expect(dayOf('2026-11-23T03:00:00Z', 'America/Los_Angeles')).toBe('2026-11-22');
    expect(dayOf('not a date', 'UTC')).toBeNull();
  });

  it("gives the zone's day at every minute around midnight and a daylight-saving change, asked once or again", () => {
    const intlDay = (time: number, timeZone: string) => new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(time));
    // Kathmandu is 5:45 ahead (midnight at 18:15 UTC); Berlin moves to summer time on 29 March 2026 at 01:00 UTC.
    const spans: [string, number][] = [['Asia/Kathmandu', Date.UTC(2026, 10, 22, 17, 30)], ['Europe/Berlin', Date.UTC(2026, 2, 28, 21, 30)], ['America/St_Johns', Date.UTC(2026, 10, 22, 2, 0)]];
    for (const [zone, start] of spans) {
      for (let minute = 0; minute < 5 * 60; minute += 1) {
        const time = start + minute * 60_000 + 59_000; // the minute's last second: still the same day as its start
        for (const instant of [new Date(time).toISOString(), new Date(time - 59_000).toISOString()]) {
          expect(dayOf(instant, zone)).toBe(intlDay(Date.parse(instant), zone));
          expect(dayOf(instant, zone)).toBe(intlDay(Date.parse(instant), zone));
        }
      }
    }
  });

  it('starts the week on Monday in the zone: Sunday night in UTC is already Monday in Tokyo', () => {
    expect(isoWeekOf('2026-11-22T20:00:00Z', 'UTC')).toEqual({ week: '2026-W47', weekStart: '2026-11-16' });
    expect(isoWeekOf('2026-11-22T20:00:00Z', 'Asia/Tokyo')).toEqual({ week: '2026-W48', weekStart: '2026-11-23' });
  });

  it('counts the last 7 days as today and the six calendar days before it, in the zone', () => {
    const now = new Date('2026-11-23T10:00:00Z'); // a Monday
    expect(lastWeekFirstDay(now, 'UTC')).toBe('2026-11-17');
    expect(isInLastWeek('2026-11-17T00:00:00Z', now, 'UTC')).toBe(true);
    expect(isInLastWeek('2026-11-16T23:59:59Z', now, 'UTC')).toBe(false);
    // 16 Nov 23:30 UTC is already 17 Nov in Berlin.
    expect(isInLastWeek('2026-11-16T23:30:00Z', now, 'Europe/Berlin')).toBe(true);
    expect(isInLastWeek('garbage', now, 'UTC')).toBe(false);
  });

  it('does calendar arithmetic across months and leap days', () => {
    expect(addDays('2028-03-01', -1)).toBe('2028-02-29');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
  });
});

describe('the day a rating counts on', () => {
  it('is its own day, else the day of its time in the zone given', () => {
    expect(ratingDay({ day: '2026-11-24', createdAt: '2026-11-23T23:30:00Z' }, 'UTC')).toBe('2026-11-24');
    expect(ratingDay({ createdAt: '2026-11-23T23:30:00Z' }, 'UTC')).toBe('2026-11-23');
    expect(ratingDay({ createdAt: '2026-11-23T23:30:00Z' }, 'Asia/Tokyo')).toBe('2026-11-24');
  });

  it('is in the last week from today back six days, never a future day', () => {
    const now = new Date('2026-11-25T12:00:00Z');
    expect(isDayInLastWeek('2026-11-25', now, 'UTC')).toBe(true);
    expect(isDayInLastWeek('2026-11-19', now, 'UTC')).toBe(true);
    expect(isDayInLastWeek('2026-11-18', now, 'UTC')).toBe(false);
    expect(isDayInLastWeek('2026-11-26', now, 'UTC')).toBe(false);
  });
});

describe('latestFirst: what "latest" means', () => {
  it('orders by the day rated, then by when it was made: a missed day rated today is not the latest', () => {
    const today = { id: 'today', day: '2026-11-27', createdAt: '2026-11-27T08:00:00.000Z' };
    const missed = { id: 'missed', day: '2026-11-22', createdAt: '2026-11-27T09:00:00.000Z' };
    const laterToday = { id: 'later', day: '2026-11-27', createdAt: '2026-11-27T20:00:00.000Z' };
    expect([missed, today, laterToday].sort(latestFirst).map((r) => r.id)).toEqual(['later', 'today', 'missed']);
  });

  it('counts a rating from before days were kept on its UTC day', () => {
    const old = { createdAt: '2026-11-26T23:30:00.000Z' };
    const nextDay = { day: '2026-11-27', createdAt: '2026-11-26T23:00:00.000Z' };
    expect(latestFirst(nextDay, old)).toBeLessThan(0);
  });
});
