/**
 * The header's ⏰ list, /api/v1/schedules, for a user's own bearer token: the user's schedules (or one
 * conversation's: those firing into it or set by it), active and ended in the last hour, and Cancel
 * (DELETE). Errors answer `{ code, error }` (../user-api.ts).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { callOwner, sendError, userOf, type UserApiDeps } from '../user-api.ts';
import { answers, invalidInput, typed } from '../openapi.ts';
import { Schedule } from '../api-schemas.ts';
import { GRID_NOTE, scheduleView } from '../../../app/views/schedule-view.ts';
import { answered } from '../../../domain/answers.ts';
import type { SchedulerClient } from '../../../app/ports.ts';

export interface ScheduleRouteDeps extends UserApiDeps {
  schedules?: SchedulerClient;
}

const ListQuery = z.object({ session: z.string({ error: 'session must be a session id' }).optional() });
const ScheduleParams = z.object({ id: z.string().min(1) });

/** Registers GET /api/v1/schedules and DELETE /api/v1/schedules/:id on `app`. */
export function registerScheduleRoutes(app: FastifyInstance, deps: ScheduleRouteDeps): void {
  const api = typed(app);
  const Listed = z.strictObject({
    schedules: z.array(Schedule),
    note: z.string().describe('How repeats keep to their grid.'),
    more: z.boolean().describe('More schedules are listed than the answer holds: it holds the newest 500, the oldest first.'),
  });
  api.get('/api/v1/schedules', { schema: { querystring: ListQuery, response: answers(Listed) }, attachValidation: true }, async (request, reply) => {
    const userId = await userOf(deps, request, reply);
    if (userId === undefined || !deps.schedules) return deps.schedules ? reply : unsupported(reply);
    if (invalidInput(request, reply)) return reply;
    const scheduler = deps.schedules;
    const listed = await callOwner(reply, deps.logger, () => scheduler.listSchedules({ userId, sessionId: request.query.session ?? '' }));
    if (listed === undefined) return reply;
    return { schedules: listed.schedules.map(scheduleView), note: GRID_NOTE, more: listed.more };
  });

  // Cancel in the ⏰ list: ends the schedule with endReason "unscheduled".
  api.delete(
    '/api/v1/schedules/:id',
    { schema: { params: ScheduleParams, response: answers(z.strictObject({ schedule: Schedule })) }, attachValidation: true },
    async (request, reply) => {
      const userId = await userOf(deps, request, reply);
      if (userId === undefined || !deps.schedules) return deps.schedules ? reply : unsupported(reply);
      if (invalidInput(request, reply)) return reply;
      const { id } = request.params;
      const scheduler = deps.schedules;
      const ended = await callOwner(reply, deps.logger, async () =>
        answered((await scheduler.endSchedule({ userId, sessionId: '', scheduleId: id })).schedule, 'EndSchedule', 'schedule'),
      );
      if (ended === undefined) return reply;
      return { schedule: scheduleView(ended) };
    },
  );
}

function unsupported(reply: FastifyReply): FastifyReply {
  return reply.sent ? reply : sendError(reply, 501, 'REMOTE_RELAY_UNSUPPORTED', 'This gateway runs without the scheduler.');
}
