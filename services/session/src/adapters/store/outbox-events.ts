/**
 * The events the stores write to the outbox, as their proto messages. Where an event carries a message of the gRPC
 * API (a session, a pending question, a turn's status, a task), it is encoded by the API's own encoder, which main.ts
 * hands the store (adapters/grpc/wire/): one encoding of each, and no store imports another adapter.
 */
import { outgoing, type OutboxEntry } from '@relay/bus';
import { SessionEvents } from '@relay/proto/relay/bus-contracts';
import type { SessionArchived, SessionCreated, TurnQueued } from '@relay/proto/relay/session/v1/events';
import type {
  PendingQuestion as PendingQuestionMessage,
  Session as SessionMessage,
  Task as TaskMessage,
  TurnStatus as TurnStatusMessage,
} from '@relay/proto/relay/session/v1/session';
import type { Session, SessionArchivedEvent, SessionCreatedEvent } from '../../domain/sessions/session.ts';
import type { PendingQuestion, TurnQueuedEvent, TurnStatus } from '../../domain/turns/turn.ts';
import type { Task } from '../../domain/tasks/task.ts';

/** The gRPC API's encoders of the values the events carry too. */
export interface ApiMessages {
  toSessionMessage(session: Session): SessionMessage;
  toPendingQuestion(question: PendingQuestion): PendingQuestionMessage;
  toTurnStatusMessage(status: TurnStatus): TurnStatusMessage;
  toTaskMessage(task: Task): TaskMessage;
}

/** The session_created event. */
export function toSessionCreated(api: Pick<ApiMessages, 'toSessionMessage'>, event: SessionCreatedEvent): SessionCreated {
  return { eventId: event.eventId, occurredAt: event.occurredAt, session: api.toSessionMessage(event.session) };
}

/** The turn_queued event. */
export function toTurnQueued(event: TurnQueuedEvent): TurnQueued {
  return {
    eventId: event.eventId,
    occurredAt: event.occurredAt,
    sessionId: event.sessionId,
    userId: event.userId,
    turnId: event.turnId,
    messageId: event.messageId,
  };
}

/** The archived event. */
export function toSessionArchived(event: SessionArchivedEvent): SessionArchived {
  return { eventId: event.eventId, occurredAt: event.occurredAt, sessionId: event.sessionId, userId: event.userId };
}

/** The outbox entry of a task_output event: when the running task last wrote. */
export function taskOutputEvent(event: {
  eventId: string;
  occurredAt: Date;
  sessionId: string;
  userId: string;
  taskId: string;
  lastOutputAt: Date;
}): OutboxEntry {
  return outgoing(SessionEvents.TASK_OUTPUT, event, { id: event.eventId });
}

/**
 * The outbox entry of a task's start or end event. A shell command that did not complete is a
 * task_failed. A sub-agent's end is always a task_finished (its status in the task): the default subscription
 * is woken for it by subagent_finished, and a task_failed as well would wake it twice for one failed sub-agent;
 * a subscription that names task_finished in place of subagent_finished gets every end (spec, "The default events").
 */
export function taskEvent(
  api: Pick<ApiMessages, 'toTaskMessage'>,
  kind: 'started' | 'ended',
  event: { eventId: string; occurredAt: Date; userId: string; task: Task },
): OutboxEntry {
  const message = {
    eventId: event.eventId,
    occurredAt: event.occurredAt,
    sessionId: event.task.sessionId,
    userId: event.userId,
    task: api.toTaskMessage(event.task),
  };
  const id = { id: event.eventId };
  if (kind === 'started') return outgoing(SessionEvents.TASK_STARTED, message, id);
  return outgoing(
    event.task.status === 'completed' || event.task.type === 'local_agent' ? SessionEvents.TASK_FINISHED : SessionEvents.TASK_FAILED,
    message,
    id,
  );
}
