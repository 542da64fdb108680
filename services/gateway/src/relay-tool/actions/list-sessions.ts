/**
 * list_sessions: lists the sessions of the caller's user with id, title, provider, model, state,
 * cwd, the time of the last activity, a message count and their tasks. `scope` is "active"
 * (default), "archived" or "all".
 */
import { SESSION_SCOPES, type SessionScope } from '../../ports.ts';
import { sessionView } from '../../session-view.ts';
import type { Action } from '../action-context.ts';
import { toolError } from '../errors.ts';
import { resolveRelay } from '../relay-name.ts';
import { requireAgentSessions } from '../require-agent-sessions.ts';
import { count, success } from '../result.ts';

export const listSessions: Action = async (args, { caller, relayName, settings, paired, sessions }) => {
  const scope = parseScope(args.scope);
  const target = resolveRelay(args.relay, relayName, paired);
  if (target.kind === 'paired') {
    throw toolError('REMOTE_RELAY_UNSUPPORTED', `Calls to paired relays are not available on this relay yet; "${target.relay.name}" cannot be reached from here.`);
  }
  requireAgentSessions(settings);
  const found = await sessions.listSessions(caller.userId, scope);
  return success(`list_sessions → ${target.name}: ${count(found.length, 'session')}`, { sessions: found.map(sessionView) }, target.name);
};

function parseScope(scope: string | undefined): SessionScope {
  if (scope === undefined) return 'active';
  const wanted = scope.trim().toLowerCase();
  const known = SESSION_SCOPES.find((candidate) => candidate === wanted);
  if (known) return known;
  throw toolError('REMOTE_RELAY_INVALID_INPUT', `list_sessions: scope "${scope}" is not one of ${SESSION_SCOPES.map((s) => `"${s}"`).join(', ')}.`);
}
