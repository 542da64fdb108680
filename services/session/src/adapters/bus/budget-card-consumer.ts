import { consume, waitForStream, type Bus, type Consumer } from '@relay/bus';
import type { Clock } from '@relay/clock';
import { QuestionEvents } from '@relay/proto/relay/bus-contracts';
import { CardStatus } from '@relay/proto/relay/question/v1/question_service';
import type { Logger } from '@relay/telemetry';
import { applyBudgetCard, type BudgetDeps } from '../../app/budgets/check-budgets.ts';

/** This service's durable consumer of the question service's card_decided events: the person's budget decisions. */
export const BUDGET_CARDS = { durable: 'session-budget-cards', contract: QuestionEvents.CARD_DECIDED } as const;

/**
 * Applies each decided card that is a budget's (applyBudgetCard); the others are not ours and change nothing. The
 * decision is the question service's durable state and this consumer is durable, so a decision taken while this
 * service was away is applied once it is back. The question service declares the stream; until it exists this waits.
 */
export async function startBudgetCardConsumer(
  bus: Bus,
  deps: BudgetDeps & { clock: Clock; logger: Logger },
  signal: AbortSignal,
): Promise<Consumer | undefined> {
  if (!(await waitForStream(bus, BUDGET_CARDS.contract.stream, { logger: deps.logger, signal }))) return undefined;
  return consume(bus, {
    durable: BUDGET_CARDS.durable,
    contracts: [BUDGET_CARDS.contract],
    logger: deps.logger,
    handler: async (message) => {
      const card = message.data.card;
      if (card === undefined) return;
      const status = card.status === CardStatus.CARD_STATUS_ALLOWED ? 'allowed' : card.status === CardStatus.CARD_STATUS_DENIED ? 'denied' : 'other';
      await applyBudgetCard(deps, { id: card.id, status }, deps.clock.now());
    },
  });
}
