// A computed all_idle carries the trace of the event that made the watched sessions idle (issue 39, item 7): the
// projection keeps the traceparent of the event that ended a session's latest run, through the store's JSON, and
// all_idle takes the one of the run that ended last.
import { describe, expect, it } from 'vitest';
import { runsFromJson, runsToJson } from '../src/adapters/store/watch-codec.ts';
import { projectSessionEvent } from '../src/domain/project-session-event.ts';
import type { SessionActivity, SessionEvent } from '../src/domain/session-activity.ts';
import { computeEvents, type ComputingSubscription } from '../src/domain/subscriptions/computed-events.ts';

const at = (iso: string) => new Date(iso);
const trace = (n: number) => `00-${String(n).padStart(32, '0')}-${'1'.repeat(16)}-01`;
const subscription: ComputingSubscription = {
  id: 'sub_ab12cd34ef',
  watcherSessionId: 'watcher',
  scope: 'sessions',
  sessions: [
    { id: 'a', title: 'A' },
    { id: 'b', title: 'B' },
  ],
  exclude: [],
  events: ['all_idle'],
  stalledMinutes: 10,
  heartbeatMinutes: null,
  quietHours: null,
  createdAt: at('2026-11-30T08:00:00Z'),
};

function project(events: SessionEvent[]): SessionActivity[] {
  const rows = new Map<string, SessionActivity>();
  for (const event of events) {
    const row = projectSessionEvent(rows.get(event.sessionId), event);
    if (row !== undefined) rows.set(event.sessionId, { ...row, runs: runsFromJson(JSON.parse(JSON.stringify(runsToJson(row.runs)))) });
  }
  return [...rows.values()];
}

const turn = (sessionId: string, type: 'turn_started' | 'turn_ended', iso: string, traceParent: string): SessionEvent => ({
  eventId: `${sessionId}-${type}`,
  occurredAt: at(iso),
  sessionId,
  userId: 'u1',
  type,
  turnId: `${sessionId}-t`,
  traceParent,
});

describe('all_idle and the trace that made it', () => {
  it('links to the turn_ended of the run that ended last, not an earlier one', () => {
    const rows = project([
      turn('a', 'turn_started', '2026-11-30T09:00:00Z', trace(1)),
      turn('b', 'turn_started', '2026-11-30T09:00:00Z', trace(2)),
      turn('b', 'turn_ended', '2026-11-30T09:02:00Z', trace(3)),
      turn('a', 'turn_ended', '2026-11-30T09:01:00Z', trace(4)),
    ]);
    const [idle] = computeEvents(subscription, rows, at('2026-11-30T09:03:00Z')).events;
    expect(idle).toMatchObject({ event: { kind: 'all_idle', occurredAt: at('2026-11-30T09:02:00Z') }, traceParent: trace(3) });
  });
});
