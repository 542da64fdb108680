import type { Card } from '../domain/entities.ts';
import { invalidInput, notFound } from '../domain/errors.ts';
import type { CardStore } from './ports.ts';

/**
 * One card of the user's, pending or decided, read by its id: the listing holds only the newest CardLimits.LIST, so a
 * page about one card does not look for it there. Another user's card is NOT_FOUND, like one that never was.
 */
export async function getCard(store: Pick<CardStore, 'find'>, input: { userId: string; cardId: string }): Promise<Card> {
  if (input.userId === '') throw invalidInput('user_id is required', { field: 'user_id' });
  if (input.cardId === '') throw invalidInput('card_id is required', { field: 'card_id' });
  const card = await store.find(input.cardId);
  if (card === undefined || card.userId !== input.userId) throw notFound(input.cardId);
  return card;
}
