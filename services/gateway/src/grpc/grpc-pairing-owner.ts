/**
 * PairingOwner over gRPC: relay.pairing.v1.PairingService in the gateway's types.
 */
import { callUnary } from '@relay/rpc';
import { AgentLevel as LevelMessage, type PairedRelay as PairedRelayMessage, type PairingServiceClient } from '@relay/proto/relay/pairing/v1/pairing_service';
import type { AgentLevel, ForwardedCall, PairedRelay, PairingOwner, PairingSettings, RelayCaller, RelayIdentity } from '../ports.ts';

const DEADLINE_MS = 10_000;
/** Pairing calls the other relay; it may take a while to answer. */
const PAIR_DEADLINE_MS = 30_000;
/** A forwarded call may wait as long as the other relay's wait, plus the way there and back. */
const FORWARD_MARGIN_MS = 15_000;

// An unknown level grants nothing: a relay is never opened wider than its owner set.
const LEVELS: Record<number, AgentLevel> = {
  [LevelMessage.AGENT_LEVEL_UNSPECIFIED]: 'off',
  [LevelMessage.AGENT_LEVEL_OFF]: 'off',
  [LevelMessage.AGENT_LEVEL_READ]: 'read',
  [LevelMessage.AGENT_LEVEL_READ_AND_PROMPT]: 'read_and_prompt',
  [LevelMessage.AGENT_LEVEL_FULL]: 'full',
};

const LEVEL_MESSAGES: Record<AgentLevel, LevelMessage> = {
  off: LevelMessage.AGENT_LEVEL_OFF,
  read: LevelMessage.AGENT_LEVEL_READ,
  read_and_prompt: LevelMessage.AGENT_LEVEL_READ_AND_PROMPT,
  full: LevelMessage.AGENT_LEVEL_FULL,
};

export class GrpcPairingOwner implements PairingOwner {
  constructor(private readonly client: PairingServiceClient) {}

  async listPairedRelays(): Promise<PairedRelay[]> {
    const { relays } = await callUnary(this.client, 'listPairedRelays', {}, { deadlineMs: DEADLINE_MS });
    return relays.map(toPairedRelay);
  }

  async createPairingCode(userId: string): Promise<{ code: string; expiresAt: Date }> {
    const { code, expiresAt } = await callUnary(this.client, 'createPairingCode', { userId }, { deadlineMs: DEADLINE_MS });
    return { code, expiresAt: expiresAt ?? new Date(0) };
  }

  async pair(input: { userId: string; url: string; code: string; self: RelayIdentity }): Promise<PairedRelay> {
    const request = { userId: input.userId, url: input.url, code: input.code, selfName: input.self.name, selfUrl: input.self.url, selfVersion: input.self.version };
    const { relay } = await callUnary(this.client, 'pair', request, { deadlineMs: PAIR_DEADLINE_MS });
    return toPairedRelay(required(relay));
  }

  async acceptPairing(input: { code: string; name: string; url: string; version: string; token: string; self: RelayIdentity }) {
    const request = { code: input.code, name: input.name, url: input.url, version: input.version, token: input.token, selfName: input.self.name, selfVersion: input.self.version };
    return callUnary(this.client, 'acceptPairing', request, { deadlineMs: DEADLINE_MS });
  }

  async unpair(name: string): Promise<PairedRelay> {
    const { relay } = await callUnary(this.client, 'unpair', { name }, { deadlineMs: DEADLINE_MS });
    return toPairedRelay(required(relay));
  }

  async setAgentLevel(name: string, level: AgentLevel): Promise<PairedRelay> {
    const { relay } = await callUnary(this.client, 'setAgentLevel', { name, level: LEVEL_MESSAGES[level] }, { deadlineMs: DEADLINE_MS });
    return toPairedRelay(required(relay));
  }

  async getPairingSettings(): Promise<PairingSettings> {
    const { settings } = await callUnary(this.client, 'getPairingSettings', {}, { deadlineMs: DEADLINE_MS });
    return { acceptPrompts: settings?.acceptPrompts ?? true };
  }

  async setPairingSettings(change: Partial<PairingSettings>): Promise<PairingSettings> {
    const { settings } = await callUnary(this.client, 'setPairingSettings', { acceptPrompts: change.acceptPrompts }, { deadlineMs: DEADLINE_MS });
    return { acceptPrompts: settings?.acceptPrompts ?? true };
  }

  async authenticateRelay(token: string): Promise<RelayCaller> {
    return callUnary(this.client, 'authenticateRelay', { token }, { deadlineMs: DEADLINE_MS });
  }

  async forwardToolCall(call: ForwardedCall): Promise<{ result: Record<string, unknown>; version: string }> {
    const request = {
      relay: call.relay,
      action: call.action,
      argumentsJson: JSON.stringify(call.args),
      provenance: call.provenance,
      timeoutSeconds: call.timeoutSeconds,
      allowed: call.allowed,
      dryRun: call.dryRun,
    };
    const answer = await callUnary(this.client, 'forwardToolCall', request, { deadlineMs: call.timeoutSeconds * 1000 + FORWARD_MARGIN_MS });
    return { result: JSON.parse(answer.resultJson) as Record<string, unknown>, version: answer.version };
  }
}

function toPairedRelay(relay: PairedRelayMessage): PairedRelay {
  return { name: relay.name, url: relay.url, online: relay.online, version: relay.version, level: LEVELS[relay.level] ?? 'off' };
}

function required<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('the pairing service answered without a relay');
  return value;
}
