import { loadClientConfig } from '../config.ts';
import { GatewayApi, type UserView } from '../gateway-api.ts';
import { relayPaths } from '../relay-paths.ts';
import { resolveRelayTarget } from '../relay-target.ts';
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

export function formatUsers(users: readonly UserView[]): string {
  return users.length === 0 ? 'No users.' : users.map(formatUser).join('\n');
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
