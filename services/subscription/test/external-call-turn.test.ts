// An external session's call in flight is its running turn for all_idle, stalled and the heartbeat (issue 39,
// item 2; decisions.md, Waiting for the person): the session service's external_call_held / _released events,
// decoded and projected as the consumer does, make and end that turn; a hold its gateway stopped renewing ends
// when it lapses. Every rule is computed at an explicit `now`.
import { describe, expect, it } from 'vitest';
import { SessionEvents } from '@relay/proto/relay/bus-contracts';
import { decodeSessionEvent, type ProjectedMessage } from '../src/adapters/bus/decode-session-event.ts';
import { runsFromJson, runsToJson } from '../src/adapters/store/watch-codec.ts';
import { projectSessionEvent } from '../src/domain/project-session-event.ts';
import type { SessionActivity } from '../src/domain/session-activity.ts';
import { computeEvents, type ComputingSubscription } from '../src/domain/subscriptions/computed-events.ts';

const at = (iso: string) => new Date(iso);
const common = (eventId: string, occurredAt: string, sessionId = 'ext') => ({ eventId, occurredAt, sessionId, userId: 'u1' });

const subscription: ComputingSubscription = {
  id: 'sub_ab12cd34ef',
  watcherSessionId: 'watcher',
  scope: 'sessions',
  sessions: [
    { id: 'ext', title: 'Terminal' },
    { id: 'hosted', title: 'Build' },
  ],
  exclude: [],
  events: ['all_idle', 'stalled'],
  stalledMinutes: 10,
  heartbeatMinutes: null,
  quietHours: null,
  createdAt: at('2026-11-30T08:00:00Z'),
};

const CONTRACTS = [SessionEvents.TURN_STARTED, SessionEvents.TURN_ENDED, SessionEvents.EXTERNAL_CALL_HELD, SessionEvents.EXTERNAL_CALL_RELEASED];

/** The projection's rows after the bus delivered these (subject, JSON payload) in order. */
function project(messages: [string, Record<string, unknown>][]): SessionActivity[] {
  const rows = new Map<string, SessionActivity>();
  for (const [subject, data] of messages) {
    const contract = CONTRACTS.find((candidate) => candidate.subject === subject)!;
    const event = decodeSessionEvent({ subject, data: contract.codec.fromJSON(data) } as ProjectedMessage);
    const row = projectSessionEvent(rows.get(event.sessionId), event);
    // Stored and read back as the store does (runs are JSON).
    if (row !== undefined) rows.set(event.sessionId, { ...row, runs: runsFromJson(JSON.parse(JSON.stringify(runsToJson(row.runs)))) });
  }
  return [...rows.values()];
}

// The hosted session ran a turn that ended at 09:00, before the external call.
const hostedTurn: [string, Record<string, unknown>][] = [
  [SessionEvents.TURN_STARTED.subject, { ...common('h1', '2026-11-30T08:50:00Z', 'hosted'), turnId: 't1' }],
  [SessionEvents.TURN_ENDED.subject, { ...common('h2', '2026-11-30T09:00:00Z', 'hosted'), turnId: 't1', status: 'TURN_STATUS_DONE' }],
];
const held = (eventId: string, iso: string, until: string, callId = 'c1'): [string, Record<string, unknown>] => [
  SessionEvents.EXTERNAL_CALL_HELD.subject,
  { ...common(eventId, iso), callId, heldUntil: until },
];
const released = (eventId: string, iso: string, callId = 'c1'): [string, Record<string, unknown>] => [
  SessionEvents.EXTERNAL_CALL_RELEASED.subject,
  { ...common(eventId, iso), callId },
];

const kinds = (result: ReturnType<typeof computeEvents>) => result.events.map((event) => event.event.kind);

describe("an external session's call in flight is a running turn", () => {
  it('keeps all_idle from firing while the call is held, and shows running_turn in the heartbeat', () => {
    // The call began before the hosted turn ended, and is renewed every 20 s until 09:05.
    const renewals = Array.from({ length: 16 }, (_, index) =>
      held(
        `r${index}`,
        new Date(Date.parse('2026-11-30T08:59:50Z') + index * 20_000).toISOString(),
        new Date(Date.parse('2026-11-30T09:00:50Z') + index * 20_000).toISOString(),
      ),
    );
    const rows = project([...hostedTurn, ...renewals]);
    const now = at('2026-11-30T09:05:00Z');
    expect(kinds(computeEvents(subscription, rows, now))).toEqual([]);
    const heartbeat = computeEvents({ ...subscription, events: [], heartbeatMinutes: 60, createdAt: at('2026-11-30T08:05:00Z') }, rows, now).events[0]!.event;
    expect(heartbeat).toMatchObject({ kind: 'heartbeat', sessions: expect.arrayContaining([{ id: 'ext', title: 'Terminal', state: 'running_turn' }]) });
  });

  it('all_idle fires when the call is released, at that instant', () => {
    const rows = project([
      ...hostedTurn,
      held('c', '2026-11-30T08:59:50Z', '2026-11-30T09:00:50Z'),
      held('r', '2026-11-30T09:00:10Z', '2026-11-30T09:01:10Z'),
      released('x', '2026-11-30T09:00:30Z'),
    ]);
    const result = computeEvents(subscription, rows, at('2026-11-30T09:00:31Z'));
    expect(result.events.map((event) => event.event)).toEqual([expect.objectContaining({ kind: 'all_idle', occurredAt: at('2026-11-30T09:00:30Z') })]);
  });

  it('is stalled once held for stalledMinutes: renewals are no sign of life', () => {
    const renewals = Array.from({ length: 40 }, (_, index) =>
      held(
        `r${index}`,
        new Date(Date.parse('2026-11-30T09:00:00Z') + index * 20_000).toISOString(),
        new Date(Date.parse('2026-11-30T09:01:00Z') + index * 20_000).toISOString(),
      ),
    );
    const rows = project([...hostedTurn, ...renewals]);
    expect(kinds(computeEvents(subscription, rows, at('2026-11-30T09:09:59Z')))).toEqual([]);
    const due = computeEvents(subscription, rows, at('2026-11-30T09:10:00Z'));
    expect(due.events.map((event) => event.event)).toEqual([
      expect.objectContaining({ kind: 'stalled', occurredAt: at('2026-11-30T09:10:00Z'), session: { id: 'ext', title: 'Terminal' } }),
    ]);
  });

  it('a hold its gateway stopped renewing ends when it lapses: all_idle then, and the rules look again at that instant', () => {
    const rows = project([...hostedTurn, held('c', '2026-11-30T09:01:00Z', '2026-11-30T09:02:00Z')]);
    const before = computeEvents(subscription, rows, at('2026-11-30T09:01:30Z'));
    expect(kinds(before)).toEqual([]);
    expect(before.nextDueAt).toEqual(at('2026-11-30T09:02:00Z'));
    const after = computeEvents(subscription, rows, at('2026-11-30T09:02:00Z'));
    expect(after.events.map((event) => event.event)).toEqual([expect.objectContaining({ kind: 'all_idle', occurredAt: at('2026-11-30T09:02:00Z') })]);
  });

  it('a release delivered before its hold (a redelivery) starts no turn', () => {
    const rows = project([...hostedTurn, released('x', '2026-11-30T09:01:30Z'), held('c', '2026-11-30T09:01:00Z', '2026-11-30T09:02:00Z')]);
    expect(rows.find((row) => row.sessionId === 'ext')?.runs.turn ?? null).toBeNull();
  });
});
