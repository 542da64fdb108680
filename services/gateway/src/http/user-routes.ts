/**
 * The relay's users in the user API: GET /api/v1/me (any user: who the token is), and for admins
 * GET /api/v1/users (every user, never a token) and POST /api/v1/users {name, role?}, which answers the new
 * user's token once (the session service keeps only its hash). So a team adds people without kubectl exec.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { USER_ROLES, type UserSummary } from '../ports.ts';
import { adminOf, callerOf, callOwner, sendInvalid, type UserApiDeps } from './user-api.ts';

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

/** A user as the user API shows them. */
function userView(user: UserSummary) {
  return { id: user.id, name: user.name, role: user.role, createdAt: user.createdAt.toISOString() };
}

/** Registers GET /api/v1/me, GET /api/v1/users and POST /api/v1/users on `app`. */
export function registerUserRoutes(app: FastifyInstance, deps: UserApiDeps): void {
  app.get('/api/v1/me', async (request, reply) => {
    const caller = await callerOf(deps, request, reply);
    if (caller === undefined) return reply;
    // Authenticate answers the id and role only; the name comes from the users list (a team's, so short).
    const users = await callOwner(reply, deps.logger, () => deps.sessions.listUsers());
    if (users === undefined) return reply;
    const me = users.find((user) => user.id === caller.userId);
    return { user: { id: caller.userId, name: me?.name ?? '', role: caller.role } };
  });

  app.get('/api/v1/users', async (request, reply) => {
    if ((await adminOf(deps, request, reply, "list the relay's users")) === undefined) return reply;
    const users = await callOwner(reply, deps.logger, () => deps.sessions.listUsers());
    if (users === undefined) return reply;
    return { users: users.map(userView) };
  });

  app.post('/api/v1/users', async (request, reply) => {
    if ((await adminOf(deps, request, reply, 'add users')) === undefined) return reply;
    const body = NewUserBody.safeParse(request.body ?? {});
    if (!body.success) return sendInvalid(reply, body.error);
    const created = await callOwner(reply, deps.logger, () => deps.sessions.createUser(body.data.name, body.data.role));
    if (created === undefined) return reply;
    return reply.code(201).send({ user: { id: created.userId, name: body.data.name, role: created.role }, token: created.token });
  });
}
