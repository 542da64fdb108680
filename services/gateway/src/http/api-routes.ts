/**
 * The user API, /api/v1, for a user's own bearer token: their sessions, external sessions for MCP
 * clients they run themselves, and what this relay is. Errors answer `{ code, error }`.
 */
import { INTERNAL_CODE, isAppError, type ErrorKind } from '@relay/errors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Logger } from '@relay/telemetry';
import { SESSION_SCOPES, type SessionOwner } from '../ports.ts';
import { isToolErrorCode } from '../relay-tool/errors.ts';
import { sessionView } from '../session-view.ts';
import { RELAY_VERSION } from '../version.ts';
import { authenticateBearer } from './authenticate-bearer.ts';

export interface ApiDeps {
  relayName: string;
  /** The base URL users and clients reach this gateway at, without a trailing slash. */
  publicUrl: string;
  sessions: SessionOwner;
  logger: Logger;
}

const ListQuery = z.object({
  scope: z.enum(SESSION_SCOPES, { error: `scope must be one of: ${SESSION_SCOPES.join(', ')}` }).default('active'),
});

const CreateBody = z.object(
  {
    external: z.literal(true, { error: 'only external sessions can be created through the API yet: send "external": true' }),
    // The session service owns the title's rules; it is only typed here.
    title: z.string({ error: 'title must be a string' }).optional(),
  },
  { error: 'the body must be a JSON object, for example {"external": true, "title": "My editor"}' },
);

/** Registers /api/v1 on `app`. */
export function registerApiRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const userOf = async (request: FastifyRequest, reply: FastifyReply) => {
    const outcome = await authenticateBearer(request.headers.authorization, deps.sessions, deps.logger);
    if (!outcome.ok) {
      if (outcome.status === 401) reply.header('www-authenticate', 'Bearer realm="relay", error="invalid_token"');
      sendError(reply, outcome.status, outcome.status === 401 ? 'UNAUTHENTICATED' : INTERNAL_CODE, outcome.message);
      return undefined;
    }
    if (outcome.caller.sessionId !== undefined) {
      sendError(reply, 403, 'REMOTE_RELAY_FORBIDDEN', "This is a session's token; the user API takes a user's own token.");
      return undefined;
    }
    return outcome.caller.userId;
  };

  app.get('/api/v1/relay', async (request, reply) => {
    if ((await userOf(request, reply)) === undefined) return reply;
    return {
      name: deps.relayName,
      version: RELAY_VERSION,
      urls: { base: deps.publicUrl, api: `${deps.publicUrl}/api/v1`, mcp: `${deps.publicUrl}/mcp` },
    };
  });

  app.get('/api/v1/sessions', async (request, reply) => {
    const userId = await userOf(request, reply);
    if (userId === undefined) return reply;
    const query = ListQuery.safeParse(request.query ?? {});
    if (!query.success) return sendInvalid(reply, query.error);
    const sessions = await callOwner(reply, deps.logger, () => deps.sessions.listSessions(userId, query.data.scope));
    if (sessions === undefined) return reply;
    return { sessions: sessions.map(sessionView) };
  });

  app.post('/api/v1/sessions', async (request, reply) => {
    const userId = await userOf(request, reply);
    if (userId === undefined) return reply;
    const body = CreateBody.safeParse(request.body);
    if (!body.success) return sendInvalid(reply, body.error);
    const created = await callOwner(reply, deps.logger, () => deps.sessions.createExternalSession(userId, body.data.title ?? ''));
    if (created === undefined) return reply;
    return reply.code(201).send({ session: sessionView(created.session), token: created.token, mcpUrl: `${deps.publicUrl}/mcp` });
  });
}

const STATUS_BY_KIND: Partial<Record<ErrorKind, number>> = {
  invalid_argument: 400,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  already_exists: 409,
  failed_precondition: 409,
  resource_exhausted: 429,
  unavailable: 503,
  deadline_exceeded: 503,
};

// An owner's catalogued refusal reaches the user with its code and message; anything else is hidden.
async function callOwner<T>(reply: FastifyReply, logger: Logger, call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    if (isAppError(error) && isToolErrorCode(error.code) && error.code !== INTERNAL_CODE) {
      sendError(reply, STATUS_BY_KIND[error.kind] ?? 500, error.code, error.message);
      return undefined;
    }
    logger.error({ err: error }, 'user API call failed');
    const unreachable = isAppError(error) && (error.kind === 'unavailable' || error.kind === 'deadline_exceeded');
    sendError(reply, unreachable ? 503 : 500, INTERNAL_CODE, unreachable ? 'A service of this relay did not answer; try again in a moment.' : 'internal error');
    return undefined;
  }
}

function sendInvalid(reply: FastifyReply, error: z.ZodError): FastifyReply {
  return sendError(reply, 400, 'REMOTE_RELAY_INVALID_INPUT', error.issues.map((issue) => issue.message).join('; '));
}

function sendError(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  return reply.code(status).send({ code, error: message });
}
