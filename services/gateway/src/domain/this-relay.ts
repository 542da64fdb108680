import type { RelaySettings } from '@relay/proto/relay/session/v1/session';
import { toolError } from './errors.ts';
import { resolveRelay, type KnownRelays } from './relay-name.ts';
import { requireAgentSessions } from './require-agent-sessions.ts';

/**
 * The name of the relay a session action works on, for an action the gateway does not forward as it is
 * (relay-name.ts, pairedTarget): a paired relay answers REMOTE_RELAY_UNSUPPORTED, any other name
 * REMOTE_RELAY_UNKNOWN_RELAY, and this relay REMOTE_RELAY_DISABLED while agent sessions are off.
 */
export function thisRelay(relay: string | undefined, context: KnownRelays & { settings: RelaySettings }): string {
  const target = resolveRelay(relay, context.relayName, context.paired);
  if (target.kind === 'paired') {
    throw toolError('REMOTE_RELAY_UNSUPPORTED', `This action does not reach paired relays from here; "${target.relay.name}" cannot be reached with it.`);
  }
  requireAgentSessions(context.settings);
  return target.name;
}
