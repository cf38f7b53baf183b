import { formatDate, formatDateTime, formatShortDay, formatTime, formatWeekday } from './dates';

describe('one date format', () => {
  const at = '2026-11-23T14:05:00.000Z';
  const en = { locale: 'en-US', timeZone: 'UTC' };

  it('writes dates medium, times short, and the compact chart forms, in the locale and zone given', () => {
    expect(formatDate(at, en)).toBe('Nov 23, 2026');
    expect(formatDateTime(at, en)).toBe('Nov 23, 2026, 2:05 PM');
    expect(formatTime(at, en)).toBe('2:05 PM');
    expect(formatShortDay(at, en)).toBe('Nov 23');
    expect(formatWeekday(at, en)).toBe('Mon, Nov 23');
    // The zone decides the day: 14:05 UTC is already the 24th in Tokyo.
    expect(formatDate('2026-11-23T20:00:00.000Z', { locale: 'en-US', timeZone: 'Asia/Tokyo' })).toBe('Nov 24, 2026');
    expect(formatDate(at, { locale: 'de-DE', timeZone: 'UTC' })).toBe('23.11.2026');
  });

  it('writes nothing for a value that is not a date', () => {
    for (const format of [formatDate, formatDateTime, formatTime, formatShortDay, formatWeekday]) expect(format('not a date')).toBe('');
  });
});
