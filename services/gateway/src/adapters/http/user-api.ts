/**
 * What every /api/v1 route shares: the user behind a user's own bearer token, the one mapping from
 * an owner's refusal (AppError kind) to an HTTP status, the `{ code, error }` body of a refusal, and
 * the shapes of their common parameters.
 */
import { INTERNAL_CODE, isAppError, type ErrorKind } from '@relay/errors';
import type { Logger } from '@relay/telemetry';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AuthenticatedCaller } from '../../domain/caller.ts';
import type { SessionClient } from '../../app/ports.ts';
import { isToolErrorCode } from '../../domain/errors.ts';
import { authenticateBearer, setRefusalHeaders } from './authenticate-bearer.ts';

/** The `:id` of a /sessions/:id route. */
export const SessionParams = z.object({ id: z.string().min(1) });

/** A query parameter `name` holding a whole number from 1 to `max`, `fallback` when absent. */
export function wholeNumberQuery(name: string, max: number, fallback: number) {
  const error = `${name} must be a whole number from 1 to ${max}`;
  return z.coerce.number({ error }).int({ error }).min(1, { error }).max(max, { error }).default(fallback);
}

/** What the helpers below need: tokens are checked by the session service. */
export interface UserApiDeps {
  sessions: SessionClient;
  logger: Logger;
}

/** The HTTP status of each kind of refusal; a kind not listed is a fault (500). */
export const STATUS_BY_KIND: Partial<Record<ErrorKind, number>> = {
  invalid_argument: 400,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  already_exists: 409,
  failed_precondition: 409,
  resource_exhausted: 429,
  unimplemented: 501,
  unavailable: 503,
  deadline_exceeded: 503,
};

// The user API is the user's own: a session's token (an agent) uses relay_tool instead.
/** The user behind a user token; answers 401/403/503 itself and returns undefined otherwise. */
export async function userOf(deps: UserApiDeps, request: FastifyRequest, reply: FastifyReply): Promise<string | undefined> {
  return (await callerOf(deps, request, reply))?.userId;
}

// What is relay-wide (relay settings, pairings, users) is for admins: in a team one member must not switch
// agent sessions off for everyone. Reading stays open to every user.
/** The user behind a user token when they are an admin; a member gets 403 REMOTE_RELAY_FORBIDDEN saying so. */
export async function adminOf(deps: UserApiDeps, request: FastifyRequest, reply: FastifyReply, what: string): Promise<string | undefined> {
  const caller = await callerOf(deps, request, reply);
  if (caller === undefined) return undefined;
  if (caller.role !== 'admin') {
    sendError(reply, 403, 'REMOTE_RELAY_FORBIDDEN', `Only an admin of this relay can ${what}; ask an admin to do it.`);
    return undefined;
  }
  return caller.userId;
}

/** The user behind a user token, with their role; answers 401/403/503 itself and returns undefined otherwise. */
export async function callerOf(deps: UserApiDeps, request: FastifyRequest, reply: FastifyReply): Promise<AuthenticatedCaller | undefined> {
  const outcome = await authenticateBearer(request, deps.sessions, deps.logger);
  if (!outcome.ok) {
    setRefusalHeaders(reply, outcome);
    sendError(reply, outcome.status, outcome.status === 503 ? INTERNAL_CODE : 'UNAUTHENTICATED', outcome.message);
    return undefined;
  }
  if (outcome.caller.sessionId !== undefined) {
    sendError(reply, 403, 'REMOTE_RELAY_FORBIDDEN', "This is a session's token; the user API takes a user's own token.");
    return undefined;
  }
  return (await request.server.fairCalls.admit(request, reply, outcome.caller)) ? outcome.caller : undefined;
}

// An owner's catalogued refusal reaches the user with its code and message; anything else is hidden.
/** Runs an owner call; a refusal or fault is answered on `reply` and undefined returned. */
export async function callOwner<T>(reply: FastifyReply, logger: Logger, call: () => Promise<T>): Promise<T | undefined> {
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

/** 400 REMOTE_RELAY_INVALID_INPUT with the zod issues. */
export function sendInvalid(reply: FastifyReply, error: z.ZodError): FastifyReply {
  return sendError(reply, 400, 'REMOTE_RELAY_INVALID_INPUT', error.issues.map((issue) => issue.message).join('; '));
}

/** A refusal: `status` with `{ code, error }`. */
export function sendError(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  return reply.code(status).send({ code, error: message });
}
