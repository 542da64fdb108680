import { describe, expect, it } from 'vitest';
import { renderEventRow } from '../delivery/index.ts';
import { afterArchives, parseRemoteEvents, remoteArchives, remoteSourceId, takesRemoteEvent, type RemoteEventInput } from './remote-events.ts';
import { parseSubscribe } from './subscribe-rules.ts';

const at = new Date('2026-06-10T09:00:00Z');
function remote(overrides: Partial<RemoteEventInput> = {}): RemoteEventInput {
  return {
    id: 'ev1',
    kind: 'turn_end',
    sessionId: '77aa19f0',
    sessionTitle: 'Nightly deploy',
    text: 'Deployed. The health check is green.',
    status: 'done',
    refId: '',
    occurredAt: at,
    ...overrides,
  };
}
function subscription(overrides: Partial<Parameters<typeof parseSubscribe>[0]> = {}) {
  const spec = parseSubscribe({
    watcherSessionId: 'watcher',
    sessions: ['77aa19f0'],
    exclude: [],
    events: [],
    once: false,
    match: '',
    stalledMinutes: 0,
    heartbeatMinutes: 0,
    digestMinutes: 0,
    quietHours: null,
    resolved: [{ id: '77aa19f0', title: 'Nightly deploy' }],
    ...overrides,
  });
  return { ...spec, watcherSessionId: 'watcher' };
}

describe("parseRemoteEvents: rows with the relay's name", () => {
  it.each<[string, Partial<RemoteEventInput>, string]>([
    [
      'turn_end, as the spec shows it',
      {},
      '[relay event] build-box · session "Nightly deploy" (77aa…): turn_end (done) "Deployed. The health check is green."',
    ],
    [
      'question_asked with its id',
      { kind: 'question_asked', text: 'Roll back?', status: '', refId: 'q_12' },
      '[relay event] build-box · session "Nightly deploy" (77aa…): question_asked "Roll back?" (question_id q_12)',
    ],
    [
      'task_failed with its exit',
      { kind: 'task_failed', text: 'npm test', status: '1', refId: 'task_9' },
      '[relay event] build-box · session "Nightly deploy" (77aa…): task_failed "npm test" (exit 1; task_id task_9)',
    ],
    [
      'task_failed by a signal',
      { kind: 'task_failed', text: 'npm test', status: '', refId: 'task_9' },
      '[relay event] build-box · session "Nightly deploy" (77aa…): task_failed "npm test" (no exit code; task_id task_9)',
    ],
    [
      "stalled, in that relay's words",
      { kind: 'stalled', text: 'no output for 15 min', status: '' },
      '[relay event] build-box · session "Nightly deploy" (77aa…): stalled: no output for 15 min',
    ],
    [
      'all_idle, about the subscription',
      { kind: 'all_idle', sessionId: '', sessionTitle: '', text: 'no turn or task is running in the 2 watched sessions', status: '' },
      '[relay event] build-box · all_idle: no turn or task is running in the 2 watched sessions',
    ],
  ])('%s', (_, overrides, row) => {
    const [candidate] = parseRemoteEvents('build-box', [remote(overrides)], null);
    expect(renderEventRow(candidate!.event)).toBe(row);
  });

  it('marks a replayed batch with what that relay dropped, and takes an id twice in one batch once', () => {
    const candidates = parseRemoteEvents('build-box', [remote(), remote()], { dropped: 4 });
    expect(candidates).toHaveLength(1);
    expect(candidates[0]!.event.replayed).toEqual({ dropped: 4 });
  });

  it.each<[string, Partial<RemoteEventInput>, string]>([
    ['no id', { id: '' }, 'events[0] (no id): id is missing.'],
    [
      'an unknown kind',
      { kind: 'turn_started' },
      'events[0] (ev1): kind "turn_started" is not one of question_asked, error, turn_end, subagent_finished, task_started, task_finished, task_failed, stalled, all_idle, heartbeat, archived.',
    ],
    ['no session', { sessionId: '' }, 'events[0] (ev1): turn_end needs session_id.'],
    ['no instant', { occurredAt: undefined }, 'events[0] (ev1): occurred_at is missing.'],
    ['a turn status of its own', { status: 'finished' }, 'events[0] (ev1): turn_end status is done, error or stopped, got "finished".'],
    [
      'an exit code that is not one',
      { kind: 'task_finished', status: 'ok' },
      'events[0] (ev1): status of task_finished is the exit code as a whole number or empty, got "ok".',
    ],
  ])('refuses %s with REMOTE_RELAY_INVALID_INPUT', (_, overrides, message) => {
    expect(() => parseRemoteEvents('build-box', [remote(overrides)], null)).toThrow(expect.objectContaining({ code: 'REMOTE_RELAY_INVALID_INPUT', message }));
  });
});

describe('takesRemoteEvent', () => {
  const take = (sub: ReturnType<typeof subscription>, overrides: Partial<RemoteEventInput>) =>
    takesRemoteEvent(sub, parseRemoteEvents('build-box', [remote(overrides)], null)[0]!);

  it('takes the default events of its sessions and not task_finished unless named', () => {
    expect(take(subscription(), {})).toBe(true);
    expect(take(subscription(), { kind: 'task_finished', status: '0' })).toBe(false);
    expect(take(subscription({ events: ['task_finished'] }), { kind: 'task_finished', status: '0' })).toBe(true);
  });

  it('leaves other sessions, excluded sessions and texts without the match', () => {
    expect(take(subscription(), { sessionId: 'ffff0000' })).toBe(false);
    expect(take(subscription({ sessions: ['all'], exclude: ['77aa19f0'], resolved: [] }), {})).toBe(false);
    expect(take(subscription({ match: 'rollback' }), {})).toBe(false);
    expect(take(subscription({ match: 'HEALTH' }), {})).toBe(true);
  });

  it('takes all_idle when named, and the heartbeat when it asked for one', () => {
    expect(take(subscription(), { kind: 'all_idle', sessionId: '' })).toBe(true);
    expect(take(subscription({ events: ['error'] }), { kind: 'all_idle', sessionId: '' })).toBe(false);
    expect(take(subscription(), { kind: 'heartbeat', sessionId: '' })).toBe(false);
    expect(take(subscription({ heartbeatMinutes: 60 }), { kind: 'heartbeat', sessionId: '' })).toBe(true);
  });

  it('leaves a heartbeat made inside its quiet hours (they are applied here)', () => {
    const quiet = subscription({ heartbeatMinutes: 60, quietHours: { from: '08:00', to: '10:00', tz: 'UTC' } });
    expect(take(quiet, { kind: 'heartbeat', sessionId: '' })).toBe(false);
    expect(take(quiet, { kind: 'heartbeat', sessionId: '', occurredAt: new Date('2026-06-10T10:00:00Z') })).toBe(true);
  });

  it('keys a remote event by subscription and id', () => {
    expect(remoteSourceId('sub_a', 'ev1')).toBe('remote:sub_a:ev1');
  });
});

describe('an archive on the other relay', () => {
  it('is checked like any event but makes no row; remoteArchives reads its session', () => {
    const events = [remote(), remote({ id: 'ev2', kind: 'archived', text: '', status: '' })];
    expect(parseRemoteEvents('build-box', events, null).map((candidate) => candidate.eventId)).toEqual(['ev1']);
    expect(remoteArchives(events)).toEqual(['77aa19f0']);
    expect(() => parseRemoteEvents('build-box', [remote({ kind: 'archived', sessionId: '' })], null)).toThrow(
      expect.objectContaining({ code: 'REMOTE_RELAY_INVALID_INPUT' }),
    );
    expect(() => parseRemoteEvents('build-box', [remote({ kind: 'archived', occurredAt: undefined })], null)).toThrow(
      expect.objectContaining({ code: 'REMOTE_RELAY_INVALID_INPUT' }),
    );
  });

  it('takes the session off a list, ends a list left empty, and leaves a subscription to all sessions alone', () => {
    const two = {
      scope: 'sessions' as const,
      sessions: [
        { id: 'a', title: 'A' },
        { id: 'b', title: 'B' },
      ],
    };
    expect(afterArchives(two, ['a'])).toEqual({ sessions: [{ id: 'b', title: 'B' }], ended: false });
    expect(afterArchives(two, ['a', 'b'])).toEqual({ sessions: [], ended: true });
    expect(afterArchives(two, ['c'])).toBeNull();
    expect(afterArchives({ scope: 'all', sessions: [] }, ['a'])).toBeNull();
  });
});
