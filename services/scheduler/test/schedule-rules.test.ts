import { describe, expect, it } from 'vitest';
import {
  dueAction,
  end,
  fire,
  firingId,
  GUARD_RETRY_MAX_MS,
  GUARD_RETRY_MIN_MS,
  hold,
  isFiringId,
  HOLD_RECHECK_MS,
  nextGuardRetryMs,
  retryLater,
  scheduledPromptHeader,
  skip,
} from '../src/domain/firing.ts';
import { nextGridTime } from '../src/domain/grid.ts';
import {
  listedSince,
  newScheduleId,
  parseInstant,
  planSchedule,
  scheduleCounts,
  shownTimes,
  type Schedule,
  type ScheduleRequest,
} from '../src/domain/schedule.ts';

const t = (iso: string) => new Date(iso);
const provenance = { originRelay: 'desk', originSessionId: 's1', originSessionTitle: 'Main', model: 'script-1', hops: 1 };
const request = (over: Partial<ScheduleRequest> = {}): ScheduleRequest => ({
  userId: 'u1',
  settingSessionId: 's1',
  settingSessionTitle: 'Main',
  targetSessionId: 's1',
  targetSessionTitle: 'Main',
  title: 'Nightly review',
  text: 'reply tick',
  at: '2026-11-02T02:00:00Z',
  everyMinutes: 1440,
  provenance,
  ...over,
});
const none = { firingIntoTarget: 0, setBySetterForOthers: 0 };
const NOW = t('2026-11-01T12:00:00.000Z');
const plan = (over: Partial<ScheduleRequest> = {}, now = NOW) => planSchedule(request(over), none, 'sch_000000000001', now);

describe('nextGridTime (absolute UTC minutes)', () => {
  it.each([
    ['at in the future is the next time', '2026-11-02T02:00:00Z', 60, '2026-11-01T12:00:00Z', '2026-11-02T02:00:00.000Z'],
    ['exactly on a grid time moves one interval on', '2026-11-01T00:00:00Z', 60, '2026-11-01T03:00:00Z', '2026-11-01T04:00:00.000Z'],
    ['between grid times takes the next one', '2026-11-01T00:00:00Z', 60, '2026-11-01T03:30:00Z', '2026-11-01T04:00:00.000Z'],
    ['three missed intervals collapse to the next one after now', '2026-11-01T00:00:00Z', 10, '2026-11-01T00:35:00Z', '2026-11-01T00:40:00.000Z'],
    ['odd intervals keep the first time as origin', '2026-11-01T00:07:00Z', 7, '2026-11-01T01:00:00Z', '2026-11-01T01:03:00.000Z'],
    // Europe/Berlin leaves summer time on 2026-10-25: a daily 02:00Z grid stays at 02:00Z (03:00 → 04:00 local is not followed).
    ['DST does not move a daily grid', '2026-10-24T02:00:00Z', 1440, '2026-10-25T12:00:00Z', '2026-10-26T02:00:00.000Z'],
    ['DST spring forward: still whole days of 1440 minutes', '2026-03-28T02:00:00Z', 1440, '2026-03-29T02:00:00Z', '2026-03-30T02:00:00.000Z'],
  ])('%s', (_name, at, every, after, expected) => {
    expect(nextGridTime(t(at), every, t(after)).toISOString()).toBe(expected);
  });
});

describe('planSchedule', () => {
  it('a repeating schedule is due first at `at`', () => {
    const s = plan();
    expect(s).toMatchObject({ once: false, everyMinutes: 1440, nextFireAt: t('2026-11-02T02:00:00Z'), firedCount: 0, skippedCount: 0, endedAt: null });
  });
  it('without at the first time is one interval from now', () => {
    expect(plan({ at: '', everyMinutes: 30 }).nextFireAt.toISOString()).toBe('2026-11-01T12:30:00.000Z');
  });
  it('at alone is once', () => {
    expect(plan({ everyMinutes: 0 })).toMatchObject({ once: true, everyMinutes: 0 });
  });
  it('an at in the past is due at once (a missed time)', () => {
    const s = plan({ at: '2026-10-01T00:00:00Z' });
    expect(s.nextFireAt.getTime()).toBeLessThan(NOW.getTime());
  });
  it.each([
    ['neither at nor every_minutes', { at: '', everyMinutes: 0 }, 'at'],
    ['a date without a time', { at: '2026-11-02' }, 'at'],
    ['a time without a zone', { at: '2026-11-02T02:00:00' }, 'at'],
    ['not a date', { at: 'tomorrow' }, 'at'],
    ['an impossible date', { at: '2026-13-45T02:00:00Z' }, 'at'],
    ['fractional minutes', { everyMinutes: 1.5 }, 'every_minutes'],
    ['negative minutes', { everyMinutes: -5 }, 'every_minutes'],
    ['more than a year', { everyMinutes: 600_000 }, 'every_minutes'],
    ['an empty title', { title: '  ' }, 'title'],
    ['an empty text', { text: '' }, 'text'],
  ])('refuses %s', (_name, over, field) => {
    expect(() => plan(over)).toThrow(expect.objectContaining({ code: 'REMOTE_RELAY_INVALID_INPUT', details: { field } }));
  });
  it('refuses a 21st schedule firing into a conversation', () => {
    expect(() => planSchedule(request(), { firingIntoTarget: 20, setBySetterForOthers: 0 }, 'sch_1', NOW)).toThrow(
      expect.objectContaining({ code: 'REMOTE_RELAY_SCHEDULE_LIMIT' }),
    );
  });
  it('refuses a 21st schedule set for others, but not one for its own conversation', () => {
    const counts = { firingIntoTarget: 0, setBySetterForOthers: 20 };
    expect(() => planSchedule(request({ targetSessionId: 's2' }), counts, 'sch_1', NOW)).toThrow(
      expect.objectContaining({ code: 'REMOTE_RELAY_SCHEDULE_LIMIT' }),
    );
    expect(planSchedule(request(), counts, 'sch_1', NOW).id).toBe('sch_1');
  });
  it('accepts offsets and fractions in at', () => {
    expect(parseInstant('2026-11-02T03:00:00.5+01:00')?.toISOString()).toBe('2026-11-02T02:00:00.500Z');
  });
  it('ids are sch_ + 12 hex', () => {
    expect(newScheduleId(() => '3f9c2a1e7b04')).toBe('sch_3f9c2a1e7b04');
  });
});

describe('scheduleCounts (what the two limits count)', () => {
  const schedule = (id: string, settingSessionId: string, targetSessionId: string, endedAt: Date | null = null): Schedule => ({
    ...plan({ settingSessionId, targetSessionId }),
    id,
    endedAt,
  });
  it('counts the active schedules firing into the target, and those the setter set for other sessions', () => {
    const schedules = [
      schedule('sch_a', 's1', 't1'),
      schedule('sch_b', 's2', 't1'),
      schedule('sch_c', 's1', 's1'),
      schedule('sch_d', 's1', 't2'),
      schedule('sch_e', 's1', 't1', t('2026-11-01T11:00:00Z')),
    ];
    expect(scheduleCounts(schedules, { settingSessionId: 's1', targetSessionId: 't1' })).toEqual({ firingIntoTarget: 2, setBySetterForOthers: 2 });
  });
  it("counts a schedule into the setter's own conversation toward its target, not toward those set for others", () => {
    expect(scheduleCounts([schedule('sch_a', 's1', 's1')], { settingSessionId: 's1', targetSessionId: 's1' })).toEqual({
      firingIntoTarget: 1,
      setBySetterForOthers: 0,
    });
  });
});

describe('isFiringId', () => {
  it.each([
    ['a firing id', firingId('sch_0123456789ab', t('2026-11-01T12:00:00Z')), true],
    ['a message id the session service made', 'msg_0123456789ab', false],
    ['no id', '', false],
  ])('%s', (_name, id, expected) => {
    expect(isFiringId(id)).toBe(expected);
  });
});

describe('due times', () => {
  const every10 = (over: Partial<Schedule> = {}): Schedule => ({
    ...plan({ at: '2026-11-01T00:00:00Z', everyMinutes: 10 }),
    ...over,
  });

  it('fires on time and moves to the next grid time', () => {
    const { firing, update } = fire(every10(), t('2026-11-01T00:00:00Z'));
    expect(firing).toMatchObject({ id: 'sch_000000000001:2026-11-01T00:00:00.000Z', dueAt: t('2026-11-01T00:00:00Z') });
    expect(update).toMatchObject({ nextFireAt: t('2026-11-01T00:10:00Z'), firedCount: 1, lastFiredAt: t('2026-11-01T00:00:00Z'), endedAt: null });
  });
  it('after downtime across three intervals fires once, not counted as skipped, then keeps the grid', () => {
    const { firing, update } = fire(every10({ nextFireAt: t('2026-11-01T00:10:00Z') }), t('2026-11-01T00:41:30Z'));
    expect(firing.dueAt).toEqual(t('2026-11-01T00:10:00Z'));
    expect(update).toMatchObject({ nextFireAt: t('2026-11-01T00:50:00Z'), firedCount: 1, skippedCount: 0 });
  });
  it('an at in the past fires once at once, then the grid continues from at', () => {
    const s = plan({ at: '2026-11-01T11:00:00Z', everyMinutes: 25 });
    const { update } = fire(s, NOW);
    expect(update.nextFireAt).toEqual(t('2026-11-01T12:15:00Z'));
  });
  it('a once schedule ends as fired', () => {
    const { update } = fire(plan({ everyMinutes: 0 }), t('2026-11-02T02:00:00Z'));
    expect(update).toMatchObject({ endedAt: t('2026-11-02T02:00:00Z'), endReason: 'fired', firedCount: 1 });
  });
  it.each([
    ['a repeat whose previous message still waits skips', false, true, 'skip'],
    ['a repeat whose previous message started fires', false, false, 'fire'],
    ['a once schedule never skips', true, true, 'fire'],
  ] as const)('%s', (_name, once, waits, expected) => {
    expect(dueAction(every10({ once }), waits)).toBe(expected);
  });
  it('a skip counts and moves to the next grid time', () => {
    expect(skip(every10({ skippedCount: 2 }), t('2026-11-01T00:20:00Z'))).toMatchObject({
      skippedCount: 3,
      nextFireAt: t('2026-11-01T00:30:00Z'),
      firedCount: 0,
    });
  });
  it('a held firing stays due, keeps its first heldSince, and is looked at every minute', () => {
    const first = hold(every10(), t('2026-11-01T00:00:00Z'));
    expect(first).toMatchObject({
      heldForApproval: true,
      heldSince: t('2026-11-01T00:00:00Z'),
      nextFireAt: new Date(t('2026-11-01T00:00:00Z').getTime() + HOLD_RECHECK_MS),
    });
    const later = hold(every10(first), t('2026-11-01T00:25:00Z'));
    expect(later).toMatchObject({ heldSince: t('2026-11-01T00:00:00Z'), firedCount: 0, skippedCount: 0 });
  });
  it('a released hold fires once for all the grid times it covered', () => {
    const held = every10({ heldForApproval: true, heldSince: t('2026-11-01T00:00:00Z'), nextFireAt: t('2026-11-01T00:36:00Z') });
    const { update } = fire(held, t('2026-11-01T00:36:00Z'));
    expect(update).toMatchObject({ heldForApproval: false, heldSince: null, firedCount: 1, nextFireAt: t('2026-11-01T00:40:00Z') });
  });
  it("a firing whose guard could not be asked stays due a second on (or the loop's backoff), keeping its grid time, with nothing else changed", () => {
    const s = every10();
    expect(retryLater(s, t('2026-11-01T00:00:00Z'))).toEqual({
      ...skip(s, t('2026-11-01T00:00:00Z')),
      skippedCount: 0,
      nextFireAt: t('2026-11-01T00:00:01Z'),
      pendingFireAt: t('2026-11-01T00:00:00Z'),
    });
    expect(retryLater(s, t('2026-11-01T00:00:00Z'), 4_000).nextFireAt).toEqual(t('2026-11-01T00:00:04Z'));
  });
  // Issue 39: a catch-up firing whose first pass came before the session service was ready waited a minute.
  it('the backoff while the guard cannot be asked doubles from a second to a few seconds, never a minute', () => {
    const waits: number[] = [];
    let last: number | undefined;
    for (let pass = 0; pass < 6; pass += 1) waits.push((last = nextGuardRetryMs(last)));
    expect(waits).toEqual([GUARD_RETRY_MIN_MS, 2_000, 4_000, GUARD_RETRY_MAX_MS, GUARD_RETRY_MAX_MS, GUARD_RETRY_MAX_MS]);
    expect(GUARD_RETRY_MAX_MS).toBeLessThanOrEqual(5_000);
  });
  it('a firing deferred because the guard was away goes for its own grid time', () => {
    const deferred = every10(retryLater(every10(), t('2026-11-01T00:00:00Z')));
    expect(fire(deferred, t('2026-11-01T00:01:00Z')).firing.dueAt).toEqual(t('2026-11-01T00:00:00Z'));
  });
  it('a skip of a held repeat ends the hold: the held firing is the one skipped', () => {
    const held = every10(hold(every10(), t('2026-11-01T00:00:00Z')));
    expect(skip(held, t('2026-11-01T00:01:00Z'))).toMatchObject({
      heldForApproval: false,
      heldSince: null,
      pendingFireAt: null,
      skippedCount: 1,
      nextFireAt: t('2026-11-01T00:10:00Z'),
    });
  });
  it('end records why', () => {
    expect(end(every10(), 'archived', NOW)).toMatchObject({ endedAt: NOW, endReason: 'archived' });
  });
  it('firing ids are deterministic', () => {
    expect(firingId('sch_1', t('2026-11-01T00:00:00Z'))).toBe(firingId('sch_1', t('2026-11-01T00:00:00.000Z')));
  });
  it('ended schedules are listed for an hour', () => {
    expect(listedSince(NOW)).toEqual(t('2026-11-01T11:00:00Z'));
  });
  it('the prompt header says it is automated and approves nothing', () => {
    expect(scheduledPromptHeader('sch_1', 'Tick', 10)).toBe(
      '[relay schedule sch_1 "Tick" · every 10 min · automated message from OAR, not from the user; it approves nothing]',
    );
    expect(scheduledPromptHeader('sch_1', 'Tick', 0)).toContain('· once ·');
  });
});

describe('a held firing, step by step (every 60 min from 10:00; the loop looks every minute while it is held)', () => {
  const hourly = plan({ at: '2026-11-01T10:00:00Z', everyMinutes: 60 }, t('2026-11-01T09:00:00Z'));
  // Each row is one look of the firing loop at `now` with the loop guard's answer, then what list_schedules shows.
  const steps = [
    { now: '2026-11-01T10:00:00Z', goes: false, nextFireAt: '2026-11-01T11:00:00Z', heldFireAt: '2026-11-01T10:00:00Z', firedDueAt: null, firedCount: 0 },
    { now: '2026-11-01T10:01:00Z', goes: false, nextFireAt: '2026-11-01T11:00:00Z', heldFireAt: '2026-11-01T10:00:00Z', firedDueAt: null, firedCount: 0 },
    // 11:00 passes during the hold: it collapses into the held firing (not fired, not skipped).
    { now: '2026-11-01T11:30:00Z', goes: false, nextFireAt: '2026-11-01T12:00:00Z', heldFireAt: '2026-11-01T10:00:00Z', firedDueAt: null, firedCount: 0 },
    { now: '2026-11-01T11:31:00Z', goes: true, nextFireAt: '2026-11-01T12:00:00Z', heldFireAt: null, firedDueAt: '2026-11-01T10:00:00Z', firedCount: 1 },
    { now: '2026-11-01T12:00:00Z', goes: true, nextFireAt: '2026-11-01T13:00:00Z', heldFireAt: null, firedDueAt: '2026-11-01T12:00:00Z', firedCount: 2 },
  ];
  it.each(steps.map((step, index) => ({ ...step, index })))('at $now the guard says goes=$goes', ({ index }) => {
    let schedule = hourly;
    for (const step of steps.slice(0, index + 1)) {
      const now = t(step.now);
      expect(schedule.nextFireAt.getTime()).toBeLessThanOrEqual(now.getTime());
      const result = step.goes ? fire(schedule, now) : { firing: undefined, update: hold(schedule, now) };
      schedule = { ...schedule, ...result.update };
      if (step === steps[index]) {
        expect(result.firing?.dueAt ?? null).toEqual(step.firedDueAt === null ? null : t(step.firedDueAt));
        expect(shownTimes(schedule, now)).toEqual({ nextFireAt: t(step.nextFireAt), heldFireAt: step.heldFireAt === null ? null : t(step.heldFireAt) });
        expect(schedule).toMatchObject({
          firedCount: step.firedCount,
          skippedCount: 0,
          heldForApproval: !step.goes,
          heldSince: step.goes ? null : t('2026-11-01T10:00:00Z'),
        });
      }
    }
  });

  it('a held once schedule shows the held firing as its next time', () => {
    const once = plan({ at: '2026-11-01T10:00:00Z', everyMinutes: 0 }, t('2026-11-01T09:00:00Z'));
    const held = { ...once, ...hold(once, t('2026-11-01T10:00:00Z')) };
    expect(shownTimes(held, t('2026-11-01T10:30:00Z'))).toEqual({ nextFireAt: t('2026-11-01T10:00:00Z'), heldFireAt: t('2026-11-01T10:00:00Z') });
  });

  it('an ended schedule shows no times', () => {
    expect(shownTimes({ ...hourly, ...end(hourly, 'unscheduled', NOW) }, NOW)).toEqual({ nextFireAt: null, heldFireAt: null });
  });
});
