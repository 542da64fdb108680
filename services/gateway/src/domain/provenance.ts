import type { Conversation } from './answers.ts';
import type { Provenance } from '@relay/proto/relay/session/v1/session';

/**
 * The provenance of a prompt the caller's agent queues on this relay (decisions.md, Across relays):
 * this relay, the calling session and its model, and the hops and the chain of relays of the turn that
 * sends it (a prompt that stays on its relay keeps them).
 */
export function provenanceOf(relayName: string, conversation: Conversation): Provenance {
  return {
    originRelay: relayName,
    originSessionId: conversation.session.id,
    originSessionTitle: conversation.session.title,
    model: conversation.session.model,
    hops: conversation.turnProvenance?.hops ?? 0,
    viaRelays: relayChain(conversation.turnProvenance),
  };
}

/**
 * The relays a prompt came through, oldest first, which the hop limit lets a turn send back to. A prompt that
 * crossed no relay came through none; one from a relay that predates the chain came through its origin relay
 * (all that relay tells).
 */
export function relayChain(provenance: Provenance | undefined): string[] {
  if (provenance === undefined || provenance.hops === 0) return [];
  if (provenance.viaRelays.length > 0) return [...provenance.viaRelays];
  return provenance.originRelay === '' ? [] : [provenance.originRelay];
}

/** The chain a prompt carries when `relayName` passes it on to another relay: `chain` with `relayName` last. */
export function chainThrough(chain: readonly string[], relayName: string): string[] {
  const last = chain.at(-1);
  if (last !== undefined && last.toLowerCase() === relayName.toLowerCase()) return [...chain.slice(0, -1), relayName];
  return [...chain, relayName];
}
