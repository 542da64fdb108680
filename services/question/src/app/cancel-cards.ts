import { invalidInput } from '../domain/errors.ts';
import type { CardDeps } from './ports.ts';

/** Withdraws a session's pending cards (its turn ended or it was archived), each with a card_decided event; returns how many. */
export async function cancelCards(deps: CardDeps, sessionId: string, now: Date): Promise<number> {
  if (sessionId === '') throw invalidInput('session_id is required', { field: 'session_id' });
  const cancelled = await deps.store.cancelPending(sessionId, now, (card) => ({ eventId: deps.ids.newEventId(), occurredAt: now, card }));
  return cancelled.length;
}
