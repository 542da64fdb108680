import { describe, expect, it } from 'vitest';
import { formatSchedules } from '../src/commands/schedules.ts';
import { parseCommand } from '../src/parse-command.ts';

/** What every schedule the ⏰ list shows has. */
const schedule = { text: 'run it', at: '2026-11-01T02:00:00.000Z', everyMinutes: 0, once: false, lastFiredAt: null };

describe('relay schedules', () => {
  it.each([
    [['schedules'], { kind: 'schedules', json: false }],
    [['schedules', '--session', 's1', '--json'], { kind: 'schedules', sessionId: 's1', json: true }],
    [['schedules', '--json', '--session', 's1'], { kind: 'schedules', sessionId: 's1', json: true }],
    [['schedules', '--cancel', 'sch_3f9c2a1e7b04'], { kind: 'schedules', cancel: 'sch_3f9c2a1e7b04', json: false }],
  ])('parses %j', (argv, expected) => {
    expect(parseCommand(argv)).toEqual(expected);
  });

  it('lists the schedules as an aligned table, with the grid note', () => {
    const text = formatSchedules([
      {
        ...schedule,
        id: 'sch_1',
        title: 'Nightly',
        session: { id: 's1', title: 'Desk' },
        everyMinutes: 1440,
        nextFireAt: '2026-11-02T02:00:00.000Z',
        firedCount: 3,
        skippedCount: 1,
      },
      {
        ...schedule,
        id: 'sch_2',
        title: 'Once',
        session: { id: 's2', title: 'Other' },
        once: true,
        nextFireAt: null,
        endedAt: '2026-11-01T02:00:00.000Z',
        endReason: 'fired',
        firedCount: 1,
      },
    ]);
    expect(text.split('\n')).toEqual([
      'ID     TITLE      FIRES INTO  CADENCE         STATE                          FIRED',
      'sch_1  "Nightly"  "Desk"      every 1440 min  next 2026-11-02T02:00:00.000Z  3, 1 skipped',
      'sch_2  "Once"     "Other"     once            ended (fired)                  1',
      'Repeats keep a grid of UTC minutes; daylight-saving changes do not move them.',
    ]);
    expect(formatSchedules([])).toBe('No schedules.');
  });

  it('says so under the table when the relay listed only the newest 500', () => {
    const one = { ...schedule, id: 'sch_1', title: 'Nightly', session: { id: 's1', title: 'Desk' }, nextFireAt: '2026-11-02T02:00:00.000Z', firedCount: 0 };
    expect(formatSchedules([one], true).split('\n').at(-1)).toBe('More schedules are listed than show here: the newest 500 do.');
    expect(formatSchedules([one], false)).not.toContain('More schedules');
  });
});
