import { buildCard, type RaiseCardInput } from '../domain/cards.ts';
import { CardLimits } from '../domain/card-limits.ts';
import type { Card } from '../domain/entities.ts';
import type { CardDeps } from './ports.ts';

/**
 * Validates and stores a new pending card. With a call key (an external session's call, which no turn
 * ends) the same call made again gets its earlier card instead: still pending (it waits on), or decided
 * within KEYED_DECISION_SECONDS and not used yet (the decision is used now). A used, cancelled or older
 * decision raises a new card.
 */
export async function raiseCard(deps: CardDeps, input: RaiseCardInput, now: Date): Promise<Card> {
  const card = buildCard(input, deps.ids.newCardId(), now);
  if (card.callKey !== '') {
    const decidedSince = new Date(now.getTime() - CardLimits.KEYED_DECISION_SECONDS * 1000);
    const earlier = await deps.store.reuseKeyed(card.sessionId, card.callKey, decidedSince, now);
    if (earlier !== undefined) return earlier;
  }
  await deps.store.create(card);
  return card;
}
