/**
 * This relay's settings, /api/v1/settings, for a user's own bearer token (Settings → Relays → Agent
 * sessions): Agents may start and use sessions on this relay, Longest wait per tool call, Max turn
 * duration and the quiet setting for tasks. The session service owns them and their ranges; a bad
 * value answers 400 REMOTE_RELAY_INVALID_INPUT naming the field, and nothing changes. Every user reads them;
 * only an admin changes them (they are the whole relay's), a member gets 403 REMOTE_RELAY_FORBIDDEN.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { adminOf, callOwner, sendError, sendInvalid, userOf, type UserApiDeps } from '../user-api.ts';
import type { RelaySettings } from '@relay/proto/relay/session/v1/session';
import { answered } from '../../../domain/answers.ts';

const FIELDS = ['agent_sessions_enabled', 'max_wait_seconds', 'max_turn_minutes', 'task_quiet_minutes'] as const;

const wholeNumber = (field: string, unit: string) =>
  z.number({ error: `${field} must be a whole number of ${unit}` }).int({ error: `${field} must be a whole number of ${unit}` }).optional();

const SettingsBody = z.strictObject(
  {
    agent_sessions_enabled: z.boolean({ error: 'agent_sessions_enabled must be true or false' }).optional(),
    max_wait_seconds: wholeNumber('max_wait_seconds', 'seconds'),
    max_turn_minutes: wholeNumber('max_turn_minutes', 'minutes'),
    task_quiet_minutes: wholeNumber('task_quiet_minutes', 'minutes'),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `${issue.keys.join(', ')} ${issue.keys.length === 1 ? 'is not a setting' : 'are not settings'}; the settings are ${FIELDS.join(', ')}`
        : 'the body must be a JSON object, for example {"agent_sessions_enabled": true, "max_wait_seconds": 900}',
  },
);

/** Registers GET and PATCH /api/v1/settings on `app`. */
export function registerRelaySettingsRoutes(app: FastifyInstance, deps: UserApiDeps): void {
  app.get('/api/v1/settings', async (request, reply) => {
    if ((await userOf(deps, request, reply)) === undefined) return reply;
    const read = await callOwner(reply, deps.logger, () => deps.sessions.getRelaySettings({}));
    if (read === undefined) return reply;
    return { settings: settingsView(answered(read.settings, 'GetRelaySettings', 'settings')) };
  });

  app.patch('/api/v1/settings', async (request, reply) => {
    if ((await adminOf(deps, request, reply, "change the relay's settings")) === undefined) return reply;
    const body = SettingsBody.safeParse(request.body);
    if (!body.success) return sendInvalid(reply, body.error);
    if (FIELDS.every((field) => body.data[field] === undefined)) {
      return sendError(reply, 400, 'REMOTE_RELAY_INVALID_INPUT', `give at least one of ${FIELDS.join(', ')}`);
    }
    const change = {
      agentSessionsEnabled: body.data.agent_sessions_enabled,
      maxWaitSeconds: body.data.max_wait_seconds,
      maxTurnMinutes: body.data.max_turn_minutes,
      taskQuietMinutes: body.data.task_quiet_minutes,
    };
    const updated = await callOwner(reply, deps.logger, () => deps.sessions.updateRelaySettings(change));
    if (updated === undefined) return reply;
    return { settings: settingsView(answered(updated.settings, 'UpdateRelaySettings', 'settings')), changed: updated.changed };
  });
}

/** The settings as the user API shows them. */
function settingsView(settings: RelaySettings) {
  return {
    agentSessionsEnabled: settings.agentSessionsEnabled,
    maxWaitSeconds: settings.maxWaitSeconds,
    maxTurnMinutes: settings.maxTurnMinutes,
    taskQuietMinutes: settings.taskQuietMinutes,
  };
}
