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
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { UserSummary } from '@relay/proto/relay/session/v1/session_service';
import { USER_ROLES, userRoleOf } from '../../../domain/caller.ts';
import { answered } from '../../../domain/answers.ts';
import { adminOf, callerOf, callOwner, sendError, type UserApiDeps } from '../user-api.ts';
import { answers, invalidInput, madeAnswers, typed } from '../openapi.ts';
import { User, UserRole } from '../api-schemas.ts';

const NewUserBody = z.strictObject(
  {
    name: z.string({ error: "name (the new user's name) is required" }).trim().min(1, { error: 'name must not be empty' }),
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

const NewUser = z.strictObject({ id: z.string(), name: z.string(), role: UserRole });
const Id = z.strictObject({ id: z.string() });
const NewToken = z.string().describe('The new token, shown this once: the relay keeps only its hash.');

/** A user as the user API shows them. */
function userView(user: UserSummary) {
  return { id: user.id, name: user.name, role: userRoleOf(user.role), createdAt: answered(user.createdAt, 'ListUsers', 'created_at').toISOString() };
}

/** Registers /api/v1/me, /api/v1/users[/:id[/token]] and /api/v1/sessions/:id/token on `app`. */
export function registerUserRoutes(app: FastifyInstance, deps: UserApiDeps): void {
  const api = typed(app);
  api.get(
    '/api/v1/me',
    { schema: { response: answers(z.strictObject({ user: NewUser }).meta({ id: 'Me', description: 'Who the token is.' })) } },
    async (request, reply) => {
      const caller = await callerOf(deps, request, reply);
      if (caller === undefined) return reply;
      // Authenticate answers the id and role only; the name comes from the users list (a team's, so short).
      const listed = await callOwner(reply, deps.logger, () => deps.sessions.listUsers({}));
      if (listed === undefined) return reply;
      const me = listed.users.find((user) => user.id === caller.userId);
      return { user: { id: caller.userId, name: me?.name ?? '', role: caller.role } };
    },
  );

  api.get('/api/v1/users', { schema: { response: answers(z.strictObject({ users: z.array(User) })) } }, async (request, reply) => {
    if ((await adminOf(deps, request, reply, "list the relay's users")) === undefined) return reply;
    const listed = await callOwner(reply, deps.logger, () => deps.sessions.listUsers({}));
    if (listed === undefined) return reply;
    return { users: listed.users.map(userView) };
  });

  api.post(
    '/api/v1/users',
    { schema: { body: NewUserBody, response: madeAnswers(z.strictObject({ user: NewUser, token: NewToken })) }, attachValidation: true },
    async (request, reply) => {
      if ((await adminOf(deps, request, reply, 'add users')) === undefined || invalidInput(request, reply)) return reply;
      const { name, role } = request.body;
      const created = await callOwner(reply, deps.logger, () => deps.sessions.createUser({ name, role }));
      if (created === undefined) return reply;
      return reply.code(201).send({ user: { id: created.userId, name, role: userRoleOf(created.role) }, token: created.token });
    },
  );

  const Removed = z.strictObject({
    user: User,
    removed: z.literal(true),
    archivedSessions: z.number().int().describe('How many of their sessions were archived.'),
  });
  api.delete('/api/v1/users/:id', { schema: { params: IdParams, response: answers(Removed) }, attachValidation: true }, async (request, reply) => {
    const callerId = await adminOf(deps, request, reply, 'remove users');
    if (callerId === undefined || invalidInput(request, reply)) return reply;
    const { id } = request.params;
    const removed = await callOwner(reply, deps.logger, () => deps.sessions.removeUser({ userId: id, callerUserId: callerId }));
    if (removed === undefined) return reply;
    return { user: userView(answered(removed.user, 'RemoveUser', 'user')), removed: true as const, archivedSessions: removed.archivedSessions };
  });

  // A user's token: the user themselves, or an admin.
  const userToken = async (request: FastifyRequest, reply: FastifyReply, id: string, revoke: boolean) => {
    const caller = await callerOf(deps, request, reply);
    if (caller === undefined || invalidInput(request, reply)) return undefined;
    if (caller.userId !== id && caller.role !== 'admin') {
      sendError(reply, 403, 'REMOTE_RELAY_FORBIDDEN', "Only an admin of this relay can change another user's token; ask an admin to do it.");
      return undefined;
    }
    return callOwner(reply, deps.logger, () => deps.sessions.rotateUserToken({ userId: id, revoke }));
  };
  const tokens = { params: IdParams, response: answers(z.strictObject({ user: Id, token: NewToken })) };
  api.post('/api/v1/users/:id/token', { schema: tokens, attachValidation: true }, async (request, reply) => {
    const { id } = request.params;
    const changed = await userToken(request, reply, id, false);
    return changed === undefined ? reply : { user: { id }, token: changed.token };
  });
  const revoked = { params: IdParams, response: answers(z.strictObject({ user: Id, revoked: z.literal(true) })) };
  api.delete('/api/v1/users/:id/token', { schema: revoked, attachValidation: true }, async (request, reply) => {
    const { id } = request.params;
    return (await userToken(request, reply, id, true)) === undefined ? reply : { user: { id }, revoked: true as const };
  });

  // A session's token: the session's own user.
  const sessionToken = async (request: FastifyRequest, reply: FastifyReply, id: string, revoke: boolean) => {
    const caller = await callerOf(deps, request, reply);
    if (caller === undefined || invalidInput(request, reply)) return undefined;
    return callOwner(reply, deps.logger, () => deps.sessions.rotateSessionToken({ userId: caller.userId, sessionId: id, revoke }));
  };
  const sessionTokens = { params: IdParams, response: answers(z.strictObject({ session: Id, token: NewToken })) };
  api.post('/api/v1/sessions/:id/token', { schema: sessionTokens, attachValidation: true }, async (request, reply) => {
    const { id } = request.params;
    const changed = await sessionToken(request, reply, id, false);
    return changed === undefined ? reply : { session: { id }, token: changed.token };
  });
  const sessionRevoked = { params: IdParams, response: answers(z.strictObject({ session: Id, revoked: z.literal(true) })) };
  api.delete('/api/v1/sessions/:id/token', { schema: sessionRevoked, attachValidation: true }, async (request, reply) => {
    const { id } = request.params;
    return (await sessionToken(request, reply, id, true)) === undefined ? reply : { session: { id }, revoked: true as const };
  });
}
