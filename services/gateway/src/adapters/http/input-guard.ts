/**
 * The bounds of relay_tool's arguments (domain/input-bounds.ts) on the user API and on /relay/v1: every
 * string of a request's path parameters, query and JSON body is checked before any route runs, and a NUL, a
 * lone surrogate, a string over its length or an id that is none answers 400 REMOTE_RELAY_INVALID_INPUT naming
 * the field. A field is bounded by its name: relay_tool's own argument names as relay_tool bounds them, the
 * names below, and any other as a text.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findBoundFault, preview, type Bound } from '../../domain/input-bounds.ts';
import { boundOf } from '../../domain/tool-arguments.ts';
import { sendError } from './user-api.ts';

/** The routes' own field names that are not relay_tool arguments. */
const HTTP_FIELDS: Record<string, Bound> = {
  id: 'id',
  subscriptionId: 'id',
  askingSessionId: 'id',
  asking_session_id: 'id',
  asked_by: 'id',
  name: 'name',
  code: 'name',
  choice: 'name',
  decision: 'name',
  level: 'name',
  version: 'name',
  token: 'name',
  url: 'path',
};

/** The prefixes of the routes the guard checks; /mcp answers JSON-RPC and relay_tool checks its own arguments. */
const GUARDED = ['/api/', '/relay/'];

/** Checks every /api and /relay request before its route runs. */
export function registerInputGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request, reply) => {
    if (!GUARDED.some((prefix) => request.url.startsWith(prefix))) return;
    const refused = refusalOf(request);
    if (refused !== undefined) return refuse(reply, refused);
  });
}

function refusalOf(request: FastifyRequest): string | undefined {
  const parts: [string, unknown][] = [
    ['in the path', request.params],
    ['in the query', request.query],
    ['in the body', request.body],
  ];
  for (const [where, value] of parts) {
    const found = findBoundFault(value, '', boundOfField);
    if (found === undefined) continue;
    const field = found.field.replace(/^\./, '');
    return field === '' ? `The request's body ${found.fault}.` : `${preview(field)} ${where} ${found.fault}.`;
  }
  return undefined;
}

/** The bound of the strings at `field` ("title", "arguments.session", "options[2]"): by the name that holds them. */
function boundOfField(field: string): Bound {
  const name = /([^.[\]]+)(?:\[\d+\])*$/.exec(field)?.[1] ?? '';
  return Object.hasOwn(HTTP_FIELDS, name) ? HTTP_FIELDS[name]! : boundOf(name);
}

function refuse(reply: FastifyReply, message: string): FastifyReply {
  return sendError(reply, 400, 'REMOTE_RELAY_INVALID_INPUT', message);
}
