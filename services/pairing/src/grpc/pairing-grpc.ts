import {
  AgentLevel as AgentLevelMessage,
  type PairedRelay as PairedRelayMessage,
  type PairingServiceServer,
} from '@relay/proto/relay/pairing/v1/pairing_service';
import { serveUnary } from '@relay/rpc';
import type { Logger } from '@relay/telemetry';
import { listPairedRelays } from '../domain/list-paired-relays.ts';
import type { AgentLevel, PairedRelayStatus } from '../domain/paired-relay.ts';
import type { PairedRelayStore } from '../domain/ports.ts';

/** The generated server interface without grpc-js's index signature, which UnaryHandlers would map to never. */
type PairingServiceMethods = { [K in keyof PairingServiceServer as string extends K ? never : K]: PairingServiceServer[K] };

const LEVELS: Record<AgentLevel, AgentLevelMessage> = {
  off: AgentLevelMessage.AGENT_LEVEL_OFF,
  read: AgentLevelMessage.AGENT_LEVEL_READ,
  read_and_prompt: AgentLevelMessage.AGENT_LEVEL_READ_AND_PROMPT,
  full: AgentLevelMessage.AGENT_LEVEL_FULL,
};

/** relay.pairing.v1.PairingService: decode the request, run the use case, encode the answer. */
export function pairingGrpc(deps: { relays: PairedRelayStore; logger: Logger }): ReturnType<typeof serveUnary> {
  return serveUnary<PairingServiceMethods>(deps.logger, {
    listPairedRelays: async () => ({ relays: (await listPairedRelays(deps.relays)).map(toPairedRelayMessage) }),
  });
}

function toPairedRelayMessage(relay: PairedRelayStatus): PairedRelayMessage {
  return { name: relay.name, url: relay.url, online: relay.online, version: relay.version, level: LEVELS[relay.level] };
}
