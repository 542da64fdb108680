import { context, ROOT_CONTEXT } from '@opentelemetry/api';

/**
 * Runs `run` in the root context, outside whatever trace is active: for background loops (polling rounds,
 * lease renewals, timers) that a message or a call only nudges. A timer or a promise chain started inside a
 * message's span would otherwise record every later round of the loop into that message's trace. Work a round
 * does on purpose starts its own root span (with links to what caused it).
 */
export function outsideTrace<T>(run: () => T): T {
  return context.with(ROOT_CONTEXT, run);
}
