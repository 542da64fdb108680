/**
 * Turn statuses as the turn runtime groups them (the Turn entity itself is in ../entities.ts).
 */
import type { TurnStatus } from '../entities.ts';

/** The statuses a turn ends in. */
export type EndedTurnStatus = Extract<TurnStatus, 'done' | 'error' | 'stopped'>;


/** True once the turn has ended and will not change again. */
export function isTurnOver(status: TurnStatus): status is EndedTurnStatus {
  return status === 'done' || status === 'error' || status === 'stopped';
}
