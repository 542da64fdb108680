/**
 * No stale cards: a turn that ended takes its cards with it. The session service withdraws a turn's cards
 * (CancelCards) as the turn ends, but that call is lost when this service is away then, and a turn the session
 * service's lease sweep ends never makes it. turn_ended is durable on the bus, so this service hears every turn
 * end once it is back (bus/turn-ended-consumer.ts) and withdraws what that turn left pending here.
 */
import type { Card } from './entities.ts';
import type { CardDeps } from './ports.ts';

/** A turn's end, as relay.session.v1.turn_ended tells it: the session, the turn and when (relay clock). */
export interface TurnEnd {
  sessionId: string;
  turnId: string;
  endedAt: Date;
}

/**
 * Whether the turn end leaves `card` waiting for nobody: a pending card of that session raised at or before the
 * end. A session runs one turn at a time, so such a card was raised in that turn or an earlier one, all of them
 * over; a card raised later belongs to a turn still running. A card with a call key is an external session's
 * call, which no hosted turn owns, and stays.
 */
export function isLeftByTurnEnd(card: Card, end: TurnEnd): boolean {
  return card.status === 'pending' && card.sessionId === end.sessionId && card.callKey === '' && card.createdAt.getTime() <= end.endedAt.getTime();
}

/**
 * Withdraws (cancels) the cards the turn end left pending, each with its card_decided event, so whoever awaits one
 * stops waiting and answering one says its turn is gone. Only pending cards change: a redelivered or replayed
 * turn_ended changes nothing more. An event without a session is ignored (nothing of ours can match it).
 */
export async function withdrawCardsOfEndedTurn(deps: CardDeps, end: TurnEnd, now: Date): Promise<Card[]> {
  if (end.sessionId === '') return [];
  return deps.store.cancelLeftByTurn(end, now, (card) => ({ eventId: deps.ids.newEventId(), occurredAt: now, card }));
}
