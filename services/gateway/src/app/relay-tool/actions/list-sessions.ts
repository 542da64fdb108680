/**
 * list_sessions: lists the sessions of the caller's user with id, title, provider, model, state,
 * cwd, the time of the last activity, a message count and their tasks; a session in a group also
 * has group (id, name, its role), one an agent started startedBy ("via agent"), and one whose owner
 * let it start sessions mayCreateSessions. `scope` is "active" (default), "archived" or "all".
 * At most LIST_SESSIONS_PAGE of them, the most recently active first, as the spec caps its other
 * lists (groups, groupsTotal): sessionsTotal and a note when there are more, and `page` (this
 * relay's extension) reads the rest.
 */
import { SESSION_SCOPES, type SessionScope, sessionView } from '../../views/session-view.ts';
import type { ActionContext } from '../action-context.ts';
import { defineAction } from '../define-action.ts';
import { argumentsOf, type ToolArguments } from '../../../domain/tool-arguments.ts';
import { toolError } from '../../../domain/errors.ts';
import { LIST_SESSIONS_PAGE, LIST_SESSIONS_PAGES_MAX, sessionPages } from '../../../domain/limits.ts';
import { count, success, type Success } from '../../../domain/result.ts';
import { thisRelay } from '../../../domain/this-relay.ts';

export const listSessions = defineAction({
  name: 'list_sessions',
  args: argumentsOf('relay', 'scope', 'page'),
  relay: 'required',
  write: false,
  answersAtOnce: true,
  toPaired: { level: 'read', forwarded: true },
  handler: runListSessions,
  fromPaired: (args, context) => runListSessions(args, context),
});

async function runListSessions(args: ToolArguments, context: ActionContext): Promise<Success> {
  const scope = parseScope(args.scope);
  const page = parsePage(args.page);
  const relay = thisRelay(args.relay, context);
  const {
    sessions: found,
    total = found.length,
    pending,
  } = await context.sessions.listSessions({
    userId: context.caller.userId,
    scope,
    limit: LIST_SESSIONS_PAGE,
    offset: (page - 1) * LIST_SESSIONS_PAGE,
    pendingForSessionId: context.pendingAlong?.sessionId,
  });
  context.pendingAlong?.answered(pending);
  const sessions = found.map(sessionView);
  if (total === found.length && page === 1) return success(`list_sessions → ${relay}: ${count(found.length, 'session')}`, { sessions }, relay);
  const pages = sessionPages(total);
  return success(
    `list_sessions → ${relay}: ${found.length} of ${count(total, 'session')} (page ${page} of ${pages})`,
    { sessions, sessionsTotal: total, page, note: pageNote(page, pages, found.length, total) },
    relay,
  );
}

/** Which sessions a page shows and how to read the others. */
function pageNote(page: number, pages: number, shown: number, total: number): string {
  if (shown === 0) return `Page ${page} is past the last one: ${count(total, 'session')} fill ${count(pages, 'page')} of ${LIST_SESSIONS_PAGE}.`;
  const first = (page - 1) * LIST_SESSIONS_PAGE + 1;
  const which = `Sessions ${first}–${first + shown - 1} of ${total}, the most recently active first.`;
  return page < pages ? `${which} Call list_sessions with "page": ${page + 1} for the next ${LIST_SESSIONS_PAGE}.` : which;
}

function parseScope(scope: string | undefined): SessionScope {
  if (scope === undefined) return 'active';
  const wanted = scope.trim().toLowerCase();
  const known = SESSION_SCOPES.find((candidate) => candidate === wanted);
  if (known) return known;
  throw toolError('REMOTE_RELAY_INVALID_INPUT', `list_sessions: scope "${scope}" is not one of ${SESSION_SCOPES.map((s) => `"${s}"`).join(', ')}.`);
}

function parsePage(page: number | undefined): number {
  if (page === undefined) return 1;
  if (page >= 1 && page <= LIST_SESSIONS_PAGES_MAX) return page;
  throw toolError('REMOTE_RELAY_INVALID_INPUT', `list_sessions: page must be from 1 to ${LIST_SESSIONS_PAGES_MAX}; got ${page}.`);
}
