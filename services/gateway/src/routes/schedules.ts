/**
 * The header's ⏰ list, /api/v1/schedules, for a user's own bearer token: the user's schedules (or one
 * conversation's: those firing into it or set by it), active and ended in the last hour, and Cancel
 * (DELETE). Errors answer `{ code, error }` with 400, 401, 403, 404 (or 503 when the scheduler does not answer).
 */
import { INTERNAL_CODE, isAppError, type ErrorKind } from '@relay/errors';
import type { Logger } from '@relay/telemetry';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { authenticateBearer } from '../http/authenticate-bearer.ts';
import type { SessionOwner } from '../ports.ts';
import { GRID_NOTE, scheduleView } from '../relay-tool/actions/list-schedules.ts';
import type { SchedulerOwner } from '../scheduler-owner.ts';

export interface ScheduleRouteDeps {
  sessions: SessionOwner;
  schedules?: SchedulerOwner;
  logger: Logger;
}

const ListQuery = z.object({ session: z.string({ error: 'session must be a session id' }).optional() });
const ScheduleParams = z.object({ id: z.string().min(1) });

/** Registers GET /api/v1/schedules and DELETE /api/v1/schedules/:id on `app`. */
export function registerScheduleRoutes(app: FastifyInstance, deps: ScheduleRouteDeps): void {
  app.get('/api/v1/schedules', async (request, reply) => {
    const userId = await userOf(deps, request, reply);
    if (userId === undefined || !deps.schedules) return deps.schedules ? reply : unsupported(reply);
    const query = ListQuery.safeParse(request.query ?? {});
    if (!query.success) return sendError(reply, 400, 'REMOTE_RELAY_INVALID_INPUT', query.error.issues.map((issue) => issue.message).join('; '));
    const scheduler = deps.schedules;
    const schedules = await callOwner(reply, deps.logger, () => scheduler.listSchedules(userId, query.data.session ?? ''));
    if (schedules === undefined) return reply;
    return { schedules: schedules.map(scheduleView), note: GRID_NOTE };
  });

  // Cancel in the ⏰ list: ends the schedule with endReason "unscheduled".
  app.delete('/api/v1/schedules/:id', async (request, reply) => {
    const userId = await userOf(deps, request, reply);
    if (userId === undefined || !deps.schedules) return deps.schedules ? reply : unsupported(reply);
    const { id } = ScheduleParams.parse(request.params);
    const scheduler = deps.schedules;
    const ended = await callOwner(reply, deps.logger, () => scheduler.endSchedule(userId, '', id));
    if (ended === undefined) return reply;
    return { schedule: scheduleView(ended) };
  });
}

// Schedules are the user's to cancel here: a session's token (an agent) uses relay_tool instead.
async function userOf(deps: ScheduleRouteDeps, request: FastifyRequest, reply: FastifyReply): Promise<string | undefined> {
  const outcome = await authenticateBearer(request.headers.authorization, deps.sessions, deps.logger);
  if (!outcome.ok) {
    if (outcome.status === 401) reply.header('www-authenticate', 'Bearer realm="relay", error="invalid_token"');
    sendError(reply, outcome.status, outcome.status === 401 ? 'UNAUTHENTICATED' : INTERNAL_CODE, outcome.message);
    return undefined;
  }
  if (outcome.caller.sessionId !== undefined) {
    sendError(reply, 403, 'REMOTE_RELAY_FORBIDDEN', "This is a session's token; the schedules list takes a user's own token.");
    return undefined;
  }
  return outcome.caller.userId;
}

function unsupported(reply: FastifyReply): FastifyReply {
  return reply.sent ? reply : sendError(reply, 501, 'REMOTE_RELAY_UNSUPPORTED', 'This gateway runs without the scheduler.');
}

const STATUS_BY_KIND: Partial<Record<ErrorKind, number>> = {
  invalid_argument: 400,
  permission_denied: 403,
  not_found: 404,
};

// The scheduler's refusals (REMOTE_RELAY_*) reach the user with their code and message; anything else is hidden.
async function callOwner<T>(reply: FastifyReply, logger: Logger, call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    const status = isAppError(error) && error.code.startsWith('REMOTE_RELAY_') ? STATUS_BY_KIND[error.kind] : undefined;
    if (isAppError(error) && status !== undefined) {
      sendError(reply, status, error.code, error.message);
      return undefined;
    }
    logger.error({ err: error }, 'schedules API call failed');
    const unreachable = isAppError(error) && (error.kind === 'unavailable' || error.kind === 'deadline_exceeded');
    sendError(reply, unreachable ? 503 : 500, INTERNAL_CODE, unreachable ? 'The scheduler did not answer; try again in a moment.' : 'internal error');
    return undefined;
  }
}

function sendError(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  return reply.code(status).send({ code, error: message });
}
