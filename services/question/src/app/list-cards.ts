import { CardLimits } from '../domain/card-limits.ts';
import { capped } from '../domain/capped.ts';
import type { Card } from '../domain/entities.ts';
import { invalidInput } from '../domain/errors.ts';
import type { CardStore } from './ports.ts';

export interface ListCardsInput {
  userId: string;
  /** One session's cards; empty for all of the user's (the Inbox). */
  sessionId: string;
  pendingOnly: boolean;
}

/**
 * A user's cards, newest first, at most CardLimits.LIST of them; `more` when more match (one more is read to tell).
 */
export async function listCards(store: CardStore, input: ListCardsInput): Promise<{ cards: Card[]; more: boolean }> {
  if (input.userId === '') throw invalidInput('user_id is required', { field: 'user_id' });
  const cards = await store.list(input.userId, {
    ...(input.sessionId === '' ? {} : { sessionId: input.sessionId }),
    pendingOnly: input.pendingOnly,
    limit: CardLimits.LIST + 1,
  });
  const { listed, more } = capped(cards, CardLimits.LIST);
  return { cards: listed, more };
}
