import type { BusCodec } from '@relay/bus';
import { SessionEvents } from '@relay/proto/relay/bus-contracts';
import { SessionState as SessionStateMessage } from '@relay/proto/relay/session/v1/session';
import { invalidEvent } from '../../domain/errors.ts';
import type { SessionEvent, SessionState } from '../../domain/session-activity.ts';

/** The session events the projection takes: what runs in a session, its title and its archive. */
export const PROJECTED_EVENTS = [
  SessionEvents.SESSION_CREATED,
  SessionEvents.TURN_STARTED,
  SessionEvents.TURN_ENDED,
  SessionEvents.QUESTION_ASKED,
  SessionEvents.SUBAGENT_FINISHED,
  SessionEvents.TURN_ACTIVITY,
  SessionEvents.TASK_STARTED,
  SessionEvents.TASK_FINISHED,
  SessionEvents.TASK_FAILED,
  SessionEvents.TASK_OUTPUT,
  SessionEvents.ARCHIVED,
  SessionEvents.EXTERNAL_CALL_HELD,
  SessionEvents.EXTERNAL_CALL_RELEASED,
] as const;

/** A message on one of the contracts `C`: its subject and its payload, decoded by that subject's codec. */
export type Carried<C> = C extends { subject: infer S; codec: BusCodec<infer T> } ? { subject: S; data: T } : never;

/** One of the projected events as the bus hands it over. */
export type ProjectedMessage = Carried<(typeof PROJECTED_EVENTS)[number]>;

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
 * The session event a message says. Throws SUBSCRIPTION_INVALID_EVENT for a payload that can never be applied, so
 * the consumer terminates it.
 */
export function decodeSessionEvent(message: ProjectedMessage): SessionEvent {
  const { subject } = message;
  switch (message.subject) {
    case SessionEvents.SESSION_CREATED.subject: {
      const session = message.data.session;
      if (session === undefined || session.id === '') throw invalidEvent(subject, 'session.id is missing');
      if (session.userId === '') throw invalidEvent(subject, 'session.userId is missing');
      const state = STATES[session.state];
      if (state === undefined) throw invalidEvent(subject, `session.state ${String(session.state)} is not a known state`);
      return { ...base(subject, { ...message.data, sessionId: session.id, userId: session.userId }), type: 'session_created', title: session.title, state };
    }
    case SessionEvents.TURN_STARTED.subject:
      return { ...base(subject, message.data), type: 'turn_started', turnId: message.data.turnId };
    case SessionEvents.TURN_ENDED.subject:
      return { ...base(subject, message.data), type: 'turn_ended', turnId: message.data.turnId };
    // turn_activity: reply text or a tool call, announced at most once a minute when it happens (occurredAt is that instant).
    case SessionEvents.QUESTION_ASKED.subject:
    case SessionEvents.SUBAGENT_FINISHED.subject:
    case SessionEvents.TURN_ACTIVITY.subject:
      return { ...base(subject, message.data), type: 'turn_activity' };
    case SessionEvents.TASK_STARTED.subject: {
      const { task } = message.data;
      if (task === undefined || task.id === '') throw invalidEvent(subject, 'task.id is missing');
      return { ...base(subject, message.data), type: 'task_started', task: { id: task.id, description: task.description } };
    }
    case SessionEvents.TASK_FINISHED.subject:
    case SessionEvents.TASK_FAILED.subject: {
      const { task } = message.data;
      if (task === undefined || task.id === '') throw invalidEvent(subject, 'task.id is missing');
      return { ...base(subject, message.data), type: 'task_ended', taskId: task.id };
    }
    case SessionEvents.TASK_OUTPUT.subject: {
      const { taskId, lastOutputAt } = message.data;
      if (taskId === '') throw invalidEvent(subject, 'taskId is missing');
      if (lastOutputAt === undefined || Number.isNaN(lastOutputAt.getTime())) throw invalidEvent(subject, 'lastOutputAt is missing');
      return { ...base(subject, message.data), type: 'task_output', taskId, lastOutputAt };
    }
    case SessionEvents.ARCHIVED.subject:
      return { ...base(subject, message.data), type: 'archived' };
    case SessionEvents.EXTERNAL_CALL_HELD.subject: {
      const { callId, heldUntil } = message.data;
      if (callId === '') throw invalidEvent(subject, 'callId is missing');
      if (heldUntil === undefined || Number.isNaN(heldUntil.getTime())) throw invalidEvent(subject, 'heldUntil is missing');
      return { ...base(subject, message.data), type: 'call_held', callId, heldUntil };
    }
    case SessionEvents.EXTERNAL_CALL_RELEASED.subject:
      if (message.data.callId === '') throw invalidEvent(subject, 'callId is missing');
      return { ...base(subject, message.data), type: 'call_released', callId: message.data.callId };
  }
}
