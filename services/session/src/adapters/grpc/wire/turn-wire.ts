/** Turns as the proto messages of the gRPC API (a turn's status the turn_ended event carries too, as session-wire.ts). */
import { TurnStatus as TurnStatusMessage, type TurnResult } from '@relay/proto/relay/session/v1/session';
import type { Turn, TurnStatus } from '../../../domain/turns/turn.ts';
import { turnDelivery } from '../../../domain/sessions/delivery.ts';
import { toDeliveryMessage, toPendingQuestion } from './session-wire.ts';

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
    delivery: toDeliveryMessage(turnDelivery({ status: turn.status, started: turn.startedAt !== null })),
  };
}
