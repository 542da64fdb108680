/** Where the schedule actions work: this relay's scheduler only. */
import type { ActionContext } from './action-context.ts';
import { toolError } from '../../domain/errors.ts';
import { resolveRelay } from '../../domain/relay-name.ts';
import { requireAgentSessions } from '../../domain/require-agent-sessions.ts';
import type { SchedulerClient } from '../ports.ts';

/**
 * The relay schedules work on: this one. A paired relay answers REMOTE_RELAY_UNSUPPORTED, an unknown
 * name REMOTE_RELAY_UNKNOWN_RELAY; agent sessions must be on, even for the caller's own conversation.
 */
export function scheduleRelay(action: string, relay: string | undefined, context: ActionContext): { relay: string; scheduler: SchedulerClient } {
  const target = resolveRelay(relay, context.relayName, context.paired);
  if (target.kind === 'paired') {
    throw toolError(
      'REMOTE_RELAY_UNSUPPORTED',
      `${action}: schedules work on this relay only; "${target.relay.name}" keeps no schedules for agents here. Leave out relay.`,
    );
  }
  requireAgentSessions(context.settings);
  if (!context.schedules) throw toolError('REMOTE_RELAY_UNSUPPORTED', `${action} is not available on this relay yet.`);
  return { relay: target.name, scheduler: context.schedules };
}
