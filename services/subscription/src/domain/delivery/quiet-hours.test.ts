import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import type { QuietHours } from './model.ts';
import {
  boundaryInstant,
  canonicalTimeZone,
  parseQuietHours,
  QUIET_HOURS_DIFFER_ERROR,
  QUIET_HOURS_TIMES_ERROR,
  quietHoursLabel,
  quietOccurrence,
  quietWindowAt,
} from './quiet-hours.ts';

const BERLIN = 'Europe/Berlin';
const NEW_YORK = 'America/New_York';
const notIana = (shown: string) => `quiet_hours tz ${shown} is not an IANA time zone (for example "Europe/Berlin", "America/New_York", "UTC")`;

describe('parseQuietHours', () => {
  it.each([
    ['undefined', undefined],
    ['null', null],
    ['an empty string', ''],
    ['false', false],
    ['an empty list', []],
    ['an empty object', {}],
    ['every field empty', { from: '', to: null, tz: '' }],
    ['every field false or an empty list', { from: false, to: [], tz: undefined }],
  ])('counts %s as no quiet hours', (_, input) => {
    expect(parseQuietHours(input)).toEqual({ ok: true, quietHours: null });
  });

  it.each([
    [
      { from: '23:00', to: '06:00', tz: 'Europe/Berlin' },
      { from: '23:00', to: '06:00', tz: 'Europe/Berlin' },
    ],
    [
      { from: '00:00', to: '23:59', tz: 'UTC' },
      { from: '00:00', to: '23:59', tz: 'UTC' },
    ],
    [
      { from: '09:00', to: '17:30', tz: 'europe/berlin' },
      { from: '09:00', to: '17:30', tz: 'Europe/Berlin' },
    ],
    [
      { from: '22:00', to: '07:00', tz: 'AMERICA/NEW_YORK' },
      { from: '22:00', to: '07:00', tz: 'America/New_York' },
    ],
    [
      { from: '22:00', to: '07:00', tz: 'utc' },
      { from: '22:00', to: '07:00', tz: 'UTC' },
    ],
    [
      { from: '22:00', to: '07:00', tz: 'Europe/Berlin', days: null },
      { from: '22:00', to: '07:00', tz: 'Europe/Berlin' },
    ],
  ])('accepts %j as %j', (input, quietHours) => {
    expect(parseQuietHours(input)).toEqual({ ok: true, quietHours });
  });

  it.each([
    [{ from: '7:00', to: '06:00', tz: BERLIN }],
    [{ from: '24:00', to: '06:00', tz: BERLIN }],
    [{ from: '23:60', to: '06:00', tz: BERLIN }],
    [{ from: '23:00:00', to: '06:00', tz: BERLIN }],
    [{ from: '23h00', to: '06:00', tz: BERLIN }],
    [{ from: 2300, to: '06:00', tz: BERLIN }],
    [{ from: '23:00', to: ' 06:00', tz: BERLIN }],
    [{ to: '06:00', tz: BERLIN }],
    [{ from: '23:00', tz: BERLIN }],
    [{ tz: BERLIN }],
  ])('refuses times that are not "HH:MM": %j', (input) => {
    expect(parseQuietHours(input)).toEqual({ ok: false, error: QUIET_HOURS_TIMES_ERROR });
  });

  it("has the spec's sentence for the times", () => {
    expect(QUIET_HOURS_TIMES_ERROR).toBe('quiet_hours from and to must be times of day as "HH:MM" (00:00 to 23:59)');
  });

  it("refuses from equal to to with the spec's sentence", () => {
    expect(parseQuietHours({ from: '06:00', to: '06:00', tz: BERLIN })).toEqual({ ok: false, error: 'quiet_hours from and to must differ' });
    expect(QUIET_HOURS_DIFFER_ERROR).toBe('quiet_hours from and to must differ');
  });

  it.each([
    ['Berlin', '"Berlin"'],
    ['UTC+7', '"UTC+7"'],
    ['GMT-3', '"GMT-3"'],
    ['+07:00', '"+07:00"'],
    ['local', '"local"'],
    ['Local', '"Local"'],
    ['Europe/Berlin ', '"Europe/Berlin "'],
    ['Mars/Olympus_Mons', '"Mars/Olympus_Mons"'],
    [42, '42'],
  ])('refuses tz %j as not an IANA time zone', (tz, shown) => {
    expect(parseQuietHours({ from: '23:00', to: '06:00', tz })).toEqual({ ok: false, error: notIana(shown) });
  });

  it("names the spec's example exactly", () => {
    expect(parseQuietHours({ from: '23:00', to: '06:00', tz: 'Berlin' })).toEqual({
      ok: false,
      error: 'quiet_hours tz "Berlin" is not an IANA time zone (for example "Europe/Berlin", "America/New_York", "UTC")',
    });
  });

  it('refuses a window without a time zone', () => {
    expect(parseQuietHours({ from: '23:00', to: '06:00' })).toEqual({
      ok: false,
      error: 'quiet_hours tz is missing: name an IANA time zone (for example "Europe/Berlin", "America/New_York", "UTC")',
    });
  });

  it('checks the times before the zone, and the zone last', () => {
    expect(parseQuietHours({ from: '25:00', to: '25:00', tz: 'Berlin' })).toEqual({ ok: false, error: QUIET_HOURS_TIMES_ERROR });
    expect(parseQuietHours({ from: '05:00', to: '05:00', tz: 'Berlin' })).toEqual({ ok: false, error: QUIET_HOURS_DIFFER_ERROR });
  });

  it('refuses a field it does not take rather than dropping it', () => {
    expect(parseQuietHours({ from: '23:00', to: '06:00', tz: BERLIN, days: ['sat'] })).toEqual({
      ok: false,
      error: 'quiet_hours takes from, to and tz only, not: days',
    });
  });

  it.each([['23:00-06:00'], [7], [['23:00', '06:00']]])('refuses %j, which is not an object', (input) => {
    const result = parseQuietHours(input);
    expect(result.ok).toBe(false);
    expect(result.ok === false && result.error).toMatch(/^quiet_hours must be an object with from, to and tz/);
  });
});

describe('canonicalTimeZone', () => {
  it.each([
    ['Europe/Berlin', 'Europe/Berlin'],
    ['EUROPE/BERLIN', 'Europe/Berlin'],
    ['america/new_york', 'America/New_York'],
    ['america/argentina/buenos_aires', 'America/Argentina/Buenos_Aires'],
    ['asia/kolkata', 'Asia/Kolkata'],
    ['europe/kyiv', 'Europe/Kyiv'],
    ['utc', 'UTC'],
    ['etc/gmt+7', 'Etc/GMT+7'],
    ['Etc/UTC', 'UTC'],
    ['US/Eastern', 'America/New_York'],
  ])('spells %s as %s', (name, canonical) => {
    expect(canonicalTimeZone(name)).toBe(canonical);
  });

  it.each([['UTC+7'], ['utc-05:00'], ['+07:00'], ['-0500'], ['local'], ['Berlin'], [''], ['Europe//Berlin'], ['../etc/passwd']])('refuses %j', (name) => {
    expect(canonicalTimeZone(name)).toBeNull();
  });
});

describe('boundaryInstant', () => {
  // The earliest instant of the local date at which the zone's clock reads at least the time.
  it.each([
    // Europe/Berlin, spring forward 2026-03-29: 02:00 CET jumps to 03:00 CEST at 01:00Z.
    ['2026-03-28', '23:00', BERLIN, '2026-03-28T22:00:00.000Z', 'an ordinary winter evening'],
    ['2026-03-29', '01:59', BERLIN, '2026-03-29T00:59:00.000Z', 'the last minute before the jump'],
    ['2026-03-29', '02:00', BERLIN, '2026-03-29T01:00:00.000Z', 'a skipped time: the jump'],
    ['2026-03-29', '02:30', BERLIN, '2026-03-29T01:00:00.000Z', 'a skipped time: the jump'],
    ['2026-03-29', '02:59', BERLIN, '2026-03-29T01:00:00.000Z', 'a skipped time: the jump'],
    ['2026-03-29', '03:00', BERLIN, '2026-03-29T01:00:00.000Z', 'the first time after the jump'],
    ['2026-03-29', '03:30', BERLIN, '2026-03-29T01:30:00.000Z', 'summer time'],
    ['2026-03-29', '23:00', BERLIN, '2026-03-29T21:00:00.000Z', 'the evening after the change'],
    // Europe/Berlin, fall back 2026-10-25: 03:00 CEST goes back to 02:00 CET at 01:00Z.
    ['2026-10-25', '01:59', BERLIN, '2026-10-24T23:59:00.000Z', 'before the repeated hour'],
    ['2026-10-25', '02:00', BERLIN, '2026-10-25T00:00:00.000Z', 'a repeated time: the first pass'],
    ['2026-10-25', '02:30', BERLIN, '2026-10-25T00:30:00.000Z', 'a repeated time: the first pass'],
    ['2026-10-25', '02:59', BERLIN, '2026-10-25T00:59:00.000Z', 'a repeated time: the first pass'],
    ['2026-10-25', '03:00', BERLIN, '2026-10-25T02:00:00.000Z', 'after the repeated hour'],
    ['2026-10-25', '06:00', BERLIN, '2026-10-25T05:00:00.000Z', 'winter time'],
    // America/New_York: 2026-03-08 02:00 EST jumps to 03:00 EDT at 07:00Z; 2026-11-01 02:00 EDT goes back to 01:00 EST at 06:00Z.
    ['2026-03-08', '01:59', NEW_YORK, '2026-03-08T06:59:00.000Z', 'the last minute before the jump'],
    ['2026-03-08', '02:30', NEW_YORK, '2026-03-08T07:00:00.000Z', 'a skipped time: the jump'],
    ['2026-03-08', '03:00', NEW_YORK, '2026-03-08T07:00:00.000Z', 'the first time after the jump'],
    ['2026-11-01', '00:59', NEW_YORK, '2026-11-01T04:59:00.000Z', 'before the repeated hour'],
    ['2026-11-01', '01:00', NEW_YORK, '2026-11-01T05:00:00.000Z', 'a repeated time: the first pass'],
    ['2026-11-01', '01:30', NEW_YORK, '2026-11-01T05:30:00.000Z', 'a repeated time: the first pass'],
    ['2026-11-01', '02:00', NEW_YORK, '2026-11-01T07:00:00.000Z', 'after the repeated hour'],
    // A zone without clock changes, and a zone with a half-hour change (Lord Howe: 02:00 → 02:30 on 2026-10-04).
    ['2026-10-25', '02:30', 'UTC', '2026-10-25T02:30:00.000Z', 'UTC'],
    ['2026-10-04', '02:15', 'Australia/Lord_Howe', '2026-10-03T15:30:00.000Z', 'a skipped time in a half-hour jump'],
  ])('%s %s %s → %s (%s)', (localDate, time, tz, expected) => {
    expect(boundaryInstant(localDate, time, tz).toISOString()).toBe(expected);
  });

  it("differs from luxon's defaults, which the spec's rules forbid here", () => {
    const repeated = DateTime.fromObject({ year: 2026, month: 10, day: 25, hour: 2, minute: 30 }, { zone: BERLIN });
    const skipped = DateTime.fromObject({ year: 2026, month: 3, day: 29, hour: 2, minute: 30 }, { zone: BERLIN });
    expect(repeated.toJSDate().toISOString()).toBe('2026-10-25T01:30:00.000Z');
    expect(boundaryInstant('2026-10-25', '02:30', BERLIN).toISOString()).toBe('2026-10-25T00:30:00.000Z');
    expect(skipped.toJSDate().toISOString()).toBe('2026-03-29T01:30:00.000Z');
    expect(boundaryInstant('2026-03-29', '02:30', BERLIN).toISOString()).toBe('2026-03-29T01:00:00.000Z');
  });

  it('throws on a malformed date or time (a bug, never user input)', () => {
    expect(() => boundaryInstant('2026-3-29', '02:30', BERLIN)).toThrow();
    expect(() => boundaryInstant('2026-03-29', '2:30', BERLIN)).toThrow();
  });
});

type WindowCase = [now: string, expected: [start: string, end: string] | null, why: string];

function windowTable(quietHours: QuietHours, cases: WindowCase[]) {
  it.each(cases)(`${quietHoursLabel(quietHours)}: at %s → %j (%s)`, (now, expected) => {
    const window = quietWindowAt(new Date(now), quietHours);
    expect(window && [window.start.toISOString(), window.end.toISOString()]).toEqual(expected);
  });
}

describe('quietWindowAt', () => {
  describe('an ordinary night past midnight', () => {
    windowTable({ from: '23:00', to: '06:00', tz: BERLIN }, [
      ['2026-06-10T20:59:59.999Z', null, 'a moment before from'],
      ['2026-06-10T21:00:00.000Z', ['2026-06-10T21:00:00.000Z', '2026-06-11T04:00:00.000Z'], 'from is inside'],
      ['2026-06-10T23:30:00.000Z', ['2026-06-10T21:00:00.000Z', '2026-06-11T04:00:00.000Z'], 'after midnight'],
      ['2026-06-11T03:59:59.999Z', ['2026-06-10T21:00:00.000Z', '2026-06-11T04:00:00.000Z'], 'the last moment'],
      ['2026-06-11T04:00:00.000Z', null, 'to is not inside'],
      ['2026-06-11T12:00:00.000Z', null, 'midday'],
    ]);
  });

  describe('a window within one day', () => {
    windowTable({ from: '09:00', to: '17:00', tz: 'UTC' }, [
      ['2026-06-10T08:59:00.000Z', null, 'before'],
      ['2026-06-10T09:00:00.000Z', ['2026-06-10T09:00:00.000Z', '2026-06-10T17:00:00.000Z'], 'from'],
      ['2026-06-10T16:59:00.000Z', ['2026-06-10T09:00:00.000Z', '2026-06-10T17:00:00.000Z'], 'inside'],
      ['2026-06-10T17:00:00.000Z', null, 'to'],
      ['2026-06-10T23:00:00.000Z', null, 'night'],
    ]);
  });

  describe('the shortest window, across midnight', () => {
    windowTable({ from: '23:59', to: '00:00', tz: 'UTC' }, [
      ['2026-06-10T23:58:59.000Z', null, 'before'],
      ['2026-06-10T23:59:30.000Z', ['2026-06-10T23:59:00.000Z', '2026-06-11T00:00:00.000Z'], 'inside'],
      ['2026-06-11T00:00:00.000Z', null, 'to'],
    ]);
  });

  describe('Europe/Berlin, spring forward 2026-03-29', () => {
    windowTable({ from: '23:00', to: '06:00', tz: BERLIN }, [
      ['2026-03-28T21:59:00.000Z', null, '22:59 CET'],
      ['2026-03-28T22:00:00.000Z', ['2026-03-28T22:00:00.000Z', '2026-03-29T04:00:00.000Z'], '23:00 CET'],
      ['2026-03-29T00:59:00.000Z', ['2026-03-28T22:00:00.000Z', '2026-03-29T04:00:00.000Z'], '01:59 CET'],
      ['2026-03-29T01:00:00.000Z', ['2026-03-28T22:00:00.000Z', '2026-03-29T04:00:00.000Z'], '03:00 CEST, after the jump'],
      ['2026-03-29T04:00:00.000Z', null, '06:00 CEST: the window has ended (six hours long that night)'],
    ]);
    describe('to inside the skipped hour: the window ends the moment the clocks jump', () => {
      windowTable({ from: '22:00', to: '02:30', tz: BERLIN }, [
        ['2026-03-28T21:00:00.000Z', ['2026-03-28T21:00:00.000Z', '2026-03-29T01:00:00.000Z'], '22:00 CET'],
        ['2026-03-29T00:59:59.999Z', ['2026-03-28T21:00:00.000Z', '2026-03-29T01:00:00.000Z'], 'just before the jump'],
        ['2026-03-29T01:00:00.000Z', null, '03:00 CEST, the jump'],
        ['2026-03-29T01:30:00.000Z', null, '03:30 CEST'],
      ]);
    });
    describe('from inside the skipped hour: the window starts at the jump', () => {
      windowTable({ from: '02:30', to: '06:00', tz: BERLIN }, [
        ['2026-03-29T00:59:00.000Z', null, '01:59 CET'],
        ['2026-03-29T01:00:00.000Z', ['2026-03-29T01:00:00.000Z', '2026-03-29T04:00:00.000Z'], '03:00 CEST, the jump'],
      ]);
    });
  });

  describe('Europe/Berlin, fall back 2026-10-25', () => {
    windowTable({ from: '23:00', to: '06:00', tz: BERLIN }, [
      ['2026-10-24T21:00:00.000Z', ['2026-10-24T21:00:00.000Z', '2026-10-25T05:00:00.000Z'], '23:00 CEST'],
      ['2026-10-25T00:30:00.000Z', ['2026-10-24T21:00:00.000Z', '2026-10-25T05:00:00.000Z'], '02:30 CEST, first pass'],
      ['2026-10-25T01:30:00.000Z', ['2026-10-24T21:00:00.000Z', '2026-10-25T05:00:00.000Z'], '02:30 CET, second pass'],
      ['2026-10-25T05:00:00.000Z', null, '06:00 CET: the window has ended (eight hours long that night)'],
    ]);
    describe('to inside the repeated hour: the window ends the first time and is not entered again', () => {
      windowTable({ from: '23:00', to: '02:30', tz: BERLIN }, [
        ['2026-10-25T00:29:59.999Z', ['2026-10-24T21:00:00.000Z', '2026-10-25T00:30:00.000Z'], '02:29 CEST, first pass'],
        ['2026-10-25T00:30:00.000Z', null, '02:30 CEST: to, first pass'],
        ['2026-10-25T00:59:00.000Z', null, '02:59 CEST'],
        ['2026-10-25T01:00:00.000Z', null, '02:00 CET, second pass: not entered again'],
        ['2026-10-25T01:29:00.000Z', null, '02:29 CET, second pass: not entered again'],
        ['2026-10-25T01:30:00.000Z', null, '02:30 CET'],
      ]);
    });
    describe('from inside the repeated hour (the known limit)', () => {
      windowTable({ from: '02:30', to: '06:00', tz: BERLIN }, [
        ['2026-10-25T00:29:00.000Z', null, '02:29 CEST, first pass'],
        ['2026-10-25T00:30:00.000Z', ['2026-10-25T00:30:00.000Z', '2026-10-25T05:00:00.000Z'], '02:30 CEST: starts on the first pass'],
        ['2026-10-25T00:59:00.000Z', ['2026-10-25T00:30:00.000Z', '2026-10-25T05:00:00.000Z'], '02:59 CEST'],
        ['2026-10-25T01:00:00.000Z', null, '02:00 CET, second pass before from: outside'],
        ['2026-10-25T01:29:59.999Z', null, '02:29 CET, second pass before from: outside'],
        ['2026-10-25T01:30:00.000Z', ['2026-10-25T00:30:00.000Z', '2026-10-25T05:00:00.000Z'], '02:30 CET: inside again'],
        ['2026-10-25T05:00:00.000Z', null, '06:00 CET'],
      ]);
    });
  });

  describe('America/New_York, spring forward 2026-03-08', () => {
    windowTable({ from: '22:00', to: '02:30', tz: NEW_YORK }, [
      ['2026-03-08T03:00:00.000Z', ['2026-03-08T03:00:00.000Z', '2026-03-08T07:00:00.000Z'], '22:00 EST'],
      ['2026-03-08T06:59:00.000Z', ['2026-03-08T03:00:00.000Z', '2026-03-08T07:00:00.000Z'], '01:59 EST'],
      ['2026-03-08T07:00:00.000Z', null, '03:00 EDT, the jump: to was skipped'],
    ]);
  });

  describe('America/New_York, fall back 2026-11-01', () => {
    windowTable({ from: '22:00', to: '01:30', tz: NEW_YORK }, [
      ['2026-11-01T02:00:00.000Z', ['2026-11-01T02:00:00.000Z', '2026-11-01T05:30:00.000Z'], '22:00 EDT'],
      ['2026-11-01T05:29:00.000Z', ['2026-11-01T02:00:00.000Z', '2026-11-01T05:30:00.000Z'], '01:29 EDT'],
      ['2026-11-01T05:30:00.000Z', null, '01:30 EDT: to, first pass'],
      ['2026-11-01T06:15:00.000Z', null, '01:15 EST, second pass: not entered again'],
    ]);
    describe('from inside the repeated hour (the known limit)', () => {
      windowTable({ from: '01:15', to: '06:00', tz: NEW_YORK }, [
        ['2026-11-01T05:15:00.000Z', ['2026-11-01T05:15:00.000Z', '2026-11-01T11:00:00.000Z'], '01:15 EDT'],
        ['2026-11-01T06:00:00.000Z', null, '01:00 EST, second pass before from'],
        ['2026-11-01T06:15:00.000Z', ['2026-11-01T05:15:00.000Z', '2026-11-01T11:00:00.000Z'], '01:15 EST'],
        ['2026-11-01T11:00:00.000Z', null, '06:00 EST'],
      ]);
    });
  });
});

describe('quietOccurrence', () => {
  it('runs to the next day when to is before from', () => {
    const window = quietOccurrence('2026-06-10', { from: '23:00', to: '06:00', tz: BERLIN });
    expect([window.start.toISOString(), window.end.toISOString()]).toEqual(['2026-06-10T21:00:00.000Z', '2026-06-11T04:00:00.000Z']);
  });

  it('stays in the day when to is after from', () => {
    const window = quietOccurrence('2026-06-10', { from: '06:00', to: '23:00', tz: BERLIN });
    expect([window.start.toISOString(), window.end.toISOString()]).toEqual(['2026-06-10T04:00:00.000Z', '2026-06-10T21:00:00.000Z']);
  });
});

describe('quietHoursLabel', () => {
  it('names the window as the messages do', () => {
    expect(quietHoursLabel({ from: '23:00', to: '06:00', tz: BERLIN })).toBe('23:00–06:00 Europe/Berlin');
  });
});

describe('boundaryInstant with a zone that was never validated', () => {
  it('throws rather than answering an invalid date', () => {
    expect(() => boundaryInstant('2026-06-10', '23:00', 'Mars/Olympus_Mons')).toThrow(/not a time zone/);
  });
});
