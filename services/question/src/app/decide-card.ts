import { alreadyDecided, applyDecision, type DecideCardInput } from '../domain/cards.ts';
import type { Card } from '../domain/entities.ts';
import { invalidInput, notFound } from '../domain/errors.ts';
import type { CardDeps, TurnEndsHeard } from './ports.ts';

export type DecideCardDeps = CardDeps & { turnEnds: TurnEndsHeard };

/**
 * Decides a card of the user's and writes the decision with its card_decided event (on a dry run, only checks).
 * Nothing is decided before every turn end missed while this service was away is handled (at once, but for a
 * moment after a start): a card whose turn ended then is refused as withdrawn instead of taken.
 */
export async function decideCard(deps: DecideCardDeps, input: DecideCardInput, now: Date): Promise<Card> {
  if (input.userId === '') throw invalidInput('user_id is required', { field: 'user_id' });
  if (input.cardId === '') throw invalidInput('card_id is required', { field: 'card_id' });
  await deps.turnEnds.caughtUp();
  const card = await deps.store.find(input.cardId);
  if (card === undefined) throw notFound(input.cardId);
  const decided = applyDecision(card, input, now);
  if (input.dryRun) return decided;
  if (await deps.store.saveDecision(decided, { eventId: deps.ids.newEventId(), occurredAt: now, card: decided })) return decided;
  // Someone decided it between our read and our write; report what they decided.
  const current = await deps.store.find(input.cardId);
  if (current === undefined) throw new Error(`card ${input.cardId} vanished while being decided`);
  throw alreadyDecided(current);
}
