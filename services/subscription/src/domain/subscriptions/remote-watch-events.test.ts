// stalled, all_idle and the heartbeat for a paired relay's subscription, computed on the watched relay and shown
// by the watching one: the row there reads as the local row with the relay's name in front.
import { describe, expect, it } from 'vitest';
import { renderEventRow } from '../delivery/index.ts';
import { NO_RUNS, type SessionActivity, type SessionRuns } from '../session-activity.ts';
import { parseRemoteEvents } from './remote-events.ts';
import { computeRemoteWatchEvents, type RemoteWatchSpec } from './remote-watch-events.ts';

const at = (iso: string) => new Date(iso);
const CREATED = at('2026-10-24T08:00:00Z');

function watch(overrides: Partial<RemoteWatchSpec> = {}): RemoteWatchSpec {
  return {
    subscriptionId: 'sub_ab12cd34ef',
    userId: 'u1',
    scope: 'all',
    sessions: [],
    exclude: [],
    events: [],
    stalledMinutes: 0,
    heartbeatMinutes: 0,
    createdAt: CREATED,
    ...overrides,
  };
}
function activity(sessionId: string, title: string, runs: Partial<SessionRuns> = {}, overrides: Partial<SessionActivity> = {}): SessionActivity {
  const merged = { ...NO_RUNS, ...runs };
  const state = merged.turn ? 'running_turn' : merged.tasks.length > 0 ? 'background_only' : 'idle';
  return { sessionId, userId: 'u1', title, state, lastEventAt: CREATED, lastEventId: 'e', runs: merged, archivedAt: null, ...overrides };
}
/** The rows the watching relay shows for what was computed here. */
function rowsThere(result: ReturnType<typeof computeRemoteWatchEvents>): string[] {
  const sent = result.events.map((event) => ({ ...event, status: '', refId: '' }));
  return parseRemoteEvents('build-box', sent, null).map((candidate) => renderEventRow(candidate.event));
}

const idleAt = at('2026-10-24T09:10:00Z');
const deploy = activity('77aa19f0', 'Nightly deploy', { lastEndedAt: idleAt });
const tests = activity('3f9c2a1e', 'Tests', { lastEndedAt: at('2026-10-24T09:00:00Z') });
const excluded = activity('a12b77aa', 'Scratch', { turn: { id: 't9', startedAt: at('2026-10-24T09:00:00Z') } });

describe('computeRemoteWatchEvents', () => {
  it('makes all_idle over the sessions not excluded (the default events), worded as a local all_idle', () => {
    const result = computeRemoteWatchEvents(watch({ exclude: ['a12b77aa'] }), [deploy, tests, excluded], at('2026-10-24T09:11:00Z'));
    expect(rowsThere(result)).toEqual([
      '[relay event] build-box · all_idle: no turn or task is running in the 2 watched sessions (subscription sub_ab12cd34ef)',
    ]);
    expect(result.events[0]).toMatchObject({ id: 'all_idle:sub_ab12cd34ef:2026-10-24T09:10:00.000Z', kind: 'all_idle', sessionId: '', occurredAt: idleAt });
    // Without the exclude, the running session there keeps it from being idle.
    expect(computeRemoteWatchEvents(watch(), [deploy, tests, excluded], at('2026-10-24T09:11:00Z')).events).toEqual([]);
  });

  it('makes stalled with its session after the default 15 minutes, and nothing for events it did not name', () => {
    const running = activity('a12b77aa', 'Scratch', { turn: { id: 't9', startedAt: at('2026-10-24T09:00:00Z') } });
    const result = computeRemoteWatchEvents(watch(), [running], at('2026-10-24T09:15:00Z'));
    expect(rowsThere(result)).toEqual(['[relay event] build-box · session "Scratch" (a12b…): stalled: no output for 15 min']);
    expect(computeRemoteWatchEvents(watch({ events: ['turn_end'] }), [running], at('2026-10-24T09:15:00Z')).events).toEqual([]);
  });

  it('makes the heartbeat on its grid, listing the watched sessions but the excluded, and says when it is due next', () => {
    const result = computeRemoteWatchEvents(
      watch({ events: ['turn_end'], heartbeatMinutes: 60, exclude: ['a12b77aa'] }),
      [deploy, excluded],
      at('2026-10-24T09:30:00Z'),
    );
    expect(rowsThere(result)).toEqual([
      '[relay event] build-box · heartbeat: 1 watched session: session "Nightly deploy" (77aa…) idle (subscription sub_ab12cd34ef)',
    ]);
    expect(result.nextDueAt).toEqual(at('2026-10-24T10:00:00Z'));
  });
});
