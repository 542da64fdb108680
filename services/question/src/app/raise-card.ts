import { admitCard, buildCard, type RaiseCardInput } from '../domain/cards.ts';
import type { Card } from '../domain/entities.ts';
import { keyedDecisionsSince, reusableKeyedCard } from '../domain/keyed-cards.ts';
import type { CardDeps } from './ports.ts';

/**
 * Validates and stores a new pending card. With a raise id the card's id is the raise's (cardIdFor), and the card
 * raised with it before is answered as it is: a raise made again after a transport error, or by the replica a turn
 * was handed to, is the same card. With a call key (an external session's call, which no turn
 * ends) the same call made again gets its earlier card instead (reusableKeyedCard): still pending (it waits
 * on), or a decision it takes now, unless a racing call took it first. Otherwise it raises a new card, unless the
 * session already has CardLimits.PENDING_PER_SESSION waiting (REMOTE_RELAY_QUESTION_LIMIT).
 */
export async function raiseCard(deps: CardDeps, input: RaiseCardInput, now: Date): Promise<Card> {
  const raiseId = input.raiseId ?? '';
  const card = buildCard(input, raiseId === '' ? deps.ids.newCardId() : deps.ids.cardIdFor(input.sessionId, raiseId), now);
  if (raiseId !== '') {
    const raised = await deps.store.find(card.id);
    if (raised !== undefined) return raised;
  }
  if (card.callKey !== '') {
    const earlier = reusableKeyedCard(await deps.store.keyedCards(card.sessionId, card.callKey, keyedDecisionsSince(now)), now);
    if (earlier !== undefined && (earlier.status === 'pending' || (await deps.store.markUsed(earlier.id, now)))) return earlier;
  }
  try {
    await deps.store.create(card, (pending) => admitCard(card, pending));
  } catch (error) {
    // The same raise, made again while the first was still being stored, finds the card the first one stored.
    const raced = raiseId === '' ? undefined : await deps.store.find(card.id);
    if (raced === undefined) throw error;
    return raced;
  }
  return card;
}
