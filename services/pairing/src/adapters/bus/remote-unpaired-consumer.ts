/**
 * When a pairing is removed here (relay.pairing.v1.unpaired), the remote events that depend on it end: our
 * subscriptions to that relay's sessions (ended in the subscription service, no longer fetched), the asks kept
 * there (no longer polled) and the watches that relay kept here. Ending them again changes nothing, so a redelivery is harmless.
 */
import { consume, type Bus, type Consumer } from '@relay/bus';
import { PairingEvents } from '@relay/proto/relay/bus-contracts';
import type { Logger } from '@relay/telemetry';
import type { RemoteAskStore, RemoteIngest, RemoteSubscriptionStore, RemoteWatchStore } from '../../app/remote-ports.ts';
import { invalidEvent } from '../../domain/errors.ts';
import { endRelayEvents } from '../../app/remote-subscriptions.ts';

/** This service's durable consumer of its own unpaired events. */
const REMOTE_UNPAIRED = { durable: 'pairing-remote-unpaired', contract: PairingEvents.UNPAIRED } as const;

export function startRemoteUnpairedConsumer(
  bus: Bus,
  deps: { subscriptions: RemoteSubscriptionStore; watches: RemoteWatchStore; ingest: RemoteIngest; asks: RemoteAskStore; logger: Logger },
): Promise<Consumer> {
  return consume(bus, {
    durable: REMOTE_UNPAIRED.durable,
    contracts: [REMOTE_UNPAIRED.contract],
    logger: deps.logger,
    handler: async (message) => {
      const { relay } = message.data;
      if (relay === '') throw invalidEvent(message.subject, 'relay is missing');
      const { ended } = await endRelayEvents(relay, deps);
      deps.logger.info({ relay, ended: ended.length }, 'remote subscriptions ended with the pairing');
    },
  });
}
