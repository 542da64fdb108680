// A long turn that keeps working is not stalled (issue #5): the session service's turn_activity events, decoded
// and projected as the consumer does, move the turn's silence; a turn silent for stalledMinutes is stalled.
import { describe, expect, it } from 'vitest';
import { SessionEvents } from '@relay/proto/relay/bus-contracts';
import { decodeSessionEvent, type ProjectedMessage } from '../src/adapters/bus/decode-session-event.ts';
import { projectSessionEvent } from '../src/domain/project-session-event.ts';
import type { SessionActivity } from '../src/domain/session-activity.ts';
import { computeEvents, type ComputingSubscription } from '../src/domain/subscriptions/computed-events.ts';

const at = (iso: string) => new Date(iso);
const common = (eventId: string, occurredAt: string) => ({ eventId, occurredAt, sessionId: 's1', userId: 'u1' });

const subscription: ComputingSubscription = {
  id: 'sub_ab12cd34ef',
  watcherSessionId: 'watcher',
  scope: 'sessions',
  sessions: [{ id: 's1', title: 'Refactor' }],
  exclude: [],
  events: ['stalled'],
  stalledMinutes: 10,
  heartbeatMinutes: null,
  quietHours: null,
  createdAt: at('2026-11-30T08:00:00Z'),
};

/** The projection's row after the bus delivered these (subject, JSON payload) in order. */
function project(messages: [string, unknown][]): SessionActivity[] {
  let row: SessionActivity | undefined;
  for (const [subject, data] of messages) {
    const contract = subject === SessionEvents.TURN_STARTED.subject ? SessionEvents.TURN_STARTED : SessionEvents.TURN_ACTIVITY;
    const event = decodeSessionEvent({ subject: contract.subject, data: contract.codec.fromJSON(data) } as ProjectedMessage);
    row = projectSessionEvent(row, event) ?? row;
  }
  return row === undefined ? [] : [row];
}

const started: [string, unknown] = [SessionEvents.TURN_STARTED.subject, { ...common('e1', '2026-11-30T09:00:00Z'), turnId: 't1' }];
const activity = (eventId: string, iso: string): [string, unknown] => [
  SessionEvents.TURN_ACTIVITY.subject,
  { ...common(eventId, iso), turnId: 't1', lastActivityAt: iso },
];

describe('stalled and a turn that keeps working', () => {
  it('is not stalled while its turn_activity events keep coming, 15 minutes into the turn', () => {
    const working = project([
      started,
      ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14].map((minute) => activity(`a${minute}`, `2026-11-30T09:${String(minute).padStart(2, '0')}:00Z`)),
    ]);
    const result = computeEvents(subscription, working, at('2026-11-30T09:15:00Z'));
    expect(result.events).toEqual([]);
    expect(result.nextDueAt).toEqual(at('2026-11-30T09:24:00Z'));
  });

  it('is stalled once silent for stalledMinutes after its last activity, named from that activity', () => {
    const silent = project([started, activity('a1', '2026-11-30T09:03:00Z')]);
    expect(computeEvents(subscription, silent, at('2026-11-30T09:12:59Z')).events).toEqual([]);
    const due = computeEvents(subscription, silent, at('2026-11-30T09:13:00Z'));
    expect(due.events).toHaveLength(1);
    expect(due.events[0]).toMatchObject({
      sourceEventId: 'stalled:sub_ab12cd34ef:s1:turn:t1:2026-11-30T09:03:00.000Z',
      event: { occurredAt: at('2026-11-30T09:13:00Z') },
    });
  });
});
