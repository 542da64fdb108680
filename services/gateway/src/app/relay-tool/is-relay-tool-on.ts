import type { RelaySettings } from '@relay/proto/relay/session/v1/session';
import type { PairedRelay } from '@relay/proto/relay/pairing/v1/pairing_service';
import { agentLevelName } from '../views/pairing-view.ts';

/**
 * relay_tool is offered when agent sessions are on here, or a paired relay's "Agents may" level is
 * not off (decisions.md, Switching it on).
 */
export function isRelayToolOn(settings: RelaySettings, paired: readonly PairedRelay[]): boolean {
  return settings.agentSessionsEnabled || paired.some((relay) => agentLevelName(relay.level) !== 'off');
}
