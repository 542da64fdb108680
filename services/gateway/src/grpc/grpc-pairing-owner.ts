/**
 * PairingOwner over gRPC: relay.pairing.v1.PairingService's paired relays in the gateway's types.
 */
import { callUnary } from '@relay/rpc';
import { AgentLevel as LevelMessage, type PairingServiceClient } from '@relay/proto/relay/pairing/v1/pairing_service';
import type { AgentLevel, PairedRelay, PairingOwner } from '../ports.ts';

const DEADLINE_MS = 10_000;

// An unknown level grants nothing: a relay is never opened wider than its owner set.
const LEVELS: Record<number, AgentLevel> = {
  [LevelMessage.AGENT_LEVEL_UNSPECIFIED]: 'off',
  [LevelMessage.AGENT_LEVEL_OFF]: 'off',
  [LevelMessage.AGENT_LEVEL_READ]: 'read',
  [LevelMessage.AGENT_LEVEL_READ_AND_PROMPT]: 'read_and_prompt',
  [LevelMessage.AGENT_LEVEL_FULL]: 'full',
};

export class GrpcPairingOwner implements PairingOwner {
  constructor(private readonly client: PairingServiceClient) {}

  async listPairedRelays(): Promise<PairedRelay[]> {
    const { relays } = await callUnary(this.client, 'listPairedRelays', {}, { deadlineMs: DEADLINE_MS });
    return relays.map((relay) => ({ name: relay.name, url: relay.url, online: relay.online, version: relay.version, level: LEVELS[relay.level] ?? 'off' }));
  }
}
