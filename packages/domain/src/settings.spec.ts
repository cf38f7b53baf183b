import { canonicalTimeZone, isReminderTime, minutesOfTime, timeOfDayIn } from './settings';

describe('time zones and reminder times', () => {
  it('stores a zone in its proper spelling, keeping current names the runtime maps to older ones', () => {
    expect(canonicalTimeZone('europe/paris')).toBe('Europe/Paris');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    expect(canonicalTimeZone('Asia/Kolkata')).toBe('Asia/Kolkata');
    expect(canonicalTimeZone('Europe/Kyiv')).toBe('Europe/Kyiv');
    // A link the runtime does not list, in any case: the zone it stands for, not the letters as typed (a review, 11-27).
    expect(canonicalTimeZone('us/pacific')).toBe('America/Los_Angeles');
  });

  it('refuses what is not an IANA zone', () => {
    for (const value of ['Mars/Olympus_Mons', '+01:00', 'GMT+1 ', '', 'a'.repeat(65), 42, null]) expect(canonicalTimeZone(value)).toBeNull();
  });

  it('reads reminder times as HH:MM, 00:00 to 23:59', () => {
    expect(['00:00', '07:05', '23:59'].every(isReminderTime)).toBe(true);
    expect(['24:00', '7:05', '07:60', '07:05:00', '', null].some(isReminderTime)).toBe(false);
    expect(minutesOfTime('20:30')).toBe(1230);
  });

  it('tells the wall-clock time in a zone', () => {
    expect(timeOfDayIn(new Date('2026-03-10T19:05:00Z'), 'Europe/Paris')).toBe('20:05');
    expect(timeOfDayIn(new Date('2026-03-10T23:30:00Z'), 'Asia/Tokyo')).toBe('08:30');
    expect(timeOfDayIn(new Date('2026-03-10T00:00:00Z'), 'UTC')).toBe('00:00');
  });
});
