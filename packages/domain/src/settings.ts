/*
 * The person's settings that both sides validate the same way: an IANA time zone (the zone their days are
 * counted in) and the reminder time ("HH:MM", 24-hour, in that zone).
 */

/** A zone name as the IANA database spells it (Area/Location, or UTC): no offsets such as "+01:00". */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

/**
 * The spelling of an IANA time zone to store ("europe/paris" → "Europe/Paris"), or null when this runtime does not
 * know it. A current name that the runtime's ICU data still maps to an older one (Asia/Kolkata → Asia/Calcutta,
 * Europe/Kyiv → Europe/Kiev) is kept as the person chose it: both count the same days. A link the runtime does not
 * list (US/Pacific, in any case) is stored as the zone it stands for (America/Los_Angeles).
 */
export function canonicalTimeZone(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 64 || !ZONE_NAME.test(value)) return null;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
  const lower = value.toLowerCase();
  if (resolved.toLowerCase() === lower) return resolved;
  const listed = timeZoneNames().find((zone) => zone.toLowerCase() === lower);
  if (listed) return listed;
  // A name the runtime does not list: kept when written as IANA writes names (each part capitalised: Asia/Kolkata),
  // else ("us/pacific") the zone it stands for, never the letters as typed.
  return value.split('/').every((part) => /^[A-Z]/.test(part)) ? value : resolved;
}

/** Whether `value` is an IANA time zone (in any letter case). */
export function isTimeZone(value: unknown): boolean {
  return canonicalTimeZone(value) !== null;
}

/** Every IANA zone this runtime lists (for a picker), with UTC. */
export function timeZoneNames(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
  const zones = intl.supportedValuesOf ? intl.supportedValuesOf('timeZone') : [];
  return zones.includes('UTC') ? zones : ['UTC', ...zones];
}

/** The zone used for a person who has not set one yet (the server knows no other). */
export const DEFAULT_TIME_ZONE = 'UTC';

/** "HH:MM", 00:00 to 23:59. */
export const REMINDER_TIME_PATTERN = /^([01]\d|2[0-3]):[0-5]\d$/;

export function isReminderTime(value: unknown): value is string {
  return typeof value === 'string' && REMINDER_TIME_PATTERN.test(value);
}

/** Minutes after midnight of an "HH:MM" time. */
export function minutesOfTime(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

const clockFormatters = new Map<string, Intl.DateTimeFormat>();

/** The wall-clock time ("HH:MM") of an instant in a time zone. */
export function timeOfDayIn(instant: Date, timeZone: string): string {
  let f = clockFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    clockFormatters.set(timeZone, f);
  }
  const parts = f.formatToParts(instant);
  const get = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '00';
  return `${get('hour')}:${get('minute')}`;
}
