import { loadClientConfig } from '../config.ts';
import { CliError } from '../cli-error.ts';
import type { Schemas } from '@relay/user-api';
import { GatewayApi } from '../gateway-api.ts';

/** A user as /api/v1/users lists them, or as /api/v1/me names the caller (without createdAt). */
type UserView = Schemas['Me']['user'] & Partial<Pick<Schemas['User'], 'createdAt'>>;
import { relayPaths } from '../relay-paths.ts';
import { resolveRelayTarget } from '../relay-target.ts';
import { formatTable } from '../format-table.ts';
import { resolveSession } from './session-name.ts';
import type { ClientIo } from './sessions.ts';

function apiFor(io: ClientIo): GatewayApi {
  const target = resolveRelayTarget(loadClientConfig(io.env), relayPaths());
  return new GatewayApi(target.url, target.token);
}

/** `relay users`: the relay's users, one a line (admins only). */
export async function runUsers(options: { json: boolean }, io: ClientIo): Promise<number> {
  const users = await apiFor(io).listUsers();
  io.out.write(options.json ? `${JSON.stringify({ users }, null, 2)}\n` : `${formatUsers(users)}\n`);
  return 0;
}

/** `relay users add NAME [--admin]`: adds a user and prints their token, which is shown this once. */
export async function runAddUser(options: { name: string; admin: boolean; json: boolean }, io: ClientIo): Promise<number> {
  const created = await apiFor(io).createUser(options.name, options.admin ? 'admin' : 'member');
  io.out.write(options.json ? `${JSON.stringify(created, null, 2)}\n` : `${formatAddedUser(created)}\n`);
  return 0;
}

/** `relay users remove NAME`: removes a user (admins); their tokens stop working, their sessions are archived. */
export async function runRemoveUser(options: { name: string; json: boolean }, io: ClientIo): Promise<number> {
  const api = apiFor(io);
  const user = userNamed(await api.listUsers(), options.name);
  const removed = await api.removeUser(user.id);
  io.out.write(
    options.json
      ? `${JSON.stringify(removed, null, 2)}\n`
      : `Removed ${removed.user.name} (${removed.user.role}), id ${removed.user.id}: their tokens no longer work; ${sessionsArchived(removed.archivedSessions)}.\n`,
  );
  return 0;
}

/** `relay users token NAME [--revoke]`: a new token for a user (yourself, or anyone for an admin), or none. */
export async function runUserToken(options: { name: string; revoke: boolean; json: boolean }, io: ClientIo): Promise<number> {
  const api = apiFor(io);
  // A member may rotate only their own token and cannot list users: find yourself first.
  const me = await api.me();
  const user = matches(me, options.name) ? me : userNamed(await api.listUsers(), options.name);
  const token = (await api.userToken(user.id, options.revoke)) ?? '';
  const text = options.revoke
    ? `Revoked ${user.name}'s token: it no longer works, and ${user.name} has none until a new one is made (relay users token ${user.name}).`
    : formatNewToken(`${user.name}'s new token`, token);
  io.out.write(options.json ? `${JSON.stringify({ user: { id: user.id, name: user.name }, token, revoked: options.revoke }, null, 2)}\n` : `${text}\n`);
  return 0;
}

/** `relay session token SESSION [--revoke]`: a new token for one of your sessions, or none. */
export async function runSessionToken(options: { sessionId: string; revoke: boolean; json: boolean }, io: ClientIo): Promise<number> {
  const api = apiFor(io);
  const sessionId = await resolveSession(api, options.sessionId);
  const token = (await api.sessionToken(sessionId, options.revoke)) ?? '';
  const text = options.revoke
    ? `Revoked the tokens of session ${sessionId}: its MCP client (and its agent, if one runs) is refused from now on.`
    : formatNewToken(`Session ${sessionId}'s new token`, token);
  io.out.write(options.json ? `${JSON.stringify({ session: { id: sessionId }, token, revoked: options.revoke }, null, 2)}\n` : `${text}\n`);
  return 0;
}

/** The user a NAME given on the command line means: by id, else by name, case aside. */
export function userNamed(users: readonly UserView[], name: string): UserView {
  const found = users.find((user) => user.id === name) ?? users.find((user) => matches(user, name));
  if (found === undefined) throw new CliError(`no user named "${name}" on this relay; relay users lists them`);
  return found;
}

function matches(user: UserView, name: string): boolean {
  return user.id === name || user.name.toLowerCase() === name.toLowerCase();
}

function sessionsArchived(count: number): string {
  return count === 1 ? '1 session was archived' : `${count} sessions were archived`;
}

// As with a new user's token: the relay keeps only the hash, so this is the one chance to copy it.
/** A new token, that it is shown once, and that the old one no longer works. */
export function formatNewToken(what: string, token: string): string {
  return [`${what}: ${token}`, 'The token is shown only this once; the old one no longer works.'].join('\n');
}

/** `relay whoami`: who this token is. */
export async function runWhoami(options: { json: boolean }, io: ClientIo): Promise<number> {
  const me = await apiFor(io).me();
  io.out.write(options.json ? `${JSON.stringify({ user: me }, null, 2)}\n` : `${formatUser(me)}\n`);
  return 0;
}

/** One user on one line: id, name, role, and since when when known. */
export function formatUser(user: UserView): string {
  return `${user.id}  ${user.name}  ${user.role}${user.createdAt ? `  since ${user.createdAt}` : ''}`;
}

/** The users as an aligned table: id, name, role and since when. */
export function formatUsers(users: readonly UserView[]): string {
  if (users.length === 0) return 'No users.';
  return formatTable(
    ['ID', 'NAME', 'ROLE', 'SINCE'],
    users.map((user) => [user.id, user.name, user.role, user.createdAt ?? '-']),
  );
}

// The relay keeps only the token's hash, so this is the one chance to copy it.
/** The new user, their token, and that it is shown once. */
export function formatAddedUser(created: { user: UserView; token: string }): string {
  return [
    `Added ${created.user.name} (${created.user.role}), id ${created.user.id}.`,
    `Token: ${created.token}`,
    'The token is shown only this once: give it to them now (RELAY_TOKEN); the relay keeps only its hash.',
  ].join('\n');
}
