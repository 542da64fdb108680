import type { ActionContext } from './action-context.ts';
import { toolError } from './errors.ts';
import { resolveRelay } from './relay-name.ts';
import { requireAgentSessions } from './require-agent-sessions.ts';

/**
 * The name of the relay a session action works on. Only this relay's sessions can be reached yet:
 * a paired relay answers REMOTE_RELAY_UNSUPPORTED, any other name REMOTE_RELAY_UNKNOWN_RELAY, and
 * this relay REMOTE_RELAY_DISABLED while agent sessions are off.
 */
export function thisRelay(relay: string | undefined, context: Pick<ActionContext, 'relayName' | 'paired' | 'settings'>): string {
  const target = resolveRelay(relay, context.relayName, context.paired);
  if (target.kind === 'paired') {
    throw toolError('REMOTE_RELAY_UNSUPPORTED', `Calls to paired relays are not available on this relay yet; "${target.relay.name}" cannot be reached from here.`);
  }
  requireAgentSessions(context.settings);
  return target.name;
}
