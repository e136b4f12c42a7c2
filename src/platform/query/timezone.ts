// Reading dates of the list parameters in the caller's zone, without Temporal: the zone offset of an instant
// comes from Intl.DateTimeFormat; a local time maps to an instant by the rule documented in docs/api/query.md.
import { QUERY_ERRORS } from './query.errors.js';

export type Zone = { kind: 'fixed'; offsetMinutes: number } | { kind: 'iana'; name: string };

export const UTC: Zone = { kind: 'fixed', offsetMinutes: 0 };

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** `timezoneName` wins over `timezoneOffset`; neither (or empty): UTC. Unknown name or bad offset: 400. */
export function resolveZone(timezoneName?: string, timezoneOffset?: string): Zone {
  const name = timezoneName?.trim();
  if (name) return ianaZone(name);
  const offset = timezoneOffset?.trim() === '' ? undefined : timezoneOffset;
  if (offset !== undefined) {
    const minutes = parseOffset(offset);
    if (minutes === null) {
      throw QUERY_ERRORS.invalidTimezone(
        'timezoneOffset',
        'expected an offset such as GMT+2, GMT-05:30, +02:00 or UTC',
      );
    }
    return { kind: 'fixed', offsetMinutes: minutes };
  }
  return UTC;
}

function ianaZone(name: string): Zone {
  if (name.length > 64 || !/^[A-Za-z0-9_+\-/]+$/.test(name)) {
    throw QUERY_ERRORS.invalidTimezone('timezoneName', 'not a time zone name');
  }
  try {
    formatterFor(name);
  } catch {
    throw QUERY_ERRORS.invalidTimezone('timezoneName', `unknown time zone ${name}`);
  }
  return { kind: 'iana', name };
}

/**
 * Minutes east of UTC, or null when the text is no offset. Accepts `UTC`, `GMT`, `Z`, `GMT+2`, `UTC-05:30`,
 * `+02:00`, `+0200`, `-5`. A leading space stands for `+` (a `+` in a URL query that was not encoded).
 */
export function parseOffset(raw: string): number | null {
  if (raw.length > 16) return null;
  const text = raw.replace(/^(\s*(?:GMT|UTC)?)\s+(?=\d)/i, '$1+').trim();
  if (/^(?:GMT|UTC|Z)$/i.test(text)) return 0;
  const m = /^(?:GMT|UTC)?([+-])(\d{1,2})(?::?(\d{2}))?$/i.exec(text);
  if (!m) return null;
  const hours = Number(m[2]);
  const minutes = m[3] === undefined ? 0 : Number(m[3]);
  if (hours > 14 || minutes > 59) return null;
  return (m[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(name: string): Intl.DateTimeFormat {
  let f = formatters.get(name);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
    // The cache only holds validated names; bounded so odd input cannot grow it without limit.
    if (formatters.size > 500) formatters.clear();
    formatters.set(name, f);
  }
  return f;
}

/** Offset of the zone at an instant, in milliseconds east of UTC. */
export function zoneOffsetMs(zone: Zone, instantMs: number): number {
  if (zone.kind === 'fixed') return zone.offsetMinutes * 60_000;
  const seconds = Math.floor(instantMs / 1000) * 1000;
  const parts: Record<string, string> = {};
  for (const p of formatterFor(zone.name).formatToParts(new Date(seconds))) parts[p.type] = p.value;
  let year = Number(parts.year);
  if (parts.era === 'BC' || parts.era === 'B') year = 1 - year;
  const wall = utcMs(
    year,
    Number(parts.month),
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
    0,
  );
  return wall - seconds;
}

function utcMs(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number): number {
  const date = new Date(Date.UTC(2000, mo - 1, d, h, mi, s, ms));
  date.setUTCFullYear(y);
  return date.getTime();
}

/**
 * The instant of a wall-clock time (given as milliseconds of that wall time read as UTC) in the zone.
 * Overlap (clocks go back): the earlier instant. Gap (clocks go forward): the time is moved forward by the
 * length of the gap (02:30 on a 02:00 -> 03:00 night is 03:30). Same as java.time and Temporal 'compatible'.
 */
export function localToInstant(wallMs: number, zone: Zone): number {
  if (zone.kind === 'fixed') return wallMs - zone.offsetMinutes * 60_000;
  const before = zoneOffsetMs(zone, wallMs - DAY);
  const after = zoneOffsetMs(zone, wallMs + DAY);
  const early = wallMs - before;
  const late = wallMs - after;
  const earlyValid = zoneOffsetMs(zone, early) === before;
  const lateValid = zoneOffsetMs(zone, late) === after;
  if (earlyValid && lateValid) return Math.min(early, late);
  if (earlyValid) return early;
  if (lateValid) return late;
  // In the gap: read with the offset before the transition, which lands after it by the gap's length.
  return early;
}

export interface ParsedDate {
  /** Epoch milliseconds. */
  ms: number;
  /** Date-only value: `ms` is the day's start in the zone, `endMs` the next day's start. */
  dateOnly: boolean;
  endMs: number;
}

const LOOKS_LIKE_DATE = /^\d{4}-\d{2}-\d{2}(?:$|[T ])/;
const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

export function looksLikeDate(value: string): boolean {
  return LOOKS_LIKE_DATE.test(value);
}

/**
 * Reads an ISO 8601 date or date-time. Without its own zone it is read in `zone`; with one (`Z`, `+02:00`) it keeps
 * it. Null: the text does not look like a date. Looks like one but is invalid (month 13, Feb 30): 400.
 */
export function parseDateValue(value: string, zone: Zone, path: string): ParsedDate | null {
  if (!looksLikeDate(value)) return null;
  const m = ISO_DATE.exec(value);
  const invalid = () => QUERY_ERRORS.invalidFilter(path, `not a valid date: ${value.slice(0, 64)}`);
  if (!m) throw invalid();
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const hour = m[4] === undefined ? 0 : Number(m[4]);
  const minute = m[5] === undefined ? 0 : Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const millis = m[7] === undefined ? 0 : Math.floor(Number(`0.${m[7]}`) * 1000);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) throw invalid();
  if (hour > 23 || minute > 59 || second > 59) throw invalid();
  const wall = utcMs(year, month, day, hour, minute, second, millis);
  const dateOnly = m[4] === undefined;
  if (m[8] !== undefined) {
    const own = parseOffset(m[8].toUpperCase() === 'Z' ? 'Z' : m[8]);
    if (own === null) throw invalid();
    const ms = wall - own * 60_000;
    return { ms, dateOnly, endMs: ms };
  }
  const ms = localToInstant(wall, zone);
  return { ms, dateOnly, endMs: dateOnly ? localToInstant(wall + DAY, zone) : ms };
}

function daysInMonth(year: number, month: number): number {
  return [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
}

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}
