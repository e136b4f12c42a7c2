import { describe, expect, it } from 'vitest';
import {
  localToInstant,
  parseDateValue,
  parseOffset,
  resolveZone,
  UTC,
  zoneOffsetMs,
  type Zone,
} from '../../src/platform/query/timezone.js';

const berlin: Zone = { kind: 'iana', name: 'Europe/Berlin' };
const iso = (ms: number) => new Date(ms).toISOString();

describe('parseOffset', () => {
  it.each([
    ['UTC', 0],
    ['GMT', 0],
    ['Z', 0],
    ['GMT+2', 120],
    ['GMT+02', 120],
    ['GMT-05:30', -330],
    ['UTC+5:45', 345],
    ['+02:00', 120],
    ['-0300', -180],
    ['+14:00', 840],
    ['gmt+1', 60],
    [' 02:00', 120], // a "+" sent unencoded in a URL query arrives as a space
    ['GMT 2', 120],
  ])('%j -> %d minutes', (text, minutes) => {
    expect(parseOffset(text)).toBe(minutes);
  });

  it.each(['GMT+15', '+02:60', 'foo', 'GMT+', '+', '2', 'Europe/Berlin', '+02:00:00', 'UTC+1+1'])(
    '%j is no offset',
    (text) => {
      expect(parseOffset(text)).toBeNull();
    },
  );
});

describe('resolveZone', () => {
  it('defaults to UTC, also for empty parameters', () => {
    expect(resolveZone()).toEqual(UTC);
    expect(resolveZone('', '')).toEqual(UTC);
  });
  it('timezoneName wins over timezoneOffset', () => {
    expect(resolveZone('Europe/Berlin', 'GMT+5')).toEqual(berlin);
  });
  it('reads timezoneOffset', () => {
    expect(resolveZone(undefined, 'GMT+2')).toEqual({ kind: 'fixed', offsetMinutes: 120 });
  });
  it.each([
    ['Mars/Olympus_Mons', undefined, 'timezoneName'],
    ['Europe/Berlin; DROP', undefined, 'timezoneName'],
    ['x'.repeat(80), undefined, 'timezoneName'],
    [undefined, 'GMT+99', 'timezoneOffset'],
    [undefined, 'soon', 'timezoneOffset'],
  ])('name %j offset %j: 400 on %s', (name, offset, path) => {
    try {
      resolveZone(name, offset);
      expect.unreachable();
    } catch (err: any) {
      expect(err.statusCode).toBe(400);
      expect(err.body.properties.errors[0].path).toBe(path);
    }
  });
});

describe('local time in Europe/Berlin across the DST changes', () => {
  it.each([
    // spring forward: 2026-03-29 02:00 CET -> 03:00 CEST (01:00 UTC)
    ['2026-03-29T01:59', '2026-03-29T00:59:00.000Z'],
    ['2026-03-29T02:00', '2026-03-29T01:00:00.000Z'], // in the gap: moved forward by an hour, to 03:00 CEST
    ['2026-03-29T02:30', '2026-03-29T01:30:00.000Z'], // in the gap: 03:30 CEST
    ['2026-03-29T03:00', '2026-03-29T01:00:00.000Z'],
    ['2026-03-29T12:00', '2026-03-29T10:00:00.000Z'],
    ['2026-03-29', '2026-03-28T23:00:00.000Z'], // date only: the day's start, still CET
    // fall back: 2026-10-25 03:00 CEST -> 02:00 CET (01:00 UTC); 02:00-02:59 happen twice
    ['2026-10-25T01:59', '2026-10-24T23:59:00.000Z'],
    ['2026-10-25T02:00', '2026-10-25T00:00:00.000Z'], // overlap: the earlier instant (CEST)
    ['2026-10-25T02:30', '2026-10-25T00:30:00.000Z'],
    ['2026-10-25T03:00', '2026-10-25T02:00:00.000Z'],
    ['2026-10-25', '2026-10-24T22:00:00.000Z'],
    ['2026-10-25 12:00:00.250', '2026-10-25T11:00:00.250Z'],
    // a value with its own zone keeps it
    ['2026-03-29T02:30:00+02:00', '2026-03-29T00:30:00.000Z'],
    ['2026-03-29T02:30:00Z', '2026-03-29T02:30:00.000Z'],
    ['2026-03-29T02:30:00.5-05:30', '2026-03-29T08:00:00.500Z'],
  ])('%s -> %s', (text, expected) => {
    expect(iso(parseDateValue(text, berlin, 'v')!.ms)).toBe(expected);
  });

  it('a date-only value spans the whole local day (23 hours on the spring day)', () => {
    const d = parseDateValue('2026-03-29', berlin, 'v')!;
    expect(d.dateOnly).toBe(true);
    expect(d.endMs - d.ms).toBe(23 * 3_600_000);
    const autumn = parseDateValue('2026-10-25', berlin, 'v')!;
    expect(autumn.endMs - autumn.ms).toBe(25 * 3_600_000);
  });

  it('maps every minute of both transition nights by the documented rule', () => {
    const wallOf = (instant: number) => instant + zoneOffsetMs(berlin, instant);
    for (let minute = 0; minute < 6 * 60; minute++) {
      const spring = Date.parse('2026-03-29T00:00:00Z') + minute * 60_000;
      const inGap = minute >= 120 && minute < 180;
      // Outside the gap the instant shows the same wall time; inside, the wall time one hour later.
      expect(wallOf(localToInstant(spring, berlin))).toBe(spring + (inGap ? 3_600_000 : 0));
      const autumn = Date.parse('2026-10-25T00:00:00Z') + minute * 60_000;
      const instant = localToInstant(autumn, berlin);
      expect(wallOf(instant)).toBe(autumn);
      // 02:00-02:59 happen twice: the first pass (CEST, UTC+2) is taken.
      expect(autumn - instant).toBe(minute < 180 ? 2 * 3_600_000 : 3_600_000);
    }
  });
});

describe('fixed offsets and other zones', () => {
  it.each([
    [{ kind: 'fixed', offsetMinutes: 120 }, '2026-03-29T02:30', '2026-03-29T00:30:00.000Z'],
    [{ kind: 'fixed', offsetMinutes: 120 }, '2026-03-29', '2026-03-28T22:00:00.000Z'],
    [{ kind: 'fixed', offsetMinutes: -330 }, '2026-01-01T00:00', '2026-01-01T05:30:00.000Z'],
    [UTC, '2026-03-29', '2026-03-29T00:00:00.000Z'],
    [{ kind: 'iana', name: 'America/New_York' }, '2026-03-08T02:30', '2026-03-08T07:30:00.000Z'],
    [{ kind: 'iana', name: 'Asia/Kolkata' }, '2026-06-01T05:30', '2026-06-01T00:00:00.000Z'],
    [{ kind: 'iana', name: 'Australia/Lord_Howe' }, '2026-10-04T02:15', '2026-10-03T15:45:00.000Z'],
  ] as Array<[Zone, string, string]>)('%j %s -> %s', (zone, text, expected) => {
    expect(iso(parseDateValue(text, zone, 'v')!.ms)).toBe(expected);
  });
});

describe('parseDateValue', () => {
  it.each(['abc', '2026', '20260329', 'open', '1.5', ''])('%j is not a date', (text) => {
    expect(parseDateValue(text, UTC, 'v')).toBeNull();
  });
  it.each([
    '2026-02-30',
    '2026-13-01',
    '2026-03-29T25:00',
    '2026-03-29T10:61',
    '2026-03-29T10:00+25:00',
    '2026-03-29 soon',
    '0000-01-01',
  ])('%j looks like a date but is invalid: 400', (text) => {
    expect(() => parseDateValue(text, UTC, 'v')).toThrow(expect.objectContaining({ statusCode: 400 }));
  });
  it('accepts a leap day', () => {
    expect(iso(parseDateValue('2028-02-29', UTC, 'v')!.ms)).toBe('2028-02-29T00:00:00.000Z');
  });
});
