/**
 * No stale cards: a turn that ended takes its cards with it. The session service withdraws a turn's cards
 * (CancelCards) as the turn ends, but that call is lost when this service is away then, and a turn the session
 * service's lease sweep ends never makes it. turn_ended is durable on the bus, so this service hears every turn
 * end once it is back (adapters/bus/turn-ended-consumer.ts) and withdraws what that turn left pending here.
 */
import type { TurnEnd } from '../domain/cards.ts';
import type { Card } from '../domain/entities.ts';
import type { CardDeps } from './ports.ts';

/**
 * Withdraws (cancels) the cards the turn end left pending, each with its card_decided event, so whoever awaits one
 * stops waiting and answering one says its turn is gone. Only pending cards change: a redelivered or replayed
 * turn_ended changes nothing more. An event without a session is ignored (nothing of ours can match it).
 */
export async function withdrawCardsOfEndedTurn(deps: CardDeps, end: TurnEnd, now: Date): Promise<Card[]> {
  if (end.sessionId === '') return [];
  return deps.store.cancelLeftByTurn(end, now, (card) => ({ eventId: deps.ids.newEventId(), occurredAt: now, card }));
}
