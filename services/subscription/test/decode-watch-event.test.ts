import { describe, expect, it } from 'vitest';
import { decodeWatchEvent, WATCHED_QUESTION_EVENTS, WATCHED_SESSION_EVENTS, type WatchedMessage } from '../src/adapters/bus/decode-watch-event.ts';

/** What a watch consumer does with a message on `subject`: decoded by its contract, then read (undefined: not taken). */
function decode(subject: string, data: unknown) {
  const contract = [...WATCHED_SESSION_EVENTS, ...WATCHED_QUESTION_EVENTS].find((candidate) => candidate.subject === subject);
  return contract === undefined ? undefined : decodeWatchEvent({ subject, data: contract.codec.fromJSON(data) } as WatchedMessage);
}

const occurredAt = '2026-10-24T10:00:00.000Z';

describe('decodeWatchEvent', () => {
  it('turn_ended done is one turn_end with the reply, its prompt and its sender', () => {
    const input = decode('relay.session.v1.turn_ended', {
      eventId: 'ev1',
      occurredAt,
      sessionId: 's1',
      userId: 'u1',
      turnId: 't1',
      messageId: 'm1',
      status: 'TURN_STATUS_DONE',
      text: 'Done.',
      senderSessionId: 'w1',
    });
    expect(input).toMatchObject({
      type: 'session_events',
      sessionId: 's1',
      senderSessionId: 'w1',
      candidates: [{ sourceEventId: 'ev1', kind: 'turn_end', event: { kind: 'turn_end', status: 'done', text: 'Done.', promptMessageId: 'm1' } }],
    });
  });

  it.each([
    ['task_started', 'relay.session.v1.task_started', { id: 'task_1', description: 'npm test' }, 'task_started', null],
    ['task_finished', 'relay.session.v1.task_finished', { id: 'task_1', description: 'npm test', exitCode: 0 }, 'task_finished', 0],
    ['task_failed', 'relay.session.v1.task_failed', { id: 'task_1', description: 'npm test', exitCode: 2 }, 'task_failed', 2],
    ['task_failed by a signal', 'relay.session.v1.task_failed', { id: 'task_1', description: 'npm test' }, 'task_failed', null],
    ['a non-zero exit, whatever the subject', 'relay.session.v1.task_finished', { id: 'task_1', description: 'npm test', exitCode: 1 }, 'task_failed', 1],
  ])('%s is a task event subscriptions take, matched on the command', (_, subject, task, kind, exitCode) => {
    const input = decode(subject, { eventId: 'ev9', occurredAt, sessionId: 's1', userId: 'u1', task });
    expect(input).toMatchObject({
      type: 'session_events',
      sessionId: 's1',
      candidates: [{ sourceEventId: 'ev9', kind, text: 'npm test', event: { kind, taskId: 'task_1', description: 'npm test', exitCode } }],
    });
  });

  it('subagent_finished is an event subscriptions take, matched on what it was asked and its summary', () => {
    const input = decode('relay.session.v1.subagent_finished', {
      eventId: 'ev8',
      occurredAt,
      sessionId: 's1',
      userId: 'u1',
      turnId: 't1',
      description: 'Review the diff',
      status: 'completed',
      summary: 'Two nits.',
    });
    expect(input).toMatchObject({
      type: 'session_events',
      candidates: [
        {
          sourceEventId: 'ev8',
          kind: 'subagent_finished',
          text: 'Review the diff Two nits.',
          event: { kind: 'subagent_finished', description: 'Review the diff' },
        },
      ],
    });
  });

  it('turn_ended error is a turn_end (error) and an error event', () => {
    const input = decode('relay.session.v1.turn_ended', {
      eventId: 'ev2',
      occurredAt,
      sessionId: 's1',
      userId: 'u1',
      messageId: 'm2',
      status: 'TURN_STATUS_ERROR',
      text: 'boom',
    });
    expect(input?.type === 'session_events' && input.candidates.map((c) => [c.sourceEventId, c.kind])).toEqual([
      ['ev2', 'turn_end'],
      ['ev2:error', 'error'],
    ]);
  });

  it('question_answered goes to the asking conversation', () => {
    const input = decode('relay.question.v1.question_answered', {
      eventId: 'q1',
      occurredAt,
      questionId: 'ask_1',
      askingSessionId: 'w1',
      userId: 'u1',
      choice: 'Wait',
      via: 'desk',
    });
    expect(input).toMatchObject({
      type: 'direct',
      watcherSessionIds: ['w1'],
      event: { kind: 'question_answered', choices: ['Wait'], answer: null, via: 'desk' },
    });
  });

  it('question_answered of an ask made on behalf of another session goes to both conversations', () => {
    const payload = { eventId: 'q2', occurredAt, questionId: 'ask_2', askingSessionId: 'w1', aboutSessionId: 's9', userId: 'u1', answer: 'later', via: 'desk' };
    expect(decode('relay.question.v1.question_answered', payload)).toMatchObject({
      type: 'direct',
      watcherSessionIds: ['w1', 's9'],
      event: { questionId: 'ask_2', answer: 'later' },
    });
    // An ask about the asking conversation itself wakes it once.
    expect(decode('relay.question.v1.question_answered', { ...payload, aboutSessionId: 'w1' })).toMatchObject({ watcherSessionIds: ['w1'] });
  });

  it("question_answered of an ask kept here for a paired relay's conversation wakes no asker here, only the session it is about", () => {
    const payload = {
      eventId: 'q3',
      occurredAt,
      questionId: 'ask_3',
      askingSessionId: 'desk/3f9c0a',
      aboutSessionId: 's9',
      userId: 'u1',
      answer: 'ship it',
      via: 'build-box',
    };
    expect(decode('relay.question.v1.question_answered', payload)).toMatchObject({ type: 'direct', watcherSessionIds: ['s9'], event: { questionId: 'ask_3' } });
    expect(decode('relay.question.v1.question_answered', { ...payload, aboutSessionId: '' })).toMatchObject({ type: 'direct', watcherSessionIds: [] });
  });

  it('archived, and subjects subscriptions do not use', () => {
    expect(decode('relay.session.v1.archived', { eventId: 'a1', occurredAt, sessionId: 's1', userId: 'u1' })).toMatchObject({
      type: 'archived',
      sessionId: 's1',
    });
    expect(decode('relay.session.v1.turn_started', { eventId: 'x', occurredAt })).toBeUndefined();
  });

  it('terminates a payload that can never be applied', () => {
    expect(() => decode('relay.session.v1.turn_ended', { occurredAt, status: 'TURN_STATUS_DONE' })).toThrow(
      expect.objectContaining({ code: 'SUBSCRIPTION_INVALID_EVENT' }),
    );
    expect(() => decode('relay.session.v1.turn_ended', { eventId: 'e', occurredAt, status: 'TURN_STATUS_RUNNING' })).toThrow(
      expect.objectContaining({ code: 'SUBSCRIPTION_INVALID_EVENT' }),
    );
  });
});
