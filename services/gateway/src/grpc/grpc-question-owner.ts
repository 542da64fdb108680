/**
 * QuestionOwner over gRPC: relay.question.v1.QuestionService's cards in the gateway's types.
 */
import { callStream, callUnary } from '@relay/rpc';
import {
  AskStatus as AskStatusMessage,
  CardKind as KindMessage,
  CardStatus as StatusMessage,
  type Ask as AskMessage,
  type Card as CardMessage,
  type QuestionServiceClient,
} from '@relay/proto/relay/question/v1/question_service';
import type { Ask, AskAnswer, AskFilter, AskRequest, AskStatus, Card, CardDecision, CardEvent, CardFilter, CardKind, CardRequest, CardStatus, QuestionOwner } from '../ports.ts';

const DEADLINE_MS = 10_000;

const KINDS: Record<CardKind, KindMessage> = {
  approval: KindMessage.CARD_KIND_APPROVAL,
  question: KindMessage.CARD_KIND_QUESTION,
};

// A status this gateway does not know counts as still pending: it never reads as an Allow.
const STATUSES: Record<number, CardStatus> = {
  [StatusMessage.CARD_STATUS_UNSPECIFIED]: 'pending',
  [StatusMessage.CARD_STATUS_PENDING]: 'pending',
  [StatusMessage.CARD_STATUS_ALLOWED]: 'allowed',
  [StatusMessage.CARD_STATUS_DENIED]: 'denied',
  [StatusMessage.CARD_STATUS_ANSWERED]: 'answered',
  [StatusMessage.CARD_STATUS_DISMISSED]: 'dismissed',
  [StatusMessage.CARD_STATUS_CANCELLED]: 'cancelled',
};

export class GrpcQuestionOwner implements QuestionOwner {
  constructor(private readonly client: QuestionServiceClient) {}

  async raiseCard(request: CardRequest): Promise<Card> {
    const { card } = await callUnary(
      this.client,
      'raiseCard',
      {
        userId: request.userId,
        sessionId: request.sessionId,
        kind: KINDS[request.kind],
        title: request.title,
        lines: request.lines,
        options: request.options ?? [],
        callKey: request.callKey ?? '',
      },
      { deadlineMs: DEADLINE_MS },
    );
    if (!card) throw new Error('RaiseCard answered without a card');
    return toCard(card);
  }

  async *awaitCard(cardId: string, waitSeconds: number, signal: AbortSignal): AsyncIterable<CardEvent> {
    // No deadline: the wait is bounded by waitSeconds on the relay clock, and `signal` ends it early.
    for await (const event of callStream(this.client, 'awaitCard', { cardId, waitSeconds }, { signal })) {
      if (event.card) yield { kind: 'card', card: toCard(event.card) };
      else yield { kind: 'progress', seconds: event.progressSeconds ?? 0 };
    }
  }

  async listCards(userId: string, filter: CardFilter): Promise<Card[]> {
    const { cards } = await callUnary(
      this.client,
      'listCards',
      { userId, sessionId: filter.sessionId ?? '', pendingOnly: filter.pendingOnly },
      { deadlineMs: DEADLINE_MS },
    );
    return cards.map(toCard);
  }

  async decideCard(decision: CardDecision): Promise<Card> {
    const { card } = await callUnary(
      this.client,
      'decideCard',
      {
        userId: decision.userId,
        cardId: decision.cardId,
        decision: decision.decision,
        answer: decision.answer ?? '',
        choices: decision.choices ?? [],
        agentSessionId: decision.agentSessionId ?? '',
        dryRun: decision.dryRun ?? false,
      },
      { deadlineMs: DEADLINE_MS },
    );
    if (!card) throw new Error('DecideCard answered without a card');
    return toCard(card);
  }

  async ask(request: AskRequest): Promise<Ask> {
    const { ask } = await callUnary(
      this.client,
      'ask',
      {
        userId: request.userId,
        askingSessionId: request.askingSessionId,
        aboutSessionId: request.aboutSessionId ?? '',
        question: request.question,
        options: request.options,
        recommendation: request.recommendation,
        detail: request.detail,
        dryRun: request.dryRun,
      },
      { deadlineMs: DEADLINE_MS },
    );
    if (!ask) throw new Error('Ask answered without an ask');
    return toAsk(ask);
  }

  async listAsks(userId: string, filter: AskFilter): Promise<Ask[]> {
    const { asks } = await callUnary(
      this.client,
      'listAsks',
      { userId, askingSessionId: filter.askingSessionId ?? '', aboutSessionId: filter.aboutSessionId ?? '', pendingOnly: filter.pendingOnly },
      { deadlineMs: DEADLINE_MS },
    );
    return asks.map(toAsk);
  }

  async withdrawAsk(userId: string, askingSessionId: string, askId: string): Promise<Ask> {
    const { ask } = await callUnary(this.client, 'withdrawAsk', { userId, askingSessionId, askId }, { deadlineMs: DEADLINE_MS });
    if (!ask) throw new Error('WithdrawAsk answered without an ask');
    return toAsk(ask);
  }

  async answerAsk(answer: AskAnswer): Promise<Ask> {
    const { ask } = await callUnary(
      this.client,
      'answerAsk',
      { userId: answer.userId, askId: answer.askId, decision: answer.decision, answer: answer.answer ?? '', choice: answer.choice ?? '', via: '' },
      { deadlineMs: DEADLINE_MS },
    );
    if (!ask) throw new Error('AnswerAsk answered without an ask');
    return toAsk(ask);
  }
}

// An ask status this gateway does not know reads as ended: it is no longer open.
const ASK_STATUSES: Record<number, AskStatus> = {
  [AskStatusMessage.ASK_STATUS_PENDING]: 'pending',
  [AskStatusMessage.ASK_STATUS_ANSWERED]: 'answered',
  [AskStatusMessage.ASK_STATUS_DISMISSED]: 'dismissed',
  [AskStatusMessage.ASK_STATUS_WITHDRAWN]: 'withdrawn',
  [AskStatusMessage.ASK_STATUS_ENDED]: 'ended',
};

function toAsk(message: AskMessage): Ask {
  return { ...message, status: ASK_STATUSES[message.status] ?? 'ended' };
}

function toCard(message: CardMessage): Card {
  return {
    id: message.id,
    userId: message.userId,
    sessionId: message.sessionId,
    kind: message.kind === KindMessage.CARD_KIND_QUESTION ? 'question' : 'approval',
    title: message.title,
    lines: message.lines,
    options: message.options,
    status: STATUSES[message.status] ?? 'pending',
    answer: message.answer,
    choices: message.choices,
    createdAt: message.createdAt,
    decidedAt: message.decidedAt,
  };
}
