import { SessionEvents } from '@relay/proto/relay/bus-contracts';
import { QuestionAsked, SessionArchived, SessionCreated, SubagentFinished, TaskEnded, TaskOutput, TaskStarted, TurnActivity, TurnEnded, TurnStarted } from '@relay/proto/relay/session/v1/events';
import { SessionState as SessionStateMessage } from '@relay/proto/relay/session/v1/session';
import { invalidEvent } from '../../domain/errors.ts';
import type { SessionEvent, SessionState } from '../../domain/session-activity.ts';

export const SessionSubject = {
  SESSION_CREATED: SessionEvents.SESSION_CREATED.subject,
  TURN_STARTED: SessionEvents.TURN_STARTED.subject,
  TURN_ENDED: SessionEvents.TURN_ENDED.subject,
  QUESTION_ASKED: SessionEvents.QUESTION_ASKED.subject,
  SUBAGENT_FINISHED: SessionEvents.SUBAGENT_FINISHED.subject,
  TURN_ACTIVITY: SessionEvents.TURN_ACTIVITY.subject,
  TASK_STARTED: SessionEvents.TASK_STARTED.subject,
  TASK_FINISHED: SessionEvents.TASK_FINISHED.subject,
  TASK_FAILED: SessionEvents.TASK_FAILED.subject,
  TASK_OUTPUT: SessionEvents.TASK_OUTPUT.subject,
  ARCHIVED: SessionEvents.ARCHIVED.subject,
} as const;

const STATES: Partial<Record<SessionStateMessage, SessionState>> = {
  [SessionStateMessage.SESSION_STATE_RUNNING_TURN]: 'running_turn',
  [SessionStateMessage.SESSION_STATE_BACKGROUND_ONLY]: 'background_only',
  [SessionStateMessage.SESSION_STATE_IDLE]: 'idle',
};

/** The fields every session event carries; throws when one is missing. */
function base(subject: string, message: { eventId: string; occurredAt?: Date | undefined; sessionId: string; userId: string }) {
  if (message.eventId === '') throw invalidEvent(subject, 'eventId is missing');
  if (message.occurredAt === undefined || Number.isNaN(message.occurredAt.getTime())) throw invalidEvent(subject, 'occurredAt is missing');
  if (message.sessionId === '') throw invalidEvent(subject, 'sessionId is missing');
  if (message.userId === '') throw invalidEvent(subject, 'userId is missing');
  return { eventId: message.eventId, occurredAt: message.occurredAt, sessionId: message.sessionId, userId: message.userId };
}

/**
 * A session event from its subject and JSON payload; undefined for a kind the projection does not use.
 * Throws SUBSCRIPTION_INVALID_EVENT for a payload that can never be applied, so the consumer terminates it.
 */
export function decodeSessionEvent(subject: string, data: unknown): SessionEvent | undefined {
  if (!(Object.values(SessionSubject) as string[]).includes(subject)) return undefined;
  if (typeof data !== 'object' || data === null) throw invalidEvent(subject, 'payload is not an object');
  switch (subject) {
    case SessionSubject.SESSION_CREATED: {
      const message = SessionCreated.fromJSON(data);
      const session = message.session;
      if (session === undefined || session.id === '') throw invalidEvent(subject, 'session.id is missing');
      if (session.userId === '') throw invalidEvent(subject, 'session.userId is missing');
      const state = STATES[session.state];
      if (state === undefined) throw invalidEvent(subject, `session.state ${String(session.state)} is not a known state`);
      return { ...base(subject, { ...message, sessionId: session.id, userId: session.userId }), type: 'session_created', title: session.title, state };
    }
    case SessionSubject.TURN_STARTED: {
      const message = TurnStarted.fromJSON(data);
      return { ...base(subject, message), type: 'turn_started', turnId: message.turnId };
    }
    case SessionSubject.TURN_ENDED: {
      const message = TurnEnded.fromJSON(data);
      return { ...base(subject, message), type: 'turn_ended', turnId: message.turnId };
    }
    case SessionSubject.QUESTION_ASKED:
      return { ...base(subject, QuestionAsked.fromJSON(data)), type: 'turn_activity' };
    case SessionSubject.SUBAGENT_FINISHED:
      return { ...base(subject, SubagentFinished.fromJSON(data)), type: 'turn_activity' };
    case SessionSubject.TURN_ACTIVITY:
      // Reply text or a tool call, announced at most once a minute when it happens (occurredAt is that instant).
      return { ...base(subject, TurnActivity.fromJSON(data)), type: 'turn_activity' };
    case SessionSubject.TASK_STARTED: {
      const message = TaskStarted.fromJSON(data);
      if (message.task === undefined || message.task.id === '') throw invalidEvent(subject, 'task.id is missing');
      return { ...base(subject, message), type: 'task_started', task: { id: message.task.id, description: message.task.description } };
    }
    case SessionSubject.TASK_FINISHED:
    case SessionSubject.TASK_FAILED: {
      const message = TaskEnded.fromJSON(data);
      if (message.task === undefined || message.task.id === '') throw invalidEvent(subject, 'task.id is missing');
      return { ...base(subject, message), type: 'task_ended', taskId: message.task.id };
    }
    case SessionSubject.TASK_OUTPUT: {
      const message = TaskOutput.fromJSON(data);
      if (message.taskId === '') throw invalidEvent(subject, 'taskId is missing');
      if (message.lastOutputAt === undefined || Number.isNaN(message.lastOutputAt.getTime())) throw invalidEvent(subject, 'lastOutputAt is missing');
      return { ...base(subject, message), type: 'task_output', taskId: message.taskId, lastOutputAt: message.lastOutputAt };
    }
    default:
      return { ...base(subject, SessionArchived.fromJSON(data)), type: 'archived' };
  }
}
