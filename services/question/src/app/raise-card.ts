import { admitCard, buildCard, type RaiseCardInput } from '../domain/cards.ts';
import type { Card } from '../domain/entities.ts';
import { keyedDecisionsSince, reusableKeyedCard } from '../domain/keyed-cards.ts';
import type { CardDeps } from './ports.ts';

/**
 * Validates and stores a new pending card. With a call key (an external session's call, which no turn
 * ends) the same call made again gets its earlier card instead (reusableKeyedCard): still pending (it waits
 * on), or a decision it takes now, unless a racing call took it first. Otherwise it raises a new card, unless the
 * session already has CardLimits.PENDING_PER_SESSION waiting (REMOTE_RELAY_QUESTION_LIMIT).
 */
export async function raiseCard(deps: CardDeps, input: RaiseCardInput, now: Date): Promise<Card> {
  const card = buildCard(input, deps.ids.newCardId(), now);
  if (card.callKey !== '') {
    const earlier = reusableKeyedCard(await deps.store.keyedCards(card.sessionId, card.callKey, keyedDecisionsSince(now)), now);
    if (earlier !== undefined && (earlier.status === 'pending' || (await deps.store.markUsed(earlier.id, now)))) return earlier;
  }
  await deps.store.create(card, (pending) => admitCard(card, pending));
  return card;
}
