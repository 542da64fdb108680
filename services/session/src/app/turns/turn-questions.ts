import { activeStatusFor, withoutQuestion, withQuestion } from '../../domain/turns/turn-rules.ts';
import type { PendingQuestion } from '../../domain/turns/turn.ts';
import type { TurnDeps } from './turn-store.ts';

/**
 * The running turn waits on `question` (waiting_for_answer when it is an ask_user card), with a question_asked event.
 * A question it waits on already (the same card again, from the replica the turn was handed to) changes nothing.
 */
export async function raiseQuestion(deps: TurnDeps, turnId: string, runnerId: string, question: PendingQuestion, now: Date): Promise<void> {
  await deps.store.transaction(async (tx) => {
    const turn = await tx.lockRunningTurn(turnId, runnerId);
    if (turn === undefined || turn.pendingQuestions.some((pending) => pending.id === question.id)) return;
    const questions = withQuestion(turn.pendingQuestions, question);
    await tx.setQuestions(turnId, questions, activeStatusFor(questions));
    await tx.recordEvent({ type: 'question_asked', eventId: deps.ids.newId(), occurredAt: now, sessionId: turn.sessionId, userId: turn.userId, question });
  });
}

/** The question is settled; the turn runs again when no ask_user card is left. */
export async function settleQuestion(deps: Pick<TurnDeps, 'store'>, turnId: string, runnerId: string, questionId: string): Promise<void> {
  await deps.store.transaction(async (tx) => {
    const turn = await tx.lockRunningTurn(turnId, runnerId);
    if (turn === undefined) return;
    const questions = withoutQuestion(turn.pendingQuestions, questionId);
    await tx.setQuestions(turnId, questions, activeStatusFor(questions));
  });
}
