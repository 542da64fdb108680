/**
 * The user's side of a session in /api/v1, for a user's own bearer token: stop its turn, archive and
 * unarchive it, rename it or move it into (or out of) a group, read the whole of a long message or the end of a
 * task's output; and the usage report, what each provider's
 * plan has used and has left, and usage over time, what each used day by day. What an agent does with relay_tool's stop, archive, update_session and usage,
 * the user does here as themselves (no card: they are the one who would Allow it). Errors answer `{ code, error }`.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { TASK_LINES_DEFAULT, TASK_LINES_MAX, taskOutputView } from '../../../app/relay-tool/actions/read-task-output.ts';
import { usageReportView } from '../../../app/relay-tool/actions/usage.ts';
import { answered } from '../../../domain/answers.ts';
import { readUserMessage, updateUserSession } from '../../../app/user-sessions.ts';
import { messageView, sessionView } from '../../../app/views/session-view.ts';
import { DAILY_USAGE_DAYS_DEFAULT, DAILY_USAGE_DAYS_MAX, dailyUsageView } from '../../../app/views/daily-usage-view.ts';
import { callOwner, SessionParams, sendInvalid, userOf, wholeNumberQuery, type UserApiDeps } from '../user-api.ts';

const MessageParams = z.object({ id: z.string().min(1), messageId: z.string().min(1) });
const TaskParams = z.object({ id: z.string().min(1), taskId: z.string().min(1) });
const TaskOutputQuery = z.object({ lines: wholeNumberQuery('lines', TASK_LINES_MAX, TASK_LINES_DEFAULT) });
const DailyUsageQuery = z.object({ days: wholeNumberQuery('days', DAILY_USAGE_DAYS_MAX, DAILY_USAGE_DAYS_DEFAULT) });

const SettingsBody = z
  .object(
    {
      title: z.string({ error: 'title must be a string' }).trim().min(1, { error: 'title must not be empty' }).optional(),
      // A group's id or name (a new name makes the group); "" takes the session out of its group.
      group: z.string({ error: 'group must be a string: a group id or name, or "" for none' }).trim().optional(),
    },
    { error: 'the body must be a JSON object, for example {"title": "Review"} or {"group": "Release"}' },
  )
  .refine((body) => body.title !== undefined || body.group !== undefined, { error: 'give title, group or both' });

/**
 * Registers POST /api/v1/sessions/:id/stop, /archive, /unarchive, PATCH /api/v1/sessions/:id/settings,
 * GET /api/v1/sessions/:id/messages/:messageId, GET /api/v1/sessions/:id/tasks/:taskId/output, GET /api/v1/usage and
 * GET /api/v1/usage/daily on `app`.
 */
export function registerSessionActionRoutes(app: FastifyInstance, deps: UserApiDeps): void {
  app.post('/api/v1/sessions/:id/stop', async (request, reply) => {
    const userId = await userOf(deps, request, reply);
    if (userId === undefined) return reply;
    const { id } = SessionParams.parse(request.params);
    const stopped = await callOwner(reply, deps.logger, () => deps.sessions.stopTurn({ userId, callerSessionId: '', sessionId: id }));
    if (stopped === undefined) return reply;
    return { session: id, stopRequested: stopped.stopRequested };
  });

  app.post('/api/v1/sessions/:id/archive', async (request, reply) => {
    const userId = await userOf(deps, request, reply);
    if (userId === undefined) return reply;
    const { id } = SessionParams.parse(request.params);
    const archived = await callOwner(reply, deps.logger, () => deps.sessions.archiveSession({ userId, callerSessionId: '', sessionId: id }));
    if (archived === undefined) return reply;
    return { session: sessionView(answered(archived.session, 'ArchiveSession', 'session')) };
  });

  app.post('/api/v1/sessions/:id/unarchive', async (request, reply) => {
    const userId = await userOf(deps, request, reply);
    if (userId === undefined) return reply;
    const { id } = SessionParams.parse(request.params);
    const unarchived = await callOwner(reply, deps.logger, () => deps.sessions.unarchiveSession({ userId, sessionId: id }));
    if (unarchived === undefined) return reply;
    return { session: sessionView(answered(unarchived.session, 'UnarchiveSession', 'session')) };
  });

  // Renaming and regrouping are update_session's title and group, made by the session's own user.
  app.patch('/api/v1/sessions/:id/settings', async (request, reply) => {
    const userId = await userOf(deps, request, reply);
    if (userId === undefined) return reply;
    const { id } = SessionParams.parse(request.params);
    const body = SettingsBody.safeParse(request.body);
    if (!body.success) return sendInvalid(reply, body.error);
    const change = { ...(body.data.title !== undefined ? { title: body.data.title } : {}), ...(body.data.group !== undefined ? { group: body.data.group } : {}) };
    const updated = await callOwner(reply, deps.logger, () => updateUserSession(deps.sessions, userId, id, change));
    if (updated === undefined) return reply;
    const { result, session } = updated;
    return {
      session: sessionView(session),
      changed: result.changed,
      ...(result.groupCreated ? { groupCreated: { id: result.groupCreated.id, name: result.groupCreated.name } } : {}),
      ...(result.note ? { note: result.note } : {}),
    };
  });

  // The whole of a message a session read cut at MESSAGE_TEXT_LIMIT characters, for its user.
  app.get('/api/v1/sessions/:id/messages/:messageId', async (request, reply) => {
    const userId = await userOf(deps, request, reply);
    if (userId === undefined) return reply;
    const { id, messageId } = MessageParams.parse(request.params);
    const message = await callOwner(reply, deps.logger, () => readUserMessage(deps.sessions, userId, id, messageId));
    if (message === undefined) return reply;
    return { session: id, message: messageView(message) };
  });

  // The end of a task's output, as read_task_output answers it; the session service answers only the user's own
  // sessions' tasks (another's is REMOTE_RELAY_NOT_FOUND, like one that does not exist).
  app.get('/api/v1/sessions/:id/tasks/:taskId/output', async (request, reply) => {
    const userId = await userOf(deps, request, reply);
    if (userId === undefined) return reply;
    const { id, taskId } = TaskParams.parse(request.params);
    const query = TaskOutputQuery.safeParse(request.query);
    if (!query.success) return sendInvalid(reply, query.error);
    const read = await callOwner(reply, deps.logger, () => deps.sessions.readTaskOutput({ userId, sessionId: id, taskId, lines: query.data.lines }));
    if (read === undefined) return reply;
    return { session: id, ...taskOutputView(read) };
  });

  app.get('/api/v1/usage', async (request, reply) => {
    const userId = await userOf(deps, request, reply);
    if (userId === undefined) return reply;
    const info = await callOwner(reply, deps.logger, () => deps.sessions.getRelayInfo({ userId, withoutUsage: false }));
    if (info === undefined) return reply;
    return usageReportView(info);
  });

  // Usage over time: relay-wide per provider, as the monthly meters above; ?days=N (1–366, default 30) UTC days to today.
  app.get('/api/v1/usage/daily', async (request, reply) => {
    const userId = await userOf(deps, request, reply);
    if (userId === undefined) return reply;
    const query = DailyUsageQuery.safeParse(request.query);
    if (!query.success) return sendInvalid(reply, query.error);
    const answer = await callOwner(reply, deps.logger, () => deps.sessions.getDailyUsage({ days: query.data.days }));
    if (answer === undefined) return reply;
    return dailyUsageView(answer);
  });
}
