/**
 * The key of an external session's call (decisions.md, External sessions): a hash of the session, the action,
 * its canonical arguments and which card of the call it is. The same call made again has the same key, so the
 * question service hands it the card it raised before (pending, or with its decision) instead of a second one.
 * wait_seconds is left out: waiting longer or shorter is the same call.
 */
import { createHash } from 'node:crypto';

/** The action and arguments of the call in flight. */
export interface CallShape {
  action: string;
  args: Record<string, unknown>;
}

/** 64 hex characters; `purpose` tells the cards of one call apart (its own card, the loop guard's). */
export function callKeyOf(sessionId: string, call: CallShape, purpose: string): string {
  const { wait_seconds: _ignored, ...args } = call.args;
  return createHash('sha256')
    .update(JSON.stringify([sessionId, call.action, canonical(args), purpose]))
    .digest('hex');
}

/** The value with object keys sorted and empty fields (undefined) left out, so key order never changes the key. */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, field]) => field !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, field]) => [key, canonical(field)]),
    );
  }
  return value;
}
