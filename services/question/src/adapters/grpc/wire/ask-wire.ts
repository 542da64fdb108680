/**
 * Domain asks as the proto messages the gRPC API and the question_answered event carry.
 */
import type { AskCreated, QuestionAnswered } from '@relay/proto/relay/question/v1/events';
import { AskStatus as AskStatusMessage, type Ask as AskMessage } from '@relay/proto/relay/question/v1/question_service';
import type { Ask, AskStatus, QuestionAnsweredEvent } from '../../../domain/ask-entities.ts';

const STATUSES: Record<AskStatus, AskStatusMessage> = {
  pending: AskStatusMessage.ASK_STATUS_PENDING,
  answered: AskStatusMessage.ASK_STATUS_ANSWERED,
  dismissed: AskStatusMessage.ASK_STATUS_DISMISSED,
  withdrawn: AskStatusMessage.ASK_STATUS_WITHDRAWN,
  ended: AskStatusMessage.ASK_STATUS_ENDED,
};

/** An ask as relay.question.v1.Ask. */
export function toAskMessage(ask: Ask): AskMessage {
  return { ...ask, status: STATUSES[ask.status] };
}

/** The question_answered event; about_session_id only when asked on another session's behalf. */
export function toQuestionAnswered(event: QuestionAnsweredEvent): QuestionAnswered {
  const { ask } = event;
  return {
    eventId: event.eventId,
    occurredAt: event.occurredAt,
    questionId: ask.id,
    askingSessionId: ask.askingSessionId,
    aboutSessionId: ask.aboutSessionId === ask.askingSessionId ? '' : ask.aboutSessionId,
    userId: ask.userId,
    answer: ask.answer,
    choice: ask.choice,
    dismissed: ask.status === 'dismissed',
    via: ask.via,
  };
}

/** The ask_created event of a new pending ask (its id derived from the ask's: one event per ask). */
export function toAskCreated(ask: Ask): AskCreated {
  return { eventId: `ask_created:${ask.id}`, occurredAt: ask.createdAt, ask: toAskMessage(ask) };
}
