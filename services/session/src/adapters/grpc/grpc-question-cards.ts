import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { isAppError } from '@relay/errors';
import { CardKind, CardStatus, type Card, type QuestionServiceClient } from '@relay/proto/relay/question/v1/question_service';
import { callStream, callUnary, isTransportFailure, reattachDelayMs, retriedOnTransportFailure } from '@relay/rpc';
import { TurnFailed } from '../../app/turns/provider.ts';
import { APPROVAL_ANSWERS, type CardRequest, type QuestionCards } from '../../app/turns/question-cards.ts';

/** One AwaitCard call waits this long (relay clock) before the next one is made. */
const AWAIT_ROUND_SECONDS = 3600;
/** A round that came back with the card still pending is not repeated sooner than this (real time). */
const MIN_ROUND_GAP_MS = 250;

/** Cards through the question service's RaiseCard, AwaitCard and CancelCards. */
export class GrpcQuestionCards implements QuestionCards {
  constructor(private readonly client: QuestionServiceClient) {}

  /**
   * Raises the card under its raise id (a fresh one when the request has none), so a raise the transport failed is
   * made again without a second card: the question service answers the card it raised.
   */
  async raise(input: CardRequest): Promise<string> {
    const shown =
      input.kind === 'approval'
        ? { kind: CardKind.CARD_KIND_APPROVAL, title: input.title, lines: input.lines, options: [] }
        : { kind: CardKind.CARD_KIND_QUESTION, title: input.question, lines: [], options: input.options };
    // A hosted turn's card is not keyed by a call (only an external session's calls are): its turn's end withdraws it.
    const request = { userId: input.userId, sessionId: input.sessionId, ...shown, callKey: '', raiseId: input.raiseId ?? randomUUID() };
    try {
      const { card } = await retriedOnTransportFailure(() => callUnary(this.client, 'raiseCard', request));
      if (card === undefined) throw new Error('RaiseCard answered without a card');
      return card.id;
    } catch (error) {
      throw failure(`could not raise its ${input.kind} card`, error);
    }
  }

  /**
   * The card is the question service's state, not this call's: a round the transport ends (a recycled connection,
   * a restarting question service) is made again, so the turn waits on for as long as the person takes, up to Max
   * turn duration (the runner aborts `signal` then, and the turn's end withdraws the card).
   */
  async awaitAnswer(cardId: string, signal: AbortSignal): Promise<string> {
    let failures = 0;
    for (;;) {
      // A call made with a signal aborted already would not be cancelled by it.
      signal.throwIfAborted();
      let card: Card | undefined;
      try {
        for await (const response of callStream(this.client, 'awaitCard', { cardId, waitSeconds: AWAIT_ROUND_SECONDS }, { signal })) {
          card = response.card ?? card;
          failures = 0;
        }
      } catch (error) {
        signal.throwIfAborted();
        if (!isTransportFailure(error)) throw failure('the turn lost its card', error);
        failures += 1;
        await delay(reattachDelayMs(failures), undefined, { signal });
        continue;
      }
      signal.throwIfAborted();
      switch (card?.status) {
        case CardStatus.CARD_STATUS_ANSWERED:
          return answerText(card.choices, card.answer);
        case CardStatus.CARD_STATUS_DISMISSED:
          return '';
        case CardStatus.CARD_STATUS_ALLOWED:
          return APPROVAL_ANSWERS.allowed;
        case CardStatus.CARD_STATUS_DENIED:
          return APPROVAL_ANSWERS.denied;
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

/**
 * What a question card's answer reads as in the turn ({{answer}}, the tool's result): the options chosen, then the
 * person's own words after a colon when they wrote some too, so neither is lost.
 */
export function answerText(choices: readonly string[], answer: string): string {
  const chosen = choices.join(', ');
  if (chosen === '') return answer;
  return answer === '' ? chosen : `${chosen}: ${answer}`;
}
