/**
 * list_sessions: lists the sessions of the caller's user with id, title, provider, model, state,
 * cwd, the time of the last activity, a message count and their tasks; a session in a group also
 * has group (id, name, its role), one an agent started startedBy ("via agent"), and one whose owner
 * let it start sessions mayCreateSessions. `scope` is "active" (default), "archived" or "all".
 */
import { SESSION_SCOPES, type SessionScope, sessionView } from '../../views/session-view.ts';
import type { ActionContext } from '../action-context.ts';
import { defineAction } from '../define-action.ts';
import { argumentsOf, type ToolArguments } from '../../../domain/tool-arguments.ts';
import { toolError } from '../../../domain/errors.ts';
import { count, success, type Success } from '../../../domain/result.ts';
import { thisRelay } from '../../../domain/this-relay.ts';

export const listSessions = defineAction({
  name: 'list_sessions',
  args: argumentsOf('relay', 'scope'),
  relay: 'required',
  write: false,
  answersAtOnce: true,
  toPaired: { level: 'read', forwarded: true },
  handler: runListSessions,
  fromPaired: (args, context) => runListSessions(args, context),
});

async function runListSessions(args: ToolArguments, context: ActionContext): Promise<Success> {
  const scope = parseScope(args.scope);
  const relay = thisRelay(args.relay, context);
  const { sessions: found, pending } = await context.sessions.listSessions({
    userId: context.caller.userId,
    scope,
    pendingForSessionId: context.pendingAlong?.sessionId,
  });
  context.pendingAlong?.answered(pending);
  return success(`list_sessions → ${relay}: ${count(found.length, 'session')}`, { sessions: found.map(sessionView) }, relay);
}

function parseScope(scope: string | undefined): SessionScope {
  if (scope === undefined) return 'active';
  const wanted = scope.trim().toLowerCase();
  const known = SESSION_SCOPES.find((candidate) => candidate === wanted);
  if (known) return known;
  throw toolError('REMOTE_RELAY_INVALID_INPUT', `list_sessions: scope "${scope}" is not one of ${SESSION_SCOPES.map((s) => `"${s}"`).join(', ')}.`);
}
