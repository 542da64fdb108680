import type { Caller, TokenKind } from '../../domain/users/user.ts';
import type { RelaySettings } from '../../domain/settings/relay-settings.ts';
import { unauthenticated } from '../../domain/errors.ts';
import { tokenKindOf } from '../../domain/users/tokens.ts';
import type { TokenHasher, TokenHolder, TokenReads } from '../ports.ts';

/** Who a token belongs to, with the relay's settings read along (a gateway holds both for a few seconds). */
export interface Authenticated {
  caller: Caller;
  settings: RelaySettings;
}

/**
 * Resolves a bearer token to its caller. Refuses, always with the same error, a token that is not ours, unknown,
 * expired (a console sign-in's, at `now`), of a user removed, or bound to a session that is gone or archived.
 * The token, its user, its session and the relay's settings are one read (every call of a caller the gateway has not
 * checked lately asks, and every relay_tool call reads the settings).
 */
export async function authenticate(deps: { tokens: TokenReads; hasher: TokenHasher }, token: string, now: Date): Promise<Authenticated> {
  const kind = tokenKindOf(token);
  if (kind === undefined) throw unauthenticated();
  // Looked up by hash: equality on a sha256 of a 256-bit secret leaks nothing useful through timing.
  const { holder, settings } = await deps.tokens.lookUpToken(deps.hasher.hash(token));
  return { caller: callerOf(holder, kind, now), settings };
}

function callerOf(holder: TokenHolder | undefined, kind: TokenKind, now: Date): Caller {
  if (holder === undefined || holder.kind !== kind) throw unauthenticated();
  if (holder.expiresAt !== null && holder.expiresAt <= now) throw unauthenticated();
  const { user, session } = holder;
  if (user === undefined) throw unauthenticated();
  if (kind === 'user') return { userId: user.id, role: user.role };
  if (session === undefined || session.archived) throw unauthenticated();
  return { userId: user.id, role: user.role, sessionId: session.id, ...(session.origin === 'external' ? { external: true } : {}) };
}
