import type { Logger } from '@relay/telemetry';
import type { ApprovalCardText } from './command-card.ts';
import { isHandedOver, TurnFailed, type TurnInput } from './provider.ts';
import { APPROVAL_ANSWERS, pendingQuestion, type QuestionCards } from './question-cards.ts';

/**
 * Raises an approval card in the turn's session and waits for its owner: true only on Allow. A withdrawn card is no
 * Allow; once the turn aborts the card is withdrawn (left for the replica it is handed over to) and the signal's
 * reason thrown. `raiseId`: raised again under it, on any replica, the card is the same one (ADR 0034).
 */
export async function askOwner(input: TurnInput, cards: QuestionCards, text: ApprovalCardText, logger: Logger, raiseId?: string): Promise<boolean> {
  return (await ownerAnswer(input, cards, text, logger, raiseId)) === APPROVAL_ANSWERS.allowed;
}

/** askOwner's wait, with the owner's answer itself (Allow, Deny, …), or undefined when the card was withdrawn. */
export async function ownerAnswer(
  input: TurnInput,
  cards: QuestionCards,
  text: ApprovalCardText,
  logger: Logger,
  raiseId?: string,
): Promise<string | undefined> {
  const { userId, id: sessionId } = input.session;
  const card = { kind: 'approval' as const, userId, sessionId, ...text, ...(raiseId === undefined ? {} : { raiseId }) };
  const cardId = await cards.raise(card);
  await input.emit({ type: 'question_raised', question: pendingQuestion(cardId, card) });
  try {
    return await cards.awaitAnswer(cardId, input.signal);
  } catch (error) {
    if (input.signal.aborted) {
      if (!isHandedOver(input.signal))
        await cards.cancel(sessionId).catch((cause: unknown) => logger.warn({ err: cause, sessionId }, 'could not withdraw the agent’s card'));
      throw error;
    }
    if (error instanceof TurnFailed) return undefined;
    throw error;
  } finally {
    if (!input.signal.aborted) await input.emit({ type: 'question_answered', questionId: cardId });
  }
}
