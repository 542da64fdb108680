import type { RelaySettings } from '@relay/proto/relay/session/v1/session';
import { toolError } from './errors.ts';

/**
 * Sessions on this relay are open to agents only while "Agents may start and use sessions on this
 * relay" is on; throws REMOTE_RELAY_DISABLED otherwise (relay_tool may still be on for paired relays).
 */
export function requireAgentSessions(settings: RelaySettings): void {
  if (settings.agentSessionsEnabled) return;
  throw toolError(
    'REMOTE_RELAY_DISABLED',
    'Agent sessions are off on this relay: "Agents may start and use sessions on this relay" is not switched on. Ask the user to switch it on (Settings → Relays), or name a paired relay.',
  );
}
