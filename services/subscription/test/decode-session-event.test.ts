import { describe, expect, it } from 'vitest';
import { isAppError } from '@relay/errors';
import { SessionCreated } from '@relay/proto/relay/session/v1/events';
import { SessionOrigin, SessionState } from '@relay/proto/relay/session/v1/session';
import { decodeSessionEvent, SessionSubject } from '../src/adapters/bus/decode-session-event.ts';
import { SubscriptionErrorCode } from '../src/domain/errors.ts';

const payload = (state = SessionState.SESSION_STATE_IDLE) =>
  SessionCreated.toJSON(SessionCreated.fromPartial({
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
  }));

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
    expect(decodeSessionEvent(SessionSubject.SESSION_CREATED, payload())).toEqual({
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
    ['turn_started', SessionSubject.TURN_STARTED, { ...common, turnId: 't1' }, { type: 'turn_started', turnId: 't1' }],
    ['turn_ended', SessionSubject.TURN_ENDED, { ...common, turnId: 't1', status: 'TURN_STATUS_DONE' }, { type: 'turn_ended', turnId: 't1' }],
    ['question_asked', SessionSubject.QUESTION_ASKED, common, { type: 'turn_activity' }],
    ['subagent_finished', SessionSubject.SUBAGENT_FINISHED, { ...common, description: 'Review the diff' }, { type: 'turn_activity' }],
    ['turn_activity', SessionSubject.TURN_ACTIVITY, { ...common, turnId: 't1', lastActivityAt: common.occurredAt }, { type: 'turn_activity' }],
    ['task_started', SessionSubject.TASK_STARTED, { ...common, task: { id: 'task_1', description: 'npm test' } }, { type: 'task_started', task: { id: 'task_1', description: 'npm test' } }],
    ['task_failed', SessionSubject.TASK_FAILED, { ...common, task: { id: 'task_1', exitCode: 1 } }, { type: 'task_ended', taskId: 'task_1' }],
    ['task_output', SessionSubject.TASK_OUTPUT, { ...common, taskId: 'task_1', lastOutputAt: '2026-11-30T10:04:30Z' }, { type: 'task_output', taskId: 'task_1', lastOutputAt: new Date('2026-11-30T10:04:30Z') }],
    ['archived', SessionSubject.ARCHIVED, common, { type: 'archived' }],
  ])('reads %s for the runs of the session', (_, subject, data, expected) => {
    expect(decodeSessionEvent(subject, data)).toEqual({ eventId: 'e2', occurredAt: new Date('2026-11-30T10:05:00Z'), sessionId: 's1', userId: 'u1', ...expected });
  });

  it('passes over session events the projection does not use', () => {
    expect(decodeSessionEvent('relay.session.v1.turn_queued', { anything: true })).toBeUndefined();
  });

  it('refuses a task event without its task', () => {
    expect(codeOf(() => decodeSessionEvent(SessionSubject.TASK_STARTED, common))).toBe(SubscriptionErrorCode.INVALID_EVENT);
  });

  it.each([
    ['no session', { eventId: 'e1', occurredAt: '2026-11-30T10:00:00Z' }],
    ['no event id', { ...(payload() as object), eventId: '' }],
    ['no time', { ...(payload() as object), occurredAt: undefined }],
    ['a state it cannot read', payload(SessionState.SESSION_STATE_UNSPECIFIED)],
    ['not an object', 'session_created'],
  ])('refuses a payload with %s as SUBSCRIPTION_INVALID_EVENT (terminated, never retried)', (_, data) => {
    expect(codeOf(() => decodeSessionEvent(SessionSubject.SESSION_CREATED, data))).toBe(SubscriptionErrorCode.INVALID_EVENT);
  });
});
