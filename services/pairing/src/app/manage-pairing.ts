import { unknownRelay } from '../domain/errors.ts';
import { statusOf, type AgentLevel, type PairedRelayStatus } from '../domain/paired-relay.ts';
import type { PairedRelayStore, Secrets } from './ports.ts';

/**
 * Removes a pairing on this side and announces it (relay.pairing.v1.unpaired), so what depends on it ends:
 * subscriptions to that relay, asks kept there. The other relay keeps its side until its user unpairs too;
 * this relay's token no longer works there only once it does, but that relay's token stops working here now.
 */
export async function unpair(deps: { relays: PairedRelayStore; secrets: Secrets }, name: string, now: Date): Promise<PairedRelayStatus> {
  const removed = await deps.relays.remove(name, { eventId: deps.secrets.newId(), occurredAt: now, relay: name });
  if (removed === undefined) throw unknownRelay(name);
  return statusOf(removed);
}

/** Sets what agents may do on a paired relay ("Agents may"). */
export async function setAgentLevel(relays: PairedRelayStore, name: string, level: AgentLevel): Promise<PairedRelayStatus> {
  const relay = await relays.setLevel(name, level);
  if (relay === undefined) throw unknownRelay(name);
  return statusOf(relay);
}
