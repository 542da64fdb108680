import type { User } from './entities.ts';
import { invalidInput } from './errors.ts';
import { mintToken } from './mint-token.ts';
import type { SessionDeps } from './ports.ts';

export const MAX_USER_NAME_LENGTH = 100;

/** Creates a user with a personal API token; the token is returned once and stored only as a hash. */
export async function createUser(
  deps: SessionDeps,
  input: { name: string },
  now: Date,
): Promise<{ user: User; token: string }> {
  const name = input.name.trim();
  if (name === '') throw invalidInput('name is required', { field: 'name' });
  if (name.length > MAX_USER_NAME_LENGTH) {
    throw invalidInput(`name is longer than ${MAX_USER_NAME_LENGTH} characters`, { field: 'name', max: MAX_USER_NAME_LENGTH });
  }
  const user: User = { id: deps.ids.newId(), name, createdAt: now };
  const { token, record } = mintToken(deps, { kind: 'user', userId: user.id }, now);
  await deps.store.createUser(user, record);
  return { user, token };
}
