/**
 * The session and question events subscriptions react to (turn ends, questions, task starts and ends, archives,
 * answers), read from the messages their contracts decoded.
 */
import { QuestionEvents, SessionEvents } from '@relay/proto/relay/bus-contracts';
import type { TaskEnded, TaskStarted } from '@relay/proto/relay/session/v1/events';
import { TurnStatus } from '@relay/proto/relay/session/v1/session';
import type { WatchInput } from '../../domain/subscriptions/watch-event.ts';
import { invalidEvent } from '../../domain/errors.ts';
import type { Carried } from './decode-session-event.ts';

/** The session events subscriptions take (one consumer on the session stream). */
export const WATCHED_SESSION_EVENTS = [
  SessionEvents.TURN_ENDED,
  SessionEvents.QUESTION_ASKED,
  SessionEvents.SUBAGENT_FINISHED,
  SessionEvents.TASK_STARTED,
  SessionEvents.TASK_FINISHED,
  SessionEvents.TASK_FAILED,
  SessionEvents.ARCHIVED,
] as const;

/** The question events subscriptions take (one consumer on the question stream). */
export const WATCHED_QUESTION_EVENTS = [QuestionEvents.QUESTION_ANSWERED] as const;

/** A contract of a message subscriptions take. */
export type WatchedContract = (typeof WATCHED_SESSION_EVENTS)[number] | (typeof WATCHED_QUESTION_EVENTS)[number];

/** A message subscriptions take, as the bus hands it over. */
export type WatchedMessage = Carried<WatchedContract>;

/**
 * task_started, task_finished or task_failed as an event subscriptions take. A task that ended with a non-zero exit
 * is a failure whatever subject it came on (the spec: "any task that failed or exited non-zero").
 */
function taskEvent(subject: string, message: TaskStarted | TaskEnded): WatchInput {
  const occurredAt = required(subject, message.eventId, message.occurredAt);
  const task = message.task;
  if (task === undefined || task.id === '') throw invalidEvent(subject, 'task.id is missing');
  const exitCode = task.exitCode ?? null;
  const kind =
    subject === SessionEvents.TASK_STARTED.subject
      ? 'task_started'
      : subject === SessionEvents.TASK_FAILED.subject || (exitCode !== null && exitCode !== 0)
        ? 'task_failed'
        : 'task_finished';
  return {
    type: 'session_events',
    userId: message.userId,
    sessionId: message.sessionId,
    senderSessionId: null,
    candidates: [
      {
        sourceEventId: message.eventId,
        kind,
        text: task.description,
        event: {
          id: message.eventId,
          kind,
          occurredAt,
          relay: null,
          session: { id: message.sessionId, title: '' },
          taskId: task.id,
          description: task.description,
          exitCode: kind === 'task_started' ? null : exitCode,
        },
      },
    ],
  };
}

const ENDINGS: Partial<Record<TurnStatus, 'done' | 'error' | 'stopped'>> = {
  [TurnStatus.TURN_STATUS_DONE]: 'done',
  [TurnStatus.TURN_STATUS_ERROR]: 'error',
  [TurnStatus.TURN_STATUS_STOPPED]: 'stopped',
};

/** An asker on a paired relay, as asks kept here name it: `<relay>/<session id>` (this relay's ids have no slash). */
function isPairedRelayAsker(askingSessionId: string): boolean {
  return askingSessionId.includes('/');
}

function required(subject: string, eventId: string, occurredAt: Date | undefined): Date {
  if (eventId === '') throw invalidEvent(subject, 'eventId is missing');
  if (occurredAt === undefined || Number.isNaN(occurredAt.getTime())) throw invalidEvent(subject, 'occurredAt is missing');
  return occurredAt;
}

/** The watch input of one bus message. Throws SUBSCRIPTION_INVALID_EVENT for a payload that can never be applied. */
export function decodeWatchEvent(message: WatchedMessage): WatchInput {
  const { subject } = message;
  switch (message.subject) {
    case SessionEvents.TURN_ENDED.subject: {
      const data = message.data;
      const occurredAt = required(subject, data.eventId, data.occurredAt);
      const status = ENDINGS[data.status];
      if (status === undefined) throw invalidEvent(subject, `status ${String(data.status)} is not an ending`);
      const session = { id: data.sessionId, title: '' };
      const base = { occurredAt, relay: null, session };
      const candidates: Extract<WatchInput, { type: 'session_events' }>['candidates'] = [
        {
          sourceEventId: data.eventId,
          kind: 'turn_end',
          text: data.text,
          event: { ...base, id: data.eventId, kind: 'turn_end', status, text: data.text === '' ? null : data.text, promptMessageId: data.messageId || null },
        },
      ];
      if (status === 'error') {
        const id = `${data.eventId}:error`;
        candidates.push({ sourceEventId: id, kind: 'error', text: data.text, event: { ...base, id, kind: 'error', message: data.text } });
      }
      return { type: 'session_events', userId: data.userId, sessionId: data.sessionId, senderSessionId: data.senderSessionId || null, candidates };
    }
    case SessionEvents.QUESTION_ASKED.subject: {
      const data = message.data;
      const occurredAt = required(subject, data.eventId, data.occurredAt);
      const question = data.question;
      return {
        type: 'session_events',
        userId: data.userId,
        sessionId: data.sessionId,
        senderSessionId: null,
        candidates: [
          {
            sourceEventId: data.eventId,
            kind: 'question_asked',
            text: question?.question ?? '',
            event: {
              id: data.eventId,
              kind: 'question_asked',
              occurredAt,
              relay: null,
              session: { id: data.sessionId, title: '' },
              questionId: question?.id ?? '',
              question: question?.question ?? '',
            },
          },
        ],
      };
    }
    case SessionEvents.SUBAGENT_FINISHED.subject: {
      const data = message.data;
      const occurredAt = required(subject, data.eventId, data.occurredAt);
      const event = {
        id: data.eventId,
        kind: 'subagent_finished' as const,
        occurredAt,
        relay: null,
        session: { id: data.sessionId, title: '' },
        description: data.description,
      };
      return {
        type: 'session_events',
        userId: data.userId,
        sessionId: data.sessionId,
        senderSessionId: null,
        candidates: [{ sourceEventId: data.eventId, kind: 'subagent_finished', text: `${data.description} ${data.summary}`.trim(), event }],
      };
    }
    case SessionEvents.TASK_STARTED.subject:
    case SessionEvents.TASK_FINISHED.subject:
    case SessionEvents.TASK_FAILED.subject:
      return taskEvent(subject, message.data);
    case SessionEvents.ARCHIVED.subject: {
      const data = message.data;
      const occurredAt = required(subject, data.eventId, data.occurredAt);
      return { type: 'archived', userId: data.userId, sessionId: data.sessionId, occurredAt };
    }
    case QuestionEvents.QUESTION_ANSWERED.subject: {
      const data = message.data;
      const occurredAt = required(subject, data.eventId, data.occurredAt);
      if (data.askingSessionId === '') throw invalidEvent(subject, 'askingSessionId is missing');
      const about = data.aboutSessionId !== '' && data.aboutSessionId !== data.askingSessionId ? [data.aboutSessionId] : [];
      // An ask kept here for a paired relay's conversation names its asker `<relay>/<session id>` (the gateway's
      // /relay/v1/asks): no session of this relay, so nothing is delivered here; that relay polls for the answer.
      const asking = isPairedRelayAsker(data.askingSessionId) ? [] : [data.askingSessionId];
      return {
        type: 'direct',
        userId: data.userId,
        watcherSessionIds: [...asking, ...about],
        sourceEventId: data.eventId,
        event: {
          id: data.eventId,
          kind: 'question_answered',
          occurredAt,
          relay: null,
          questionId: data.questionId,
          answer: data.answer === '' ? null : data.answer,
          choices: data.choice === '' ? [] : [data.choice],
          dismissed: data.dismissed,
          via: data.via,
        },
      };
    }
  }
}
