import type { RelaySettings } from '@relay/proto/relay/session/v1/session';
import type { AgentLevelName } from './agent-levels.ts';

/**
 * relay_tool is offered when agent sessions are on here, or a paired relay's "Agents may" level (`pairedLevels`,
 * one a paired relay) is not off (decisions.md, Switching it on).
 */
export function isRelayToolOn(settings: RelaySettings, pairedLevels: readonly AgentLevelName[]): boolean {
  return settings.agentSessionsEnabled || pairedLevels.some((level) => level !== 'off');
}
