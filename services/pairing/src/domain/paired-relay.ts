/**
 * A relay paired with this one, and how list_relays shows it.
 */

/** What agents of a paired relay may do here ("Agents may"), lowest first. */
export type AgentLevel = 'off' | 'read' | 'read_and_prompt' | 'full';

/** A paired relay as this service stores it. Its tokens (stored hashed) come with pairing itself. */
export type PairedRelay = {
  name: string;
  url: string;
  level: AgentLevel;
  acceptPrompts: boolean;
  createdAt: Date;
};

/** A paired relay with the state of the link to it. */
export type PairedRelayStatus = {
  name: string;
  url: string;
  level: AgentLevel;
  online: boolean;
  version: string;
};
