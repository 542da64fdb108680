import type { Bus } from '@relay/bus';
import type { Logger } from '@relay/telemetry';
import { SessionEvents } from '@relay/proto/relay/bus-contracts';
import type { TurnSignals } from '../../app/turns/turn-signals.ts';

/**
 * Feeds TurnSignals from the bus with plain (core NATS) subscriptions on turn_queued and turn_ended:
 * every replica hears every one, nothing is acknowledged, and a missed one costs only a poll interval,
 * because the turns table is the work queue (docs/adr/0009-turn-runtime.md).
 */
export function listenForTurnSignals(bus: Bus, signals: TurnSignals, logger: Logger): { stop(): void } {
  const subscriptions: ReturnType<Bus['nc']['subscribe']>[] = [
    bus.nc.subscribe(SessionEvents.TURN_QUEUED.subject, {
      callback: (error) => (error ? logger.warn({ err: error }, 'turn_queued subscription failed') : signals.work()),
    }),
    bus.nc.subscribe(SessionEvents.TURN_ENDED.subject, {
      callback: (error, message) => {
        if (error) return logger.warn({ err: error }, 'turn_ended subscription failed');
        try {
          const turnId = turnIdOfTurnEnded(message.json());
          if (turnId !== undefined) signals.ended(turnId);
        } catch (cause) {
          logger.warn({ err: cause }, 'turn_ended message is not JSON');
        }
      },
    }),
  ];
  return {
    stop: () => {
      for (const subscription of subscriptions) subscription.unsubscribe();
    },
  };
}

/** The turn id of a turn_ended payload, or undefined when it has none. */
function turnIdOfTurnEnded(payload: unknown): string | undefined {
  const turnId = SessionEvents.TURN_ENDED.codec.fromJSON(payload).turnId;
  return turnId === '' ? undefined : turnId;
}
