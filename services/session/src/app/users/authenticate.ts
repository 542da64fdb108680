import type { Caller } from '../../domain/users/user.ts';
import { unauthenticated } from '../../domain/errors.ts';
import { tokenKindOf } from '../../domain/users/tokens.ts';
import type { SessionStore, TokenHasher } from '../ports.ts';

/**
 * Resolves a bearer token to its caller. Refuses, always with the same error, a token that is not
 * ours, unknown, expired (a console sign-in's, at `now`), or bound to a session that is gone or archived.
 */
export async function authenticate(deps: { store: SessionStore; hasher: TokenHasher }, token: string, now: Date): Promise<Caller> {
  const kind = tokenKindOf(token);
  if (kind === undefined) throw unauthenticated();
  // Looked up by hash: equality on a sha256 of a 256-bit secret leaks nothing useful through timing.
  const record = await deps.store.findToken(deps.hasher.hash(token));
  if (record === undefined || record.kind !== kind) throw unauthenticated();
  if (record.expiresAt !== null && record.expiresAt <= now) throw unauthenticated();
  const user = await deps.store.findUser(record.userId);
  if (user === undefined) throw unauthenticated();
  if (record.kind === 'user') return { userId: user.id, role: user.role };
  const session = record.sessionId === null ? undefined : await deps.store.findSession(record.sessionId);
  if (session === undefined || session.archived) throw unauthenticated();
  return { userId: user.id, role: user.role, sessionId: session.id, ...(session.origin === 'external' ? { external: true } : {}) };
}
