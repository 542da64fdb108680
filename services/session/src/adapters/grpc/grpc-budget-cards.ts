import { CardKind, RaiseCardRequest, type QuestionServiceClient } from '@relay/proto/relay/question/v1/question_service';
import { callUnary } from '@relay/rpc';
import type { BudgetCards } from '../../app/budgets/ports.ts';

/**
 * Budget cards through the question service's RaiseCard. Each is keyed (budget:<session>:<state>:<instant>), so a
 * turn of the conversation that ends does not withdraw it, as it withdraws that turn's own cards.
 */
export class GrpcBudgetCards implements BudgetCards {
  constructor(private readonly client: QuestionServiceClient) {}

  async raise(input: { userId: string; sessionId: string; key: string; title: string; lines: string[] }): Promise<string> {
    const request = RaiseCardRequest.fromPartial({
      userId: input.userId,
      sessionId: input.sessionId,
      kind: CardKind.CARD_KIND_APPROVAL,
      title: input.title,
      lines: input.lines,
      options: [],
      callKey: input.key,
    });
    const { card } = await callUnary(this.client, 'raiseCard', request);
    if (card === undefined) throw new Error('RaiseCard answered without a card');
    return card.id;
  }
}
