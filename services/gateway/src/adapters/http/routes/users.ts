/**
 * The relay's users and tokens in the user API: GET /api/v1/me (any user: who the token is), and for admins
 * GET /api/v1/users (every user, never a token), POST /api/v1/users {name, role?}, which answers the new
 * user's token once (the session service keeps only its hash; a name taken, case aside, is 409
 * REMOTE_RELAY_USER_EXISTS), and DELETE /api/v1/users/:id (their tokens stop working at once, their sessions
 * are archived; never yourself, 403, nor the last admin, 409 REMOTE_RELAY_LAST_ADMIN). So a team adds and
 * removes people without kubectl exec.
 *
 * Tokens: POST /api/v1/users/:id/token answers a new personal token once and the old one stops working;
 * DELETE revokes it (an admin, or the user themselves). POST/DELETE /api/v1/sessions/:id/token do the same for
 * a session's token, for the session's user.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { UserSummary } from '@relay/proto/relay/session/v1/session_service';
import { USER_ROLES, userRoleOf } from '../../../domain/caller.ts';
import { answered } from '../../../domain/answers.ts';
import { adminOf, callerOf, callOwner, sendError, sendInvalid, type UserApiDeps } from '../user-api.ts';

const NewUserBody = z.strictObject(
  {
    name: z
      .string({ error: 'name (the new user\'s name) is required' })
      .trim()
      .min(1, { error: 'name must not be empty' }),
    role: z.enum(USER_ROLES, { error: `role must be one of: ${USER_ROLES.join(', ')}` }).optional(),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `${issue.keys.join(', ')} ${issue.keys.length === 1 ? 'is not a field' : 'are not fields'}; give name and optionally role`
        : 'the body must be a JSON object, for example {"name": "Ada", "role": "member"}',
  },
);

const IdParams = z.object({ id: z.string().min(1) });

/** A user as the user API shows them. */
function userView(user: UserSummary) {
  return { id: user.id, name: user.name, role: userRoleOf(user.role), createdAt: answered(user.createdAt, 'ListUsers', 'created_at').toISOString() };
}

/** Registers /api/v1/me, /api/v1/users[/:id[/token]] and /api/v1/sessions/:id/token on `app`. */
export function registerUserRoutes(app: FastifyInstance, deps: UserApiDeps): void {
  app.get('/api/v1/me', async (request, reply) => {
    const caller = await callerOf(deps, request, reply);
    if (caller === undefined) return reply;
    // Authenticate answers the id and role only; the name comes from the users list (a team's, so short).
    const listed = await callOwner(reply, deps.logger, () => deps.sessions.listUsers({}));
    if (listed === undefined) return reply;
    const me = listed.users.find((user) => user.id === caller.userId);
    return { user: { id: caller.userId, name: me?.name ?? '', role: caller.role } };
  });

  app.get('/api/v1/users', async (request, reply) => {
    if ((await adminOf(deps, request, reply, "list the relay's users")) === undefined) return reply;
    const listed = await callOwner(reply, deps.logger, () => deps.sessions.listUsers({}));
    if (listed === undefined) return reply;
    return { users: listed.users.map(userView) };
  });

  app.post('/api/v1/users', async (request, reply) => {
    if ((await adminOf(deps, request, reply, 'add users')) === undefined) return reply;
    const body = NewUserBody.safeParse(request.body ?? {});
    if (!body.success) return sendInvalid(reply, body.error);
    const created = await callOwner(reply, deps.logger, () => deps.sessions.createUser({ name: body.data.name, role: body.data.role }));
    if (created === undefined) return reply;
    return reply.code(201).send({ user: { id: created.userId, name: body.data.name, role: userRoleOf(created.role) }, token: created.token });
  });

  app.delete('/api/v1/users/:id', async (request, reply) => {
    const callerId = await adminOf(deps, request, reply, 'remove users');
    if (callerId === undefined) return reply;
    const { id } = IdParams.parse(request.params);
    const removed = await callOwner(reply, deps.logger, () => deps.sessions.removeUser({ userId: id, callerUserId: callerId }));
    if (removed === undefined) return reply;
    return { user: userView(answered(removed.user, 'RemoveUser', 'user')), removed: true, archivedSessions: removed.archivedSessions };
  });

  for (const revoke of [false, true]) {
    app.route({
      method: revoke ? 'DELETE' : 'POST',
      url: '/api/v1/users/:id/token',
      handler: async (request, reply) => {
        const caller = await callerOf(deps, request, reply);
        if (caller === undefined) return reply;
        const { id } = IdParams.parse(request.params);
        if (caller.userId !== id && caller.role !== 'admin') {
          return sendError(reply, 403, 'REMOTE_RELAY_FORBIDDEN', "Only an admin of this relay can change another user's token; ask an admin to do it.");
        }
        const changed = await callOwner(reply, deps.logger, () => deps.sessions.rotateUserToken({ userId: id, revoke }));
        if (changed === undefined) return reply;
        return revoke ? { user: { id }, revoked: true } : { user: { id }, token: changed.token };
      },
    });

    app.route({
      method: revoke ? 'DELETE' : 'POST',
      url: '/api/v1/sessions/:id/token',
      handler: async (request, reply) => {
        const caller = await callerOf(deps, request, reply);
        if (caller === undefined) return reply;
        const { id } = IdParams.parse(request.params);
        const changed = await callOwner(reply, deps.logger, () => deps.sessions.rotateSessionToken({ userId: caller.userId, sessionId: id, revoke }));
        if (changed === undefined) return reply;
        return revoke ? { session: { id }, revoked: true } : { session: { id }, token: changed.token };
      },
    });
  }
}
