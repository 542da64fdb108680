/**
 * This relay's settings, /api/v1/settings, for a user's own bearer token (Settings → Relays → Agent
 * sessions): Agents may start and use sessions on this relay, Longest wait per tool call, Max turn
 * duration and the quiet setting for tasks. The session service owns them and their ranges; a bad
 * value answers 400 REMOTE_RELAY_INVALID_INPUT naming the field, and nothing changes. Every user reads them;
 * only an admin changes them (they are the whole relay's), a member gets 403 REMOTE_RELAY_FORBIDDEN.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { adminOf, callOwner, sendError, userOf, type UserApiDeps } from '../user-api.ts';
import { answers, invalidInput, typed } from '../openapi.ts';
import type { RelaySettings } from '@relay/proto/relay/session/v1/session';
import { answered } from '../../../domain/answers.ts';

const FIELDS = ['agent_sessions_enabled', 'max_wait_seconds', 'max_turn_minutes', 'task_quiet_minutes'] as const;

const wholeNumber = (field: string, unit: string) =>
  z
    .number({ error: `${field} must be a whole number of ${unit}` })
    .int({ error: `${field} must be a whole number of ${unit}` })
    .optional();

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

const Settings = z
  .strictObject({
    agentSessionsEnabled: z.boolean().describe('Agents may start and use sessions on this relay.'),
    maxWaitSeconds: z.number().int().describe('Longest wait per tool call.'),
    maxTurnMinutes: z.number().int().describe('Max turn duration.'),
    taskQuietMinutes: z.number().int().describe('Minutes without output after which a task counts as quiet.'),
  })
  .meta({ id: 'RelaySettings', description: "This relay's settings (Settings → Relays → Agent sessions)." });

/** Registers GET and PATCH /api/v1/settings on `app`. */
export function registerRelaySettingsRoutes(app: FastifyInstance, deps: UserApiDeps): void {
  const api = typed(app);
  api.get('/api/v1/settings', { schema: { response: answers(z.strictObject({ settings: Settings })) } }, async (request, reply) => {
    if ((await userOf(deps, request, reply)) === undefined) return reply;
    const read = await callOwner(reply, deps.logger, () => deps.sessions.getRelaySettings({}));
    if (read === undefined) return reply;
    return { settings: settingsView(answered(read.settings, 'GetRelaySettings', 'settings')) };
  });

  const Changed = z.strictObject({ settings: Settings, changed: z.array(z.string()).describe('The settings that changed.') });
  api.patch('/api/v1/settings', { schema: { body: SettingsBody, response: answers(Changed) }, attachValidation: true }, async (request, reply) => {
    if ((await adminOf(deps, request, reply, "change the relay's settings")) === undefined || invalidInput(request, reply)) return reply;
    const { body } = request;
    if (FIELDS.every((field) => body[field] === undefined)) {
      return sendError(reply, 400, 'REMOTE_RELAY_INVALID_INPUT', `give at least one of ${FIELDS.join(', ')}`);
    }
    const change = {
      agentSessionsEnabled: body.agent_sessions_enabled,
      maxWaitSeconds: body.max_wait_seconds,
      maxTurnMinutes: body.max_turn_minutes,
      taskQuietMinutes: body.task_quiet_minutes,
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
