/**
 * A relay paired with this one, and how list_relays shows it.
 */

/** What agents of a paired relay may do here ("Agents may"), lowest first. */
export const AGENT_LEVELS = ['off', 'read', 'read_and_prompt', 'full'] as const;
export type AgentLevel = (typeof AGENT_LEVELS)[number];

/** A paired relay as this service stores it. */
export type PairedRelay = {
  name: string;
  url: string;
  level: AgentLevel;
  /** The local user who made the pairing: calls from that relay act for them. */
  ownerUserId: string;
  /** sha256 of the token that relay calls this one with. */
  inboundTokenHash: string;
  /** The token this relay calls that one with. */
  outboundToken: string;
  /** As it last reported it; "" when not known. */
  version: string;
  /** Whether the last contact with it succeeded. */
  online: boolean;
  createdAt: Date;
};

/** A paired relay as callers see it: never its tokens. */
export type PairedRelayStatus = {
  name: string;
  url: string;
  level: AgentLevel;
  online: boolean;
  version: string;
  ownerUserId: string;
  pairedAt: Date;
};

/** What a caller may see of a paired relay. */
export function statusOf(relay: PairedRelay): PairedRelayStatus {
  return {
    name: relay.name,
    url: relay.url,
    level: relay.level,
    online: relay.online,
    version: relay.version,
    ownerUserId: relay.ownerUserId,
    pairedAt: relay.createdAt,
  };
}
