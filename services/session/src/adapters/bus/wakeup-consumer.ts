import { consume, waitForStream, type Bus, type Consumer, type Delivered } from '@relay/bus';
import { SubscriptionCommands } from '@relay/proto/relay/bus-contracts';
import { deliverWakeup, type WakeupDeps } from '../../app/deliveries/deliver-wakeup.ts';

/** This service's durable consumer of the subscription service's deliver_wakeup commands. */
export const WAKEUPS = { durable: 'session-wakeups', contract: SubscriptionCommands.DELIVER_WAKEUP } as const;

/** Delivers each wake-up into its watcher (deliverWakeup). */
export async function startWakeupConsumer(bus: Bus, deps: WakeupDeps): Promise<Consumer> {
  await waitForStream(bus, WAKEUPS.contract.stream, { logger: deps.logger });
  return consume(bus, {
    durable: WAKEUPS.durable,
    contracts: [WAKEUPS.contract],
    logger: deps.logger,
    handler: (message) => handleWakeup(deps, message),
  });
}

/** Hands one decoded deliver_wakeup to deliverWakeup, keyed by its message id. */
export async function handleWakeup(deps: WakeupDeps, message: Delivered<typeof WAKEUPS.contract>): Promise<void> {
  await deliverWakeup(deps, { consumer: WAKEUPS.durable, messageId: message.id }, message.data);
}
