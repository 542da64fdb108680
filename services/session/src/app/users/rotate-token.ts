import { archived, notFound } from '../../domain/errors.ts';
import { mintToken } from './mint-token.ts';
import type { SessionDeps } from '../ports.ts';

/**
 * Replaces a user's personal token: the new one is returned once (only its hash is kept) and the old one stops
 * working at once. With `revoke`, the token is removed and none made: the user signs in again only once an
 * admin rotates it for them. Who may ask (an admin, or the user) is the caller's to check.
 */
export async function rotateUserToken(deps: SessionDeps, input: { userId: string; revoke: boolean }, now: Date): Promise<{ token: string }> {
  const user = await deps.store.findUser(input.userId);
  if (user === undefined) throw notFound(`No user '${input.userId}' on this relay. No token was changed.`, { field: 'user' });
  if (input.revoke) {
    await deps.store.replaceUserTokens(user.id, null);
    return { token: '' };
  }
  const { token, record } = mintToken(deps, { kind: 'user', userId: user.id }, now);
  await deps.store.replaceUserTokens(user.id, record);
  return { token };
}

/**
 * Replaces a session's tokens for its user: the one its MCP client holds and its agent worker's, if one runs
 * (that worker's calls are refused until it next starts with a fresh one). The new token is returned once;
 * with `revoke` none is made. An archived session's tokens are refused anyway, so only revoking applies to it.
 */
export async function rotateSessionToken(
  deps: SessionDeps,
  input: { userId: string; sessionId: string; revoke: boolean },
  now: Date,
): Promise<{ token: string }> {
  const session = await deps.store.findSession(input.sessionId);
  if (session === undefined || session.userId !== input.userId) {
    throw notFound(`No session '${input.sessionId}' of yours on this relay. No token was changed.`, { field: 'session' });
  }
  if (input.revoke) {
    await deps.store.replaceSessionTokens(session.id, null);
    return { token: '' };
  }
  if (session.archived) throw archived(`Session '${session.id}' is archived; its tokens no longer work. No token was made.`);
  const { token, record } = mintToken(deps, { kind: 'session', userId: session.userId, sessionId: session.id }, now);
  await deps.store.replaceSessionTokens(session.id, record);
  return { token };
}
