/*
 * Joy's one way of writing dates and times (issue 18): in the browser's locale, dates in the medium style
 * ("Nov 25, 2026"), times short ("2:05 PM"), and the compact forms charts need ("Nov 25"). Every screen formats
 * through these, so a person never sees "25 November" on one page and "Nov 25" on the next.
 */

export interface DateOptions {
  /** IANA zone; the browser's when absent. */
  timeZone?: string;
  /** BCP 47 locale; the browser's when absent (tests pin one). */
  locale?: string;
}

function valid(value: string | Date): Date | null {
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** "Nov 25, 2026", or "" for a value that is not a date. */
export function formatDate(value: string | Date, { timeZone, locale }: DateOptions = {}): string {
  const date = valid(value);
  return date ? date.toLocaleDateString(locale, { dateStyle: 'medium', timeZone }) : '';
}

/** "Nov 25, 2026" for a calendar day written `YYYY-MM-DD` (a rating's day): the day as written, whatever the zone. */
export function formatCalendarDay(day: string, { locale }: Pick<DateOptions, 'locale'> = {}): string {
  return formatDate(`${day}T12:00:00Z`, { timeZone: 'UTC', locale });
}

/** "Nov 25, 2026, 2:05 PM". */
export function formatDateTime(value: string | Date, { timeZone, locale }: DateOptions = {}): string {
  const date = valid(value);
  return date ? date.toLocaleString(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone }) : '';
}

/** "2:05 PM". */
export function formatTime(value: string | Date, { timeZone, locale }: DateOptions = {}): string {
  const date = valid(value);
  return date ? date.toLocaleTimeString(locale, { hour: 'numeric', minute: '2-digit', timeZone }) : '';
}

/** "Nov 25": a chart's axis. */
export function formatShortDay(value: string | Date, { timeZone, locale }: DateOptions = {}): string {
  const date = valid(value);
  return date ? date.toLocaleDateString(locale, { month: 'short', day: 'numeric', timeZone }) : '';
}

/** "Mon, Nov 23": a day in a list of days. */
export function formatWeekday(value: string | Date, { timeZone, locale }: DateOptions = {}): string {
  const date = valid(value);
  return date ? date.toLocaleDateString(locale, { weekday: 'short', month: 'short', day: 'numeric', timeZone }) : '';
}
