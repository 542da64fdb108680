/**
 * Turns as the proto messages the gRPC API and the turn events carry, and the turn subjects.
 * Shared by grpc/ and store/ (which writes events), like session-wire.ts.
 */
import { QuestionAsked, SubagentFinished, TurnActivity, TurnEnded, TurnStarted } from '@relay/proto/relay/session/v1/events';
import { TurnStatus as TurnStatusMessage, type TurnResult } from '@relay/proto/relay/session/v1/session';
import type { Turn, TurnStatus } from '../domain/entities.ts';
import { SessionSubject } from './session-events.ts';
import { toPendingQuestion } from './session-wire.ts';

export const TurnSubject = {
  TURN_QUEUED: SessionSubject.TURN_QUEUED,
  TURN_STARTED: 'relay.session.v1.turn_started',
  TURN_ENDED: 'relay.session.v1.turn_ended',
  QUESTION_ASKED: 'relay.session.v1.question_asked',
  SUBAGENT_FINISHED: 'relay.session.v1.subagent_finished',
  TURN_ACTIVITY: 'relay.session.v1.turn_activity',
} as const;

const STATUSES: Record<TurnStatus, TurnStatusMessage> = {
  queued: TurnStatusMessage.TURN_STATUS_QUEUED,
  running: TurnStatusMessage.TURN_STATUS_RUNNING,
  waiting_for_answer: TurnStatusMessage.TURN_STATUS_WAITING_FOR_ANSWER,
  done: TurnStatusMessage.TURN_STATUS_DONE,
  error: TurnStatusMessage.TURN_STATUS_ERROR,
  stopped: TurnStatusMessage.TURN_STATUS_STOPPED,
};

/** A turn status as relay.session.v1.TurnStatus. */
export function toTurnStatusMessage(status: TurnStatus): TurnStatusMessage {
  return STATUSES[status];
}

/** Where the turn a message started stands, as relay.session.v1.TurnResult. */
export function toTurnResult(turn: Turn): TurnResult {
  return {
    sessionId: turn.sessionId,
    messageId: turn.messageId,
    status: toTurnStatusMessage(turn.status),
    replyText: turn.replyText,
    replyModel: turn.replyModel,
    error: turn.error,
    pendingQuestions: turn.pendingQuestions.map(toPendingQuestion),
  };
}

/** The JSON payload of relay.session.v1.turn_started. */
export function toTurnStartedPayload(event: TurnStarted): unknown {
  return TurnStarted.toJSON(event);
}

/** The JSON payload of relay.session.v1.turn_ended. */
export function toTurnEndedPayload(event: TurnEnded): unknown {
  return TurnEnded.toJSON(event);
}

/** The JSON payload of relay.session.v1.question_asked. */
export function toQuestionAskedPayload(event: QuestionAsked): unknown {
  return QuestionAsked.toJSON(event);
}

/** The JSON payload of relay.session.v1.subagent_finished. */
export function toSubagentFinishedPayload(event: SubagentFinished): unknown {
  return SubagentFinished.toJSON(event);
}

/** The JSON payload of relay.session.v1.turn_activity. */
export function toTurnActivityPayload(event: TurnActivity): unknown {
  return TurnActivity.toJSON(event);
}

/** The turn id of a turn_ended payload, or undefined when it has none. */
export function turnIdOfTurnEnded(payload: unknown): string | undefined {
  const turnId = TurnEnded.fromJSON(payload).turnId;
  return turnId === '' ? undefined : turnId;
}
