import { consume, waitForStream, type Bus, type Consumer } from '@relay/bus';
import type { Clock } from '@relay/clock';
import { SessionEvents } from '@relay/proto/relay/bus-contracts';
import type { SessionArchived } from '@relay/proto/relay/session/v1/events';
import type { Logger } from '@relay/telemetry';
import { endAsksOf } from '../../app/ask-use-cases.ts';
import type { AskStore } from '../../app/ports.ts';

/** This service's durable consumer of the session service's archived events. */
export const SESSION_ARCHIVED = { durable: 'question-session-archived', contract: SessionEvents.ARCHIVED } as const;

export interface SessionArchivedDeps {
  asks: AskStore;
  clock: Clock;
  logger: Logger;
}

/**
 * Ends the pending asks of archived sessions (spec: an ask ends when its session is archived or
 * deleted; nobody is told). Ending only touches pending asks, so a redelivery changes nothing. The
 * session service declares the stream; until it exists this waits (call it without awaiting).
 */
export async function startSessionArchivedConsumer(bus: Bus, deps: SessionArchivedDeps, signal: AbortSignal): Promise<Consumer | undefined> {
  if (!(await waitForStream(bus, SESSION_ARCHIVED.contract.stream, { logger: deps.logger, signal }))) return undefined;
  return consume(bus, {
    durable: SESSION_ARCHIVED.durable,
    contracts: [SESSION_ARCHIVED.contract],
    logger: deps.logger,
    handler: (message) => endAsksOfArchived(deps, message.data),
  });
}

/** Ends the pending asks the archived session asked or that are about it. */
export async function endAsksOfArchived(deps: SessionArchivedDeps, event: SessionArchived): Promise<void> {
  if (event.sessionId === '') return;
  const ended = await endAsksOf(deps.asks, event.sessionId, deps.clock.now());
  if (ended > 0) deps.logger.info({ sessionId: event.sessionId, ended }, 'asks ended: their session was archived');
}
