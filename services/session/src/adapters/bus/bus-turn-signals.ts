import type { Bus } from '@relay/bus';
import type { Logger } from '@relay/telemetry';
import { SessionEvents } from '@relay/proto/relay/bus-contracts';
import type { TurnSignals } from '../../app/turns/turn-signals.ts';

/**
 * Core NATS: "a budget over a tree changed what may run" — a tree was held, its running turns were asked to stop, or
 * the person let it run again (docs/adr/0039-tree-budgets.md). Every replica's runner looks at once: it stops the
 * tree's turns it runs, or claims the ones a raise let go. The hold itself is in PostgreSQL, which every claim reads,
 * so a lost nudge costs only the poll interval before a stop or a start, never a turn started past a hold.
 */
export const BUDGET_CHANGED_SUBJECT = 'relay.session.v1.budget_changed';

/** Tells every replica's runner (this one's too, through its own subscription) to look now. */
export function publishBudgetChanged(bus: Bus): void {
  // A JSON object: SESSION_EVENTS keeps what is published under relay.session.v1, and its consumers decode objects.
  bus.nc.publish(BUDGET_CHANGED_SUBJECT, '{}');
}

/**
 * Feeds TurnSignals from the bus with plain (core NATS) subscriptions on turn_queued, turn_ended and budget_changed:
 * every replica hears every one, nothing is acknowledged, and a missed one costs only a poll interval,
 * because the turns table is the work queue (docs/adr/0009-turn-runtime.md).
 */
export function listenForTurnSignals(bus: Bus, signals: TurnSignals, logger: Logger): { stop(): void } {
  const subscriptions: ReturnType<Bus['nc']['subscribe']>[] = [
    bus.nc.subscribe(SessionEvents.TURN_QUEUED.subject, {
      callback: (error) => (error ? logger.warn({ err: error }, 'turn_queued subscription failed') : signals.work()),
    }),
    bus.nc.subscribe(BUDGET_CHANGED_SUBJECT, {
      callback: (error) => (error ? logger.warn({ err: error }, 'budget_changed subscription failed') : signals.work()),
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
