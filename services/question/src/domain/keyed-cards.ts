/**
 * The reuse of a keyed card: an external session's call (which no turn ends) made again gets its earlier card
 * instead of a new one — the card still pending (the call waits on it), or a decision it has not taken yet.
 */
import { CardLimits } from './card-limits.ts';
import type { Card, CardStatus } from './entities.ts';

/** One of a call key's earlier cards, and whether a call already took its decision. */
export interface KeyedCard {
  card: Card;
  used: boolean;
}

/** The decisions the same call may take: an allow or a deny, not an answer, a dismissal or a cancel. */
const REUSABLE_DECISIONS: readonly CardStatus[] = ['allowed', 'denied'];

/** The oldest decision the same call made at `now` may still take: older ones have waited too long, the call asks anew. */
export function keyedDecisionsSince(now: Date): Date {
  return new Date(now.getTime() - CardLimits.KEYED_DECISION_SECONDS * 1000);
}

/**
 * The card the same call made at `now` gets instead of a new one: the newest of `earlier` (a call key's cards) that
 * is pending, or allowed or denied since keyedDecisionsSince(now) and not used; undefined when none is.
 */
export function reusableKeyedCard(earlier: readonly KeyedCard[], now: Date): Card | undefined {
  const since = keyedDecisionsSince(now);
  const reusable = earlier.filter(
    ({ card, used }) =>
      card.status === 'pending' || (REUSABLE_DECISIONS.includes(card.status) && !used && card.decidedAt !== undefined && card.decidedAt >= since),
  );
  return reusable.sort((a, b) => b.card.createdAt.getTime() - a.card.createdAt.getTime() || (a.card.id < b.card.id ? 1 : -1))[0]?.card;
}
