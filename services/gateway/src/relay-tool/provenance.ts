import type { Conversation, Provenance } from '../ports.ts';

/**
 * The provenance of a prompt the caller's agent queues on this relay (decisions.md, Across relays):
 * this relay, the calling session and its model, and the hops of the turn that sends it (a prompt
 * that stays on its relay keeps them).
 */
export function provenanceOf(relayName: string, conversation: Conversation): Provenance {
  return {
    originRelay: relayName,
    originSessionId: conversation.session.id,
    originSessionTitle: conversation.session.title,
    model: conversation.session.model,
    hops: conversation.turnProvenance?.hops ?? 0,
  };
}
