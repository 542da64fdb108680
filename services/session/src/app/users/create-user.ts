import { USER_ROLES, type User, type UserRole } from '../../domain/users/user.ts';
import { invalidInput, userExists } from '../../domain/errors.ts';
import { mintToken } from './mint-token.ts';
import type { SessionDeps } from '../ports.ts';

export const MAX_USER_NAME_LENGTH = 100;

/**
 * Creates a user with a personal API token; the token is returned once and stored only as a hash.
 * The relay's first user is always its admin, so a new relay is never left without one; later users
 * are members unless `role` says admin. An empty role means "the default". Names are unique, case aside
 * (REMOTE_RELAY_USER_EXISTS). Under the users lock, so two first users at once make one admin.
 */
export async function createUser(deps: SessionDeps, input: { name: string; role?: string }, now: Date): Promise<{ user: User; token: string }> {
  const name = input.name.trim();
  if (name === '') throw invalidInput('name is required', { field: 'name' });
  if (name.length > MAX_USER_NAME_LENGTH) {
    throw invalidInput(`name is longer than ${MAX_USER_NAME_LENGTH} characters`, { field: 'name', max: MAX_USER_NAME_LENGTH });
  }
  const asked = input.role ?? '';
  if (asked !== '' && !isUserRole(asked)) {
    throw invalidInput(`role must be one of: ${USER_ROLES.join(', ')}`, { field: 'role' });
  }
  return deps.store.lockUsers(async (tx) => {
    const users = await tx.listUsers();
    const namesake = users.find((user) => user.name.toLowerCase() === name.toLowerCase());
    if (namesake !== undefined) throw userExists(name, namesake);
    const role: UserRole = users.length === 0 ? 'admin' : asked === '' ? 'member' : asked;
    const user: User = { id: deps.ids.newId(), name, role, createdAt: now };
    const { token, record } = mintToken(deps, { kind: 'user', userId: user.id }, now);
    await tx.createUser(user, record);
    return { user, token };
  });
}

function isUserRole(value: string): value is UserRole {
  return (USER_ROLES as readonly string[]).includes(value);
}
