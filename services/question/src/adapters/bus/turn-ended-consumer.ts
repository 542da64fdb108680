import { caughtUp, consume, waitForStream, type Bus, type Consumer } from '@relay/bus';
import type { Clock } from '@relay/clock';
import { appError } from '@relay/errors';
import { SessionEvents } from '@relay/proto/relay/bus-contracts';
import type { TurnEnded } from '@relay/proto/relay/session/v1/events';
import { UNAVAILABLE_CODE } from '@relay/rpc';
import type { Logger } from '@relay/telemetry';
import type { CardDeps, TurnEndsHeard } from '../../app/ports.ts';
import { withdrawCardsOfEndedTurn } from '../../app/turn-ended.ts';

/** This service's durable consumer of the session service's turn_ended events. */
export const TURN_ENDED = { durable: 'question-turn-ended', contract: SessionEvents.TURN_ENDED } as const;

export type TurnEndedDeps = CardDeps & {
  clock: Clock;
  logger: Logger;
};

/**
 * Withdraws the cards each ended turn left pending (app/turn-ended.ts). The consumer is durable, so turn ends
 * published while this service was away are handled when it is back, oldest first; a redelivery changes nothing.
 * The session service declares the stream; until it exists this waits (call it without awaiting).
 */
export async function startTurnEndedConsumer(bus: Bus, deps: TurnEndedDeps, signal: AbortSignal): Promise<Consumer | undefined> {
  if (!(await waitForStream(bus, TURN_ENDED.contract.stream, { logger: deps.logger, signal }))) return undefined;
  return consume(bus, {
    durable: TURN_ENDED.durable,
    contracts: [TURN_ENDED.contract],
    logger: deps.logger,
    handler: async (message) => {
      await withdrawCardsOfTurnEnded(deps, message.data);
    },
  });
}

/** How long (real time) a decision waits for the turn ends missed while away to be handled before it is refused. */
export const CATCH_UP_WAIT_MS = 5_000;

/**
 * TurnEndsHeard over the consumer being started: caught up once it has handled every turn end SESSION_EVENTS held
 * for it (caughtUp). A consumer that never started is never caught up: decisions are refused, not taken blind.
 */
export function turnEndsHeard(bus: Bus, started: Promise<Consumer | undefined>, signal: AbortSignal, waitMs = CATCH_UP_WAIT_MS): TurnEndsHeard {
  let heard = false;
  const hearing = started.then((consumer) => consumer !== undefined && caughtUp(bus, TURN_ENDED.contract.stream, TURN_ENDED.durable, signal));
  void hearing.then((done) => (heard = done));
  return {
    caughtUp: async () => {
      if (heard) return;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), waitMs)));
      const done = await Promise.race([hearing, late]).finally(() => clearTimeout(timer));
      if (!done) {
        throw appError(UNAVAILABLE_CODE, 'the question service is still handling the turn ends it missed while it was away; try again in a moment');
      }
    },
  };
}

/** Withdraws the cards the ended turn left pending; how many. */
export async function withdrawCardsOfTurnEnded(deps: TurnEndedDeps, event: TurnEnded): Promise<number> {
  if (event.sessionId === '') return 0;
  if (event.occurredAt === undefined) {
    // Without its time the end cannot be told from the session's next turn: withdrawing could take that turn's card.
    deps.logger.warn({ sessionId: event.sessionId, turnId: event.turnId }, 'turn_ended without occurred_at; its cards are left as they are');
    return 0;
  }
  const withdrawn = await withdrawCardsOfEndedTurn(deps, { sessionId: event.sessionId, turnId: event.turnId, endedAt: event.occurredAt }, deps.clock.now());
  if (withdrawn.length > 0) {
    deps.logger.info({ sessionId: event.sessionId, turnId: event.turnId, cards: withdrawn.map((card) => card.id) }, 'cards withdrawn: their turn had ended');
  }
  return withdrawn.length;
}
