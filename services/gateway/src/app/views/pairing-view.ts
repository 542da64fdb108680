/**
 * The pairing service's answers in the spec's words: the "Agents may" levels by name (the user API, list_relays,
 * the level an action needs on a paired relay), a pairing as the user API shows it, and the Accept prompts switch.
 */
import { AgentLevel, type PairedRelay, type PairingSettings } from '@relay/proto/relay/pairing/v1/pairing_service';
import type { AgentLevelName } from '../../domain/agent-levels.ts';

// An unknown level grants nothing: a relay is never opened wider than its owner set.
const NAMES: Record<number, AgentLevelName> = {
  [AgentLevel.AGENT_LEVEL_UNSPECIFIED]: 'off',
  [AgentLevel.AGENT_LEVEL_OFF]: 'off',
  [AgentLevel.AGENT_LEVEL_READ]: 'read',
  [AgentLevel.AGENT_LEVEL_READ_AND_PROMPT]: 'read_and_prompt',
  [AgentLevel.AGENT_LEVEL_FULL]: 'full',
};

const LEVELS: Record<AgentLevelName, AgentLevel> = {
  off: AgentLevel.AGENT_LEVEL_OFF,
  read: AgentLevel.AGENT_LEVEL_READ,
  read_and_prompt: AgentLevel.AGENT_LEVEL_READ_AND_PROMPT,
  full: AgentLevel.AGENT_LEVEL_FULL,
};

/** A paired relay's level by the spec's name; "off" for one this gateway does not know. */
export function agentLevelName(level: AgentLevel): AgentLevelName {
  return NAMES[level] ?? 'off';
}

/** The level the pairing service keeps for a name the user gave. */
export function agentLevelOf(name: AgentLevelName): AgentLevel {
  return LEVELS[name];
}

/** A pairing as the user API shows it. */
export function pairingView(relay: PairedRelay) {
  return { name: relay.name, url: relay.url, level: agentLevelName(relay.level), online: relay.online, version: relay.version };
}

/** "Accept prompts from other relays' agents": on unless the owner switched it off (and on when the answer has no settings). */
export function acceptsPrompts(settings: PairingSettings | undefined): boolean {
  return settings?.acceptPrompts ?? true;
}
