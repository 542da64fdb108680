import type { PairedRelay, RelaySettings } from '../ports.ts';

/**
 * relay_tool is offered when agent sessions are on here, or a paired relay's "Agents may" level is
 * not off (decisions.md, Switching it on).
 */
export function isRelayToolOn(settings: RelaySettings, paired: readonly PairedRelay[]): boolean {
  return settings.agentSessionsEnabled || paired.some((relay) => relay.level !== 'off');
}
