/**
 * The session and question events subscriptions react to (turn ends, questions, task starts and ends, archives,
 * answers), decoded from their JSON payloads.
 */
import { QuestionEvents, SessionEvents } from '@relay/proto/relay/bus-contracts';
import { QuestionAnswered } from '@relay/proto/relay/question/v1/events';
import { QuestionAsked, SessionArchived, SubagentFinished, TaskEnded, TaskStarted, TurnEnded } from '@relay/proto/relay/session/v1/events';
import { TurnStatus } from '@relay/proto/relay/session/v1/session';
import type { WatchInput } from '../../domain/subscriptions/watch-event.ts';
import { invalidEvent } from '../../domain/errors.ts';

export const WatchSubject = {
  TURN_ENDED: SessionEvents.TURN_ENDED.subject,
  QUESTION_ASKED: SessionEvents.QUESTION_ASKED.subject,
  SUBAGENT_FINISHED: SessionEvents.SUBAGENT_FINISHED.subject,
  TASK_STARTED: SessionEvents.TASK_STARTED.subject,
  TASK_FINISHED: SessionEvents.TASK_FINISHED.subject,
  TASK_FAILED: SessionEvents.TASK_FAILED.subject,
  ARCHIVED: SessionEvents.ARCHIVED.subject,
  QUESTION_ANSWERED: QuestionEvents.QUESTION_ANSWERED.subject,
} as const;

/**
 * task_started, task_finished or task_failed as an event subscriptions take. A task that ended with a non-zero exit
 * is a failure whatever subject it came on (the spec: "any task that failed or exited non-zero").
 */
function taskEvent(subject: string, data: object): WatchInput {
  const message = subject === WatchSubject.TASK_STARTED ? TaskStarted.fromJSON(data) : TaskEnded.fromJSON(data);
  const occurredAt = required(subject, message.eventId, message.occurredAt);
  const task = message.task;
  if (task === undefined || task.id === '') throw invalidEvent(subject, 'task.id is missing');
  const exitCode = task.exitCode ?? null;
  const kind = subject === WatchSubject.TASK_STARTED ? 'task_started' : subject === WatchSubject.TASK_FAILED || (exitCode !== null && exitCode !== 0) ? 'task_failed' : 'task_finished';
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
        event: { id: message.eventId, kind, occurredAt, relay: null, session: { id: message.sessionId, title: '' }, taskId: task.id, description: task.description, exitCode: kind === 'task_started' ? null : exitCode },
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

/** The watch input of one bus message; undefined for a subject subscriptions do not use. */
export function decodeWatchEvent(subject: string, data: unknown): WatchInput | undefined {
  if (typeof data !== 'object' || data === null) {
    if (Object.values(WatchSubject).includes(subject as never)) throw invalidEvent(subject, 'payload is not an object');
    return undefined;
  }
  if (subject === WatchSubject.TURN_ENDED) {
    const message = TurnEnded.fromJSON(data);
    const occurredAt = required(subject, message.eventId, message.occurredAt);
    const status = ENDINGS[message.status];
    if (status === undefined) throw invalidEvent(subject, `status ${String(message.status)} is not an ending`);
    const session = { id: message.sessionId, title: '' };
    const base = { occurredAt, relay: null, session };
    const candidates: Extract<WatchInput, { type: 'session_events' }>['candidates'] = [
      {
        sourceEventId: message.eventId,
        kind: 'turn_end',
        text: message.text,
        event: { ...base, id: message.eventId, kind: 'turn_end', status, text: message.text === '' ? null : message.text, promptMessageId: message.messageId || null },
      },
    ];
    if (status === 'error') {
      const id = `${message.eventId}:error`;
      candidates.push({ sourceEventId: id, kind: 'error', text: message.text, event: { ...base, id, kind: 'error', message: message.text } });
    }
    return { type: 'session_events', userId: message.userId, sessionId: message.sessionId, senderSessionId: message.senderSessionId || null, candidates };
  }
  if (subject === WatchSubject.QUESTION_ASKED) {
    const message = QuestionAsked.fromJSON(data);
    const occurredAt = required(subject, message.eventId, message.occurredAt);
    const question = message.question;
    return {
      type: 'session_events',
      userId: message.userId,
      sessionId: message.sessionId,
      senderSessionId: null,
      candidates: [
        {
          sourceEventId: message.eventId,
          kind: 'question_asked',
          text: question?.question ?? '',
          event: {
            id: message.eventId,
            kind: 'question_asked',
            occurredAt,
            relay: null,
            session: { id: message.sessionId, title: '' },
            questionId: question?.id ?? '',
            question: question?.question ?? '',
          },
        },
      ],
    };
  }
  if (subject === WatchSubject.SUBAGENT_FINISHED) {
    const message = SubagentFinished.fromJSON(data);
    const occurredAt = required(subject, message.eventId, message.occurredAt);
    const event = { id: message.eventId, kind: 'subagent_finished' as const, occurredAt, relay: null, session: { id: message.sessionId, title: '' }, description: message.description };
    return {
      type: 'session_events',
      userId: message.userId,
      sessionId: message.sessionId,
      senderSessionId: null,
      candidates: [{ sourceEventId: message.eventId, kind: 'subagent_finished', text: `${message.description} ${message.summary}`.trim(), event }],
    };
  }
  if (subject === WatchSubject.TASK_STARTED || subject === WatchSubject.TASK_FINISHED || subject === WatchSubject.TASK_FAILED) return taskEvent(subject, data);
  if (subject === WatchSubject.ARCHIVED) {
    const message = SessionArchived.fromJSON(data);
    const occurredAt = required(subject, message.eventId, message.occurredAt);
    return { type: 'archived', userId: message.userId, sessionId: message.sessionId, occurredAt };
  }
  if (subject === WatchSubject.QUESTION_ANSWERED) {
    const message = QuestionAnswered.fromJSON(data);
    const occurredAt = required(subject, message.eventId, message.occurredAt);
    if (message.askingSessionId === '') throw invalidEvent(subject, 'askingSessionId is missing');
    const about = message.aboutSessionId !== '' && message.aboutSessionId !== message.askingSessionId ? [message.aboutSessionId] : [];
    // An ask kept here for a paired relay's conversation names its asker `<relay>/<session id>` (the gateway's
    // /relay/v1/asks): no session of this relay, so nothing is delivered here; that relay polls for the answer.
    const asking = isPairedRelayAsker(message.askingSessionId) ? [] : [message.askingSessionId];
    return {
      type: 'direct',
      userId: message.userId,
      watcherSessionIds: [...asking, ...about],
      sourceEventId: message.eventId,
      event: {
        id: message.eventId,
        kind: 'question_answered',
        occurredAt,
        relay: null,
        questionId: message.questionId,
        answer: message.answer === '' ? null : message.answer,
        choices: message.choice === '' ? [] : [message.choice],
        dismissed: message.dismissed,
        via: message.via,
      },
    };
  }
  return undefined;
}
