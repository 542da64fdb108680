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
import { callOwner, SessionParams, userOf, wholeNumberQuery, type UserApiDeps } from '../user-api.ts';
import { answers, invalidInput, typed } from '../openapi.ts';
import { Message, Session, TestCounts } from '../api-schemas.ts';

const MessageParams = z.object({ id: z.string().min(1), messageId: z.string().min(1) });
const TaskParams = z.object({ id: z.string().min(1), taskId: z.string().min(1) });
const TaskOutputQuery = z.object({ lines: wholeNumberQuery('lines', TASK_LINES_MAX, TASK_LINES_DEFAULT) });
const DailyUsageQuery = z.object({ days: wholeNumberQuery('days', DAILY_USAGE_DAYS_MAX, DAILY_USAGE_DAYS_DEFAULT) });

const time = z.string().nullable();

const TaskOutput = z
  .strictObject({
    session: z.string(),
    task: z.strictObject({
      id: z.string(),
      description: z.string(),
      type: z.string(),
      start: time,
      status: z.string(),
      exitCode: z.number().int().nullable(),
      reason: z.string().optional(),
    }),
    stall: z.strictObject({ minutes: z.number(), since: time, quiet: z.boolean(), quietAfterMinutes: z.number() }).optional(),
    counts: TestCounts.optional(),
    tail: z.array(z.string()).describe("The output's last lines."),
    truncated: z.boolean(),
    notes: z.array(z.string()).optional(),
  })
  .meta({ id: 'TaskOutput', description: "The end of a task's output, as read_task_output answers it." });

const UsageReport = z
  .strictObject({
    providers: z.array(
      z.strictObject({
        provider: z.string(),
        status: z.string().describe('ok, limit_reached, paused, not_tracked or not_set_up.'),
        reason: z.string().optional(),
        meters: z.array(
          z.strictObject({
            name: z.string(),
            used: z.number(),
            allowance: z.number().nullable(),
            remaining: z.number().nullable(),
            utilization: z.number().nullable(),
            resetsAt: time,
          }),
        ),
        pausedUntil: z.string().optional(),
      }),
    ),
    claudeUsageLimitPaused: z.boolean(),
  })
  .meta({ id: 'UsageReport', description: "What each provider's plan has used this month and has left." });

const DailyUsage = z
  .strictObject({
    days: z.array(z.string()).describe('The UTC days, oldest first.'),
    providers: z.array(
      z.strictObject({
        provider: z.string(),
        costTracked: z.boolean(),
        days: z.array(
          z.strictObject({
            day: z.string(),
            tokens: z.number(),
            inputTokens: z.number(),
            outputTokens: z.number(),
            costUsd: z.number(),
            turns: z.number().int(),
          }),
        ),
      }),
    ),
  })
  .meta({ id: 'DailyUsage', description: 'What each tracked provider used on each day (cost 0 where it is not tracked).' });

const SessionAnswer = z.strictObject({ session: Session });

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
  const api = typed(app);
  const Stopped = z.strictObject({ session: z.string(), stopRequested: z.boolean().describe('Whether a running turn was asked to stop.') });
  api.post('/api/v1/sessions/:id/stop', { schema: { params: SessionParams, response: answers(Stopped) }, attachValidation: true }, async (request, reply) => {
    const userId = await userOf(deps, request, reply);
    if (userId === undefined || invalidInput(request, reply)) return reply;
    const { id } = request.params;
    const stopped = await callOwner(reply, deps.logger, () => deps.sessions.stopTurn({ userId, callerSessionId: '', sessionId: id }));
    if (stopped === undefined) return reply;
    return { session: id, stopRequested: stopped.stopRequested };
  });

  api.post(
    '/api/v1/sessions/:id/archive',
    { schema: { params: SessionParams, response: answers(SessionAnswer) }, attachValidation: true },
    async (request, reply) => {
      const userId = await userOf(deps, request, reply);
      if (userId === undefined || invalidInput(request, reply)) return reply;
      const { id } = request.params;
      const archived = await callOwner(reply, deps.logger, () => deps.sessions.archiveSession({ userId, callerSessionId: '', sessionId: id }));
      if (archived === undefined) return reply;
      return { session: sessionView(answered(archived.session, 'ArchiveSession', 'session')) };
    },
  );

  api.post(
    '/api/v1/sessions/:id/unarchive',
    { schema: { params: SessionParams, response: answers(SessionAnswer) }, attachValidation: true },
    async (request, reply) => {
      const userId = await userOf(deps, request, reply);
      if (userId === undefined || invalidInput(request, reply)) return reply;
      const { id } = request.params;
      const unarchived = await callOwner(reply, deps.logger, () => deps.sessions.unarchiveSession({ userId, sessionId: id }));
      if (unarchived === undefined) return reply;
      return { session: sessionView(answered(unarchived.session, 'UnarchiveSession', 'session')) };
    },
  );

  // Renaming and regrouping are update_session's title and group, made by the session's own user.
  const SettingsChange = z.strictObject({
    session: Session,
    changed: z.array(z.string()).describe('The fields that changed.'),
    groupCreated: z.strictObject({ id: z.string(), name: z.string() }).optional().describe('The group a new name made.'),
    note: z.string().optional(),
  });
  api.patch(
    '/api/v1/sessions/:id/settings',
    { schema: { params: SessionParams, body: SettingsBody, response: answers(SettingsChange) }, attachValidation: true },
    async (request, reply) => {
      const userId = await userOf(deps, request, reply);
      if (userId === undefined || invalidInput(request, reply)) return reply;
      const { params, body } = request;
      const change = { ...(body.title !== undefined ? { title: body.title } : {}), ...(body.group !== undefined ? { group: body.group } : {}) };
      const updated = await callOwner(reply, deps.logger, () => updateUserSession(deps.sessions, userId, params.id, change));
      if (updated === undefined) return reply;
      const { result, session } = updated;
      return {
        session: sessionView(session),
        changed: result.changed,
        ...(result.groupCreated ? { groupCreated: { id: result.groupCreated.id, name: result.groupCreated.name } } : {}),
        ...(result.note ? { note: result.note } : {}),
      };
    },
  );

  // The whole of a message a session read cut at MESSAGE_TEXT_LIMIT characters, for its user.
  const WholeMessage = z.strictObject({ session: z.string(), message: Message });
  api.get(
    '/api/v1/sessions/:id/messages/:messageId',
    { schema: { params: MessageParams, response: answers(WholeMessage) }, attachValidation: true },
    async (request, reply) => {
      const userId = await userOf(deps, request, reply);
      if (userId === undefined || invalidInput(request, reply)) return reply;
      const { id, messageId } = request.params;
      const message = await callOwner(reply, deps.logger, () => readUserMessage(deps.sessions, userId, id, messageId));
      if (message === undefined) return reply;
      return { session: id, message: messageView(message) };
    },
  );

  // The end of a task's output, as read_task_output answers it; the session service answers only the user's own
  // sessions' tasks (another's is REMOTE_RELAY_NOT_FOUND, like one that does not exist).
  api.get(
    '/api/v1/sessions/:id/tasks/:taskId/output',
    { schema: { params: TaskParams, querystring: TaskOutputQuery, response: answers(TaskOutput) }, attachValidation: true },
    async (request, reply) => {
      const userId = await userOf(deps, request, reply);
      if (userId === undefined || invalidInput(request, reply)) return reply;
      const { id, taskId } = request.params;
      const read = await callOwner(reply, deps.logger, () => deps.sessions.readTaskOutput({ userId, sessionId: id, taskId, lines: request.query.lines }));
      if (read === undefined) return reply;
      return { session: id, ...taskOutputView(read) };
    },
  );

  api.get('/api/v1/usage', { schema: { response: answers(UsageReport) } }, async (request, reply) => {
    const userId = await userOf(deps, request, reply);
    if (userId === undefined) return reply;
    const info = await callOwner(reply, deps.logger, () => deps.sessions.getRelayInfo({ userId, withoutUsage: false }));
    if (info === undefined) return reply;
    return usageReportView(info);
  });

  // Usage over time: relay-wide per provider, as the monthly meters above; ?days=N (1–366, default 30) UTC days to today.
  api.get(
    '/api/v1/usage/daily',
    { schema: { querystring: DailyUsageQuery, response: answers(DailyUsage) }, attachValidation: true },
    async (request, reply) => {
      const userId = await userOf(deps, request, reply);
      if (userId === undefined || invalidInput(request, reply)) return reply;
      const answer = await callOwner(reply, deps.logger, () => deps.sessions.getDailyUsage({ days: request.query.days }));
      if (answer === undefined) return reply;
      return dailyUsageView(answer);
    },
  );
}
