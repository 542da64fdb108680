import { describe, expect, it } from 'vitest';
import { isAppError } from '@relay/errors';
import { SessionEvents } from '@relay/proto/relay/bus-contracts';
import { SessionCreated } from '@relay/proto/relay/session/v1/events';
import { SessionOrigin, SessionState } from '@relay/proto/relay/session/v1/session';
import { decodeSessionEvent, PROJECTED_EVENTS, type ProjectedMessage } from '../src/adapters/bus/decode-session-event.ts';
import { SubscriptionErrorCode } from '../src/domain/errors.ts';

const payload = (state = SessionState.SESSION_STATE_IDLE) =>
  SessionCreated.toJSON(
    SessionCreated.fromPartial({
      eventId: 'e1',
      occurredAt: new Date('2026-11-30T10:00:00Z'),
      session: {
        id: 's1',
        userId: 'u1',
        title: 'Refactor',
        provider: 'script',
        model: '',
        state,
        cwd: '/tmp',
        archived: false,
        origin: SessionOrigin.SESSION_ORIGIN_EXTERNAL,
        messageCount: 0,
        createdAt: new Date('2026-11-30T10:00:00Z'),
        lastActivityAt: new Date('2026-11-30T10:00:00Z'),
      },
    }),
  );

/** What the consumer does with a message on `subject`: decoded by its contract, then read (undefined: not taken). */
function decode(subject: string, data: unknown) {
  const contract = PROJECTED_EVENTS.find((candidate) => candidate.subject === subject);
  return contract === undefined ? undefined : decodeSessionEvent({ subject, data: contract.codec.fromJSON(data) } as ProjectedMessage);
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return isAppError(error) ? error.code : 'not an AppError';
  }
  return undefined;
}

describe('decodeSessionEvent', () => {
  it('reads session_created as the session service encodes it', () => {
    expect(decode(SessionEvents.SESSION_CREATED.subject, payload())).toEqual({
      type: 'session_created',
      eventId: 'e1',
      occurredAt: new Date('2026-11-30T10:00:00Z'),
      sessionId: 's1',
      userId: 'u1',
      title: 'Refactor',
      state: 'idle',
    });
  });

  const common = { eventId: 'e2', occurredAt: '2026-11-30T10:05:00Z', sessionId: 's1', userId: 'u1' };
  it.each([
    ['turn_started', SessionEvents.TURN_STARTED.subject, { ...common, turnId: 't1' }, { type: 'turn_started', turnId: 't1' }],
    ['turn_ended', SessionEvents.TURN_ENDED.subject, { ...common, turnId: 't1', status: 'TURN_STATUS_DONE' }, { type: 'turn_ended', turnId: 't1' }],
    ['question_asked', SessionEvents.QUESTION_ASKED.subject, common, { type: 'turn_activity' }],
    ['subagent_finished', SessionEvents.SUBAGENT_FINISHED.subject, { ...common, description: 'Review the diff' }, { type: 'turn_activity' }],
    ['turn_activity', SessionEvents.TURN_ACTIVITY.subject, { ...common, turnId: 't1', lastActivityAt: common.occurredAt }, { type: 'turn_activity' }],
    [
      'task_started',
      SessionEvents.TASK_STARTED.subject,
      { ...common, task: { id: 'task_1', description: 'npm test' } },
      { type: 'task_started', task: { id: 'task_1', description: 'npm test' } },
    ],
    ['task_failed', SessionEvents.TASK_FAILED.subject, { ...common, task: { id: 'task_1', exitCode: 1 } }, { type: 'task_ended', taskId: 'task_1' }],
    [
      'task_output',
      SessionEvents.TASK_OUTPUT.subject,
      { ...common, taskId: 'task_1', lastOutputAt: '2026-11-30T10:04:30Z' },
      { type: 'task_output', taskId: 'task_1', lastOutputAt: new Date('2026-11-30T10:04:30Z') },
    ],
    ['archived', SessionEvents.ARCHIVED.subject, common, { type: 'archived' }],
  ])('reads %s for the runs of the session', (_, subject, data, expected) => {
    expect(decode(subject, data)).toEqual({ eventId: 'e2', occurredAt: new Date('2026-11-30T10:05:00Z'), sessionId: 's1', userId: 'u1', ...expected });
  });

  it('passes over session events the projection does not use', () => {
    expect(decode('relay.session.v1.turn_queued', { anything: true })).toBeUndefined();
  });

  it('refuses a task event without its task', () => {
    expect(codeOf(() => decode(SessionEvents.TASK_STARTED.subject, common))).toBe(SubscriptionErrorCode.INVALID_EVENT);
  });

  it.each([
    ['no session', { eventId: 'e1', occurredAt: '2026-11-30T10:00:00Z' }],
    ['no event id', { ...(payload() as object), eventId: '' }],
    ['no time', { ...(payload() as object), occurredAt: undefined }],
    ['a state it cannot read', payload(SessionState.SESSION_STATE_UNSPECIFIED)],
    ['not an object', 'session_created'],
  ])('refuses a payload with %s as SUBSCRIPTION_INVALID_EVENT (terminated, never retried)', (_, data) => {
    expect(codeOf(() => decode(SessionEvents.SESSION_CREATED.subject, data))).toBe(SubscriptionErrorCode.INVALID_EVENT);
  });
});
