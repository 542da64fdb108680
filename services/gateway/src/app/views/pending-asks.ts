import type { SessionRead } from '../../domain/answers.ts';
import { AskStatus, type Ask } from '@relay/proto/relay/question/v1/question_service';

/**
 * A session read with its pending asks added to pendingQuestions (kind "ask"), after the cards its
 * turn waits on: the session service knows those, the question service owns asks.
 */
export function withPendingAsks(read: SessionRead, asks: Ask[]): SessionRead {
  const pending = asks
    .filter((one) => one.status === AskStatus.ASK_STATUS_PENDING)
    .map((one) => ({ id: one.id, kind: 'ask', question: one.question, options: one.options }));
  return pending.length === 0 ? read : { ...read, pendingQuestions: [...read.pendingQuestions, ...pending] };
}
