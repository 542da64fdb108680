import type { Caller } from './caller.ts';
import { toolError } from './errors.ts';

/**
 * "Not on itself" (spec, Rules for sessions on this relay): an agent cannot send to, wait for, stop
 * or archive the conversation it runs in, nor change its settings. Throws REMOTE_RELAY_FORBIDDEN.
 */
export function requireNotOnItself(action: string, sessionId: string, caller: Caller & { sessionId: string }): void {
  if (sessionId !== caller.sessionId) return;
  throw toolError(
    'REMOTE_RELAY_FORBIDDEN',
    `${action}: session ${sessionId} is the conversation you run in. An agent cannot send to, wait for, stop, archive or change its own conversation.`,
  );
}
