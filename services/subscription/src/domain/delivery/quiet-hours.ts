/**
 * Quiet hours: validating a subscription's `quiet_hours`, and finding the occurrence of the daily
 * window that holds an instant. Boundaries are computed explicitly, not with luxon's defaults: a
 * repeated local time resolves to its first pass, a skipped one to the instant of the jump.
 */
import { DateTime } from 'luxon';
import type { QuietHours, QuietWindow } from './model.ts';

const TIME_OF_DAY = /^([01]\d|2[0-3]):([0-5]\d)$/;
const LOCAL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** Zone names start with a letter; offsets such as "+07:00" (which newer engines accept) do not. */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;
const OFFSET_NAME = /^(utc|gmt)[+-]/i;
const DAY_MS = 86_400_000;
const EXAMPLES = '(for example "Europe/Berlin", "America/New_York", "UTC")';

export const QUIET_HOURS_TIMES_ERROR = 'quiet_hours from and to must be times of day as "HH:MM" (00:00 to 23:59)';
export const QUIET_HOURS_DIFFER_ERROR = 'quiet_hours from and to must differ';

/**
 * IANA's current names for zones that ICU still reports under an older link (Asia/Kolkata comes
 * back as Asia/Calcutta): kept so a name the user typed in any case is shown as IANA spells it.
 */
const CURRENT_IANA_NAMES = [
  'Africa/Asmara',
  'America/Argentina/Buenos_Aires',
  'America/Argentina/Catamarca',
  'America/Argentina/Cordoba',
  'America/Argentina/Jujuy',
  'America/Argentina/Mendoza',
  'America/Atikokan',
  'America/Indiana/Indianapolis',
  'America/Kentucky/Louisville',
  'America/Nuuk',
  'Asia/Ho_Chi_Minh',
  'Asia/Kathmandu',
  'Asia/Kolkata',
  'Asia/Yangon',
  'Atlantic/Faroe',
  'Europe/Kyiv',
  'Pacific/Chuuk',
  'Pacific/Kanton',
  'Pacific/Pohnpei',
];

let spellings: Map<string, string> | undefined;

function knownSpellings(): Map<string, string> {
  spellings ??= new Map([...Intl.supportedValuesOf('timeZone'), ...CURRENT_IANA_NAMES].map((name) => [name.toLowerCase(), name]));
  return spellings;
}

/**
 * The canonical spelling of an IANA time zone name given in any case, or null when it is none
 * (offsets such as "UTC+7", "local", unknown names). A backward-compatible link such as
 * "US/Eastern" or "Etc/UTC" comes back as the zone it links to.
 */
export function canonicalTimeZone(name: string): string | null {
  if (!ZONE_NAME.test(name) || OFFSET_NAME.test(name)) return null;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
  return knownSpellings().get(name.toLowerCase()) ?? resolved;
}

/** The result of validating `quiet_hours`: the window (null = none) or the refusal sentence. */
export type QuietHoursParse = { ok: true; quietHours: QuietHours | null } | { ok: false; error: string };

/** The spec's "empty value": null, "", false or an empty list count as no argument. */
function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '' || value === false || (Array.isArray(value) && value.length === 0);
}

/**
 * Validates a subscribe call's `quiet_hours` ({ from, to, tz }) and answers the window with its
 * zone in canonical spelling, none when every field is empty, or the spec's refusal sentence.
 */
export function parseQuietHours(input: unknown): QuietHoursParse {
  if (isEmpty(input)) return { ok: true, quietHours: null };
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, error: 'quiet_hours must be an object with from, to and tz (for example {"from": "23:00", "to": "06:00", "tz": "Europe/Berlin"})' };
  }
  const fields = input as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((key) => !['from', 'to', 'tz'].includes(key) && !isEmpty(fields[key]));
  if (unknown.length > 0) return { ok: false, error: `quiet_hours takes from, to and tz only, not: ${unknown.join(', ')}` };
  const { from, to, tz } = fields;
  if (isEmpty(from) && isEmpty(to) && isEmpty(tz)) return { ok: true, quietHours: null };
  if (typeof from !== 'string' || typeof to !== 'string' || !TIME_OF_DAY.test(from) || !TIME_OF_DAY.test(to)) {
    return { ok: false, error: QUIET_HOURS_TIMES_ERROR };
  }
  if (from === to) return { ok: false, error: QUIET_HOURS_DIFFER_ERROR };
  if (isEmpty(tz)) return { ok: false, error: `quiet_hours tz is missing: name an IANA time zone ${EXAMPLES}` };
  const zone = typeof tz === 'string' ? canonicalTimeZone(tz) : null;
  if (zone === null) return { ok: false, error: `quiet_hours tz ${JSON.stringify(tz)} is not an IANA time zone ${EXAMPLES}` };
  return { ok: true, quietHours: { from, to, tz: zone } };
}

function offsetMs(instantMs: number, tz: string): number {
  return DateTime.fromMillis(instantMs, { zone: tz }).offset * 60_000;
}

function parseLocalDate(localDate: string): { year: number; month: number; day: number } {
  const match = LOCAL_DATE.exec(localDate);
  if (!match) throw new Error(`"${localDate}" is not a local date as "YYYY-MM-DD"`);
  return { year: Number(match[1]), month: Number(match[2]), day: Number(match[3]) };
}

function minutesOfDay(time: string): number {
  const match = TIME_OF_DAY.exec(time);
  if (!match) throw new Error(`"${time}" is not a time of day as "HH:MM"`);
  return Number(match[1]) * 60 + Number(match[2]);
}

/**
 * The earliest instant of `localDate` ("YYYY-MM-DD") at which the zone's clock reads at least
 * `time` ("HH:MM"): a repeated time resolves to its first pass, a skipped time to the jump.
 */
export function boundaryInstant(localDate: string, time: string, tz: string): Date {
  const { year, month, day } = parseLocalDate(localDate);
  // The clock reading as if it were UTC; an instant t reads `t + offset(t)` in the zone.
  const reading = Date.UTC(year, month - 1, day) + minutesOfDay(time) * 60_000;
  const offsets = [...new Set([-DAY_MS, -DAY_MS / 2, 0, DAY_MS / 2, DAY_MS].map((shift) => offsetMs(reading + shift, tz)))];
  if (offsets.some(Number.isNaN)) throw new Error(`"${tz}" is not a time zone`);
  const exact = offsets.map((offset) => reading - offset).filter((instant) => offsetMs(instant, tz) === reading - instant);
  if (exact.length > 0) return new Date(Math.min(...exact));
  // Skipped: the clock jumps over `time`. Find the jump, the first instant reading past it.
  let before = reading - Math.max(...offsets);
  let after = reading - Math.min(...offsets);
  if (before >= after) throw new Error(`no instant of ${localDate} reads ${time} in ${tz}`);
  while (after - before > 1) {
    const middle = Math.floor((before + after) / 2);
    if (middle + offsetMs(middle, tz) >= reading) after = middle;
    else before = middle;
  }
  return new Date(after);
}

function addDays(localDate: string, days: number): string {
  const { year, month, day } = parseLocalDate(localDate);
  return new Date(Date.UTC(year, month - 1, day + days)).toISOString().slice(0, 10);
}

/** The occurrence of the window that starts on `localDate`; it ends the next day when it runs past midnight. */
export function quietOccurrence(localDate: string, quietHours: QuietHours): QuietWindow {
  const { from, to, tz } = quietHours;
  const endDate = minutesOfDay(to) > minutesOfDay(from) ? localDate : addDays(localDate, 1);
  return { start: boundaryInstant(localDate, from, tz), end: boundaryInstant(endDate, to, tz) };
}

/** Whether a local time of day lies in the window's daily range, `from` inside and `to` not. */
function inDailyRange(minutes: number, quietHours: QuietHours): boolean {
  const from = minutesOfDay(quietHours.from);
  const to = minutesOfDay(quietHours.to);
  return from < to ? minutes >= from && minutes < to : minutes >= from || minutes < to;
}

/**
 * The occurrence of the quiet window that holds `now`, or null. Known limit (spec): with `from`
 * inside a repeated hour the occurrence starts on the first pass, and second-pass minutes before
 * `from` count as outside (null here), though they lie between the occurrence's start and end.
 */
export function quietWindowAt(now: Date, quietHours: QuietHours): QuietWindow | null {
  const local = DateTime.fromMillis(now.getTime(), { zone: quietHours.tz });
  const today = local.toISODate();
  if (today === null) throw new Error(`cannot read ${now.toISOString()} in ${quietHours.tz}`);
  for (const day of [addDays(today, -1), today]) {
    const window = quietOccurrence(day, quietHours);
    if (window.start.getTime() <= now.getTime() && now.getTime() < window.end.getTime()) {
      return inDailyRange(local.hour * 60 + local.minute, quietHours) ? window : null;
    }
  }
  return null;
}

/** The window as the messages name it: "23:00–06:00 Europe/Berlin". */
export function quietHoursLabel(quietHours: QuietHours): string {
  return `${quietHours.from}–${quietHours.to} ${quietHours.tz}`;
}
