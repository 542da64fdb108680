import { describe, expect, it } from 'vitest';
import { renderEventRow } from '../delivery/index.ts';
import { NO_RUNS, type SessionActivity, type SessionRuns } from '../session-activity.ts';
import { computeEvents, computesEvents, watchedSessions, type ComputingSubscription } from './computed-events.ts';

const at = (iso: string) => new Date(iso);
const CREATED = at('2026-10-24T08:00:00Z');

function subscription(overrides: Partial<ComputingSubscription> = {}): ComputingSubscription {
  return {
    id: 'sub_ab12cd34ef',
    watcherSessionId: 'watcher',
    scope: 'sessions',
    sessions: [
      { id: '3f9c2a1e', title: 'Review: server/' },
      { id: 'a12b77aa', title: 'Review: web/' },
    ],
    exclude: [],
    events: ['question_asked', 'error', 'turn_end', 'subagent_finished', 'task_failed', 'stalled', 'all_idle'],
    stalledMinutes: 15,
    heartbeatMinutes: null,
    quietHours: null,
    createdAt: CREATED,
    ...overrides,
  };
}
function activity(sessionId: string, runs: Partial<SessionRuns> = {}, overrides: Partial<SessionActivity> = {}): SessionActivity {
  const merged = { ...NO_RUNS, ...runs };
  const state = merged.turn ? 'running_turn' : merged.tasks.length > 0 ? 'background_only' : 'idle';
  return { sessionId, userId: 'u1', title: '', state, lastEventAt: CREATED, lastEventId: 'e', runs: merged, archivedAt: null, ...overrides };
}
const rows = (result: ReturnType<typeof computeEvents>) => result.events.map((item) => renderEventRow(item.event));

describe('computeEvents: stalled', () => {
  const turn = { turn: { id: 't1', startedAt: at('2026-10-24T09:00:00Z') }, turnActivityAt: at('2026-10-24T09:05:00Z') };

  it('is due stalledMinutes after the turn last showed life, and fires then', () => {
    const before = computeEvents(subscription(), [activity('3f9c2a1e', turn)], at('2026-10-24T09:19:59Z'));
    expect(before.events).toEqual([]);
    expect(before.nextDueAt).toEqual(at('2026-10-24T09:20:00Z'));
    const due = computeEvents(subscription(), [activity('3f9c2a1e', turn)], at('2026-10-24T09:20:00Z'));
    expect(rows(due)).toEqual(['[relay event] session "Review: server/" (3f9c…): stalled: no output for 15 min']);
    expect(due.events[0]).toMatchObject({
      sourceEventId: 'stalled:sub_ab12cd34ef:3f9c2a1e:turn:t1:2026-10-24T09:05:00.000Z',
      event: { occurredAt: at('2026-10-24T09:20:00Z') },
    });
  });

  it('fires the same id however often it is computed, and a new silence makes a new one', () => {
    const once = computeEvents(subscription(), [activity('3f9c2a1e', turn)], at('2026-10-24T09:30:00Z'));
    const again = computeEvents(subscription(), [activity('3f9c2a1e', turn)], at('2026-10-24T10:30:00Z'));
    expect(again.events.map((e) => e.sourceEventId)).toEqual(once.events.map((e) => e.sourceEventId));
    const later = computeEvents(subscription(), [activity('3f9c2a1e', { ...turn, turnActivityAt: at('2026-10-24T10:00:00Z') })], at('2026-10-24T10:30:00Z'));
    expect(later.events[0]?.sourceEventId).not.toBe(once.events[0]?.sourceEventId);
  });

  it('names a quiet task, silent since its last output', () => {
    const task = { id: 'task_b7k2', description: 'npm test', startedAt: at('2026-10-24T09:00:00Z'), lastOutputAt: at('2026-10-24T09:10:00Z') };
    const result = computeEvents(subscription({ stalledMinutes: 5 }), [activity('a12b77aa', { tasks: [task] })], at('2026-10-24T09:15:00Z'));
    expect(rows(result)).toEqual(['[relay event] session "Review: web/" (a12b…): stalled: no output for 5 min from task "npm test" (task_id task_b7k2)']);
  });

  it('does not fire for a silence before the subscription was made until it exists, nor when stalled is not asked for', () => {
    const old = { turn: { id: 't0', startedAt: at('2026-10-24T06:00:00Z') }, turnActivityAt: at('2026-10-24T06:00:00Z') };
    expect(computeEvents(subscription(), [activity('3f9c2a1e', old)], CREATED).events[0]?.event.occurredAt).toEqual(CREATED);
    expect(computeEvents(subscription({ events: ['error'] }), [activity('3f9c2a1e', turn)], at('2026-10-24T12:00:00Z')).events).toEqual([]);
  });
});

describe('computeEvents: all_idle', () => {
  const ended = (iso: string) => ({ lastEndedAt: at(iso) });

  it("fires when the last run of the watched sessions ended, with the spec's row", () => {
    const result = computeEvents(
      subscription(),
      [activity('3f9c2a1e', ended('2026-10-24T09:00:00Z')), activity('a12b77aa', ended('2026-10-24T09:30:00Z'))],
      at('2026-10-24T09:30:05Z'),
    );
    expect(rows(result)).toEqual(['[relay event] all_idle: no turn or task is running in the 2 watched sessions (subscription sub_ab12cd34ef)']);
    expect(result.events[0]).toMatchObject({
      sourceEventId: 'all_idle:sub_ab12cd34ef:2026-10-24T09:30:00.000Z',
      event: { occurredAt: at('2026-10-24T09:30:00Z') },
    });
  });

  it('does not fire while one turn or task runs, nor for an idleness older than the subscription', () => {
    const busy = activity('a12b77aa', {
      tasks: [{ id: 'task_1', description: 'build', startedAt: at('2026-10-24T09:00:00Z'), lastOutputAt: at('2026-10-24T09:29:00Z') }],
    });
    expect(
      computeEvents(subscription({ events: ['all_idle'] }), [activity('3f9c2a1e', ended('2026-10-24T09:00:00Z')), busy], at('2026-10-24T09:30:00Z')).events,
    ).toEqual([]);
    expect(computeEvents(subscription(), [activity('3f9c2a1e', ended('2026-10-24T07:00:00Z'))], at('2026-10-24T09:30:00Z')).events).toEqual([]);
  });

  it('honours exclude on a subscription to all sessions: a busy excluded session does not keep it from firing', () => {
    const all = subscription({ scope: 'all', sessions: [], exclude: ['77aa0000'] });
    const busy = activity('77aa0000', { turn: { id: 't9', startedAt: at('2026-10-24T09:00:00Z') } });
    const archived = activity('dead0000', { turn: { id: 't8', startedAt: at('2026-10-24T09:00:00Z') } }, { archivedAt: at('2026-10-24T09:01:00Z') });
    const watcherItself = activity('watcher', { turn: { id: 't7', startedAt: at('2026-10-24T09:00:00Z') } });
    const result = computeEvents(
      all,
      [activity('3f9c2a1e', ended('2026-10-24T09:10:00Z')), activity('a12b77aa', ended('2026-10-24T09:20:00Z')), busy, archived, watcherItself],
      at('2026-10-24T09:21:00Z'),
    );
    expect(rows(result).filter((row) => row.includes('all_idle'))).toEqual([
      '[relay event] all_idle: no turn or task is running in the 2 watched sessions (subscription sub_ab12cd34ef)',
    ]);
  });
});

describe('computeEvents: the heartbeat', () => {
  const every30 = subscription({ events: ['error'], heartbeatMinutes: 30 });

  it("is on the grid from the subscription's creation and lists the watched sessions' states", () => {
    const first = computeEvents(every30, [], at('2026-10-24T08:29:00Z'));
    expect(first.events).toEqual([]);
    expect(first.nextDueAt).toEqual(at('2026-10-24T08:30:00Z'));
    const due = computeEvents(
      every30,
      [activity('3f9c2a1e', { turn: { id: 't1', startedAt: at('2026-10-24T08:10:00Z') } }, { title: 'Review: server/' })],
      at('2026-10-24T08:30:00Z'),
    );
    expect(rows(due)).toEqual([
      '[relay event] heartbeat: 2 watched sessions: session "Review: server/" (3f9c…) running_turn, session "Review: web/" (a12b…) idle (subscription sub_ab12cd34ef)',
    ]);
    expect(due.nextDueAt).toEqual(at('2026-10-24T09:00:00Z'));
  });

  it('after a pause makes only the latest grid time', () => {
    const result = computeEvents(every30, [], at('2026-10-24T10:10:00Z'));
    expect(result.events.map((e) => e.sourceEventId)).toEqual(['heartbeat:sub_ab12cd34ef:2026-10-24T10:00:00.000Z']);
  });

  it('is not made inside quiet hours, and the next one is the first grid time after them', () => {
    const quiet = subscription({
      events: ['error'],
      heartbeatMinutes: 60,
      quietHours: { from: '11:30', to: '13:15', tz: 'Europe/Berlin' },
      createdAt: at('2026-10-24T08:00:00Z'),
    });
    // 10:00Z is 12:00 in Berlin (CEST): inside the window.
    const result = computeEvents(quiet, [], at('2026-10-24T10:00:00Z'));
    expect(result.events).toEqual([]);
    expect(result.nextDueAt).toEqual(at('2026-10-24T12:00:00Z'));
  });
});

describe('watchedSessions and computesEvents', () => {
  it('shows a listed session not seen yet as idle with its listed title', () => {
    expect(watchedSessions(subscription(), []).map((row) => [row.sessionId, row.title, row.state])).toEqual([
      ['3f9c2a1e', 'Review: server/', 'idle'],
      ['a12b77aa', 'Review: web/', 'idle'],
    ]);
  });

  it('only subscriptions that ask for stalled, all_idle or a heartbeat compute', () => {
    expect(computesEvents({ events: ['error', 'turn_end'], heartbeatMinutes: null })).toBe(false);
    expect(computesEvents({ events: ['error'], heartbeatMinutes: 60 })).toBe(true);
    expect(computesEvents({ events: ['all_idle'], heartbeatMinutes: null })).toBe(true);
  });
});
