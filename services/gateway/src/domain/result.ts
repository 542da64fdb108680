/**
 * The shapes of a relay_tool result (spec, Actions): `{ ok: true, relay, summary, … }` for a call
 * that worked, `{ ok: false, code, error, … }` for a refused one, carried to the agent as one text
 * item of JSON; a refusal is also marked `isError`.
 */
import { isAppError, INTERNAL_CODE } from '@relay/errors';
import { isToolErrorCode } from './errors.ts';

export interface Success {
  ok: true;
  /** The relay the call worked on; absent only for list_relays, which works on none. */
  relay?: string;
  summary: string;
  [field: string]: unknown;
}

export interface Refusal {
  ok: false;
  code: string;
  error: string;
  [field: string]: unknown;
}

export type ToolResult = Success | Refusal;

/** A successful result: `ok`, `relay` (when given) and `summary` first, then the action's fields. */
export function success(summary: string, fields: Record<string, unknown> = {}, relay?: string): Success {
  return { ok: true, ...(relay === undefined ? {} : { relay }), summary, ...fields };
}

/**
 * The refusal for a thrown value. A catalogued AppError keeps its code, message and details; anything
 * else is a fault on our side and says nothing about it (the caller logs the cause).
 */
export function refusalFrom(error: unknown): Refusal {
  if (isAppError(error) && isToolErrorCode(error.code) && error.code !== INTERNAL_CODE) {
    return { ...error.details, ok: false, code: error.code, error: error.message };
  }
  const unreachable = isAppError(error) && (error.kind === 'unavailable' || error.kind === 'deadline_exceeded');
  return {
    ok: false,
    code: INTERNAL_CODE,
    error: unreachable
      ? 'A service of this relay did not answer in time. Try again in a moment.'
      : 'Something went wrong on this relay. Nothing more is known to the tool; try again, or tell the user.',
  };
}

/** "1 session", "3 sessions": the counts summaries speak in. */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** A paired relay's dry run answered: the call passed every check here, and nothing changed. */
export function checkedOnly(action: string, relayName: string, fields: Record<string, unknown>): Success {
  return success(`${action} → ${relayName}: checked, nothing changed yet`, { dryRun: true, ...fields }, relayName);
}
