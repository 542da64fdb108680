/** A conversation's messages, where its prompts came from, and what it was allowed. */

import type { MessageDelivery } from './delivery.ts';

/** Where a prompt came from; a prompt a user typed has hops 0 and no origin session. */
export interface Provenance {
  originRelay: string;
  originSessionId: string;
  originSessionTitle: string;
  model: string;
  /** Relay boundaries the chain of prompts has crossed. */
  hops: number;
  /**
   * The relays the chain of prompts came through, oldest first (the gateway appends its relay's name when it
   * passes a prompt on); the gateway's hop limit reads it. Empty for a prompt from a relay that predates it;
   * absent on rows (and schedules) written before it.
   */
  viaRelays?: string[];
}

/** Who wrote a message: the user, another agent, a relay event row, a schedule, or the session's own agent. */
/** `error`: the relay's note that a turn failed, with why (end-turn.ts); never sent to a model. */
export type MessageRole = 'user' | 'agent' | 'event' | 'schedule' | 'assistant' | 'error';

/** One message of a conversation. */
export interface Message {
  id: string;
  sessionId: string;
  role: MessageRole;
  text: string;
  provenance: Provenance | null;
  /** The model that wrote an assistant message; '' otherwise. */
  model: string;
  /** The conversation whose agent sent it, if one did. */
  senderSessionId: string | null;
  createdAt: Date;
  /** How far a message sent to the session has come, where a read asked (delivery.ts); absent on other messages. */
  delivery?: MessageDelivery;
}

/** A paired relay unlocked in a conversation: by the user mentioning it, or by an agent on that relay writing to it. */
export interface RelayUnlock {
  relay: string;
  byMention: boolean;
}

/** A conversation's standing permission, e.g. to change sessions it did not start on a relay. */
export interface ConversationGrant {
  sessionId: string;
  kind: 'update_others' | 'started_remote';
  /** 'this' for this relay. */
  relay: string;
  createdAt: Date;
}
