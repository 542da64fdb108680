import { setTimeout as delay } from 'node:timers/promises';
import { isAppError } from '@relay/errors';
import { CardKind, CardStatus, type Card, type QuestionServiceClient } from '@relay/proto/relay/question/v1/question_service';
import { callStream, callUnary } from '@relay/rpc';
import { TurnFailed } from '../../app/turns/provider.ts';
import type { QuestionCards } from '../../app/turns/question-cards.ts';

/** One AwaitCard call waits this long (relay clock) before the next one is made. */
const AWAIT_ROUND_SECONDS = 3600;
/** A round that came back with the card still pending is not repeated sooner than this (real time). */
const MIN_ROUND_GAP_MS = 250;

/** Question cards through the question service's RaiseCard, AwaitCard and CancelCards. */
export class GrpcQuestionCards implements QuestionCards {
  constructor(private readonly client: QuestionServiceClient) {}

  async raise(input: { userId: string; sessionId: string; question: string; options: string[] }): Promise<string> {
    try {
      const { card } = await callUnary(this.client, 'raiseCard', {
        userId: input.userId,
        sessionId: input.sessionId,
        kind: CardKind.CARD_KIND_QUESTION,
        title: input.question,
        lines: [],
        options: input.options,
        // A hosted turn's question is its own card each time; only an external session's calls are keyed.
        callKey: '',
      });
      if (card === undefined) throw new Error('RaiseCard answered without a card');
      return card.id;
    } catch (error) {
      throw failure('ask_user could not raise its question card', error);
    }
  }

  async awaitAnswer(cardId: string, signal: AbortSignal): Promise<string> {
    for (;;) {
      let card: Card | undefined;
      try {
        for await (const response of callStream(this.client, 'awaitCard', { cardId, waitSeconds: AWAIT_ROUND_SECONDS }, { signal })) {
          card = response.card ?? card;
        }
      } catch (error) {
        signal.throwIfAborted();
        throw failure('ask_user lost its question card', error);
      }
      signal.throwIfAborted();
      switch (card?.status) {
        case CardStatus.CARD_STATUS_ANSWERED:
          return card.answer !== '' ? card.answer : card.choices.join(', ');
        case CardStatus.CARD_STATUS_DISMISSED:
          return '';
        case CardStatus.CARD_STATUS_CANCELLED:
          throw new TurnFailed('the question card was withdrawn before the user answered');
        default:
          await delay(MIN_ROUND_GAP_MS, undefined, { signal });
      }
    }
  }

  async cancel(sessionId: string): Promise<void> {
    await callUnary(this.client, 'cancelCards', { sessionId });
  }
}

function failure(what: string, error: unknown): TurnFailed {
  const reason = isAppError(error) ? error.message : 'the question service failed';
  return new TurnFailed(`${what}: ${reason}`, { cause: error });
}
