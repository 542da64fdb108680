import { NEW_SESSION_SETTINGS, type Session } from '../../domain/sessions/session.ts';
import { invalidInput, notFound } from '../../domain/errors.ts';
import { mintToken } from '../users/mint-token.ts';
import { EXTERNAL_PROVIDER } from '../../domain/catalogue/provider-catalogue.ts';
import type { SessionDeps } from '../ports.ts';

export const MAX_TITLE_LENGTH = 200;
export const DEFAULT_EXTERNAL_TITLE = 'External session';

/**
 * Creates a session for an MCP client the user runs themselves, mints its token, and records the
 * session_created event with it. The token is returned once.
 */
export async function createExternalSession(
  deps: SessionDeps,
  input: { userId: string; title: string },
  now: Date,
): Promise<{ session: Session; token: string }> {
  const session = await newExternalSession(deps, input, now);
  const { token, record } = mintToken(deps, { kind: 'session', userId: session.userId, sessionId: session.id }, now);
  await deps.store.createSession(session, record, { eventId: deps.ids.newId(), occurredAt: now, session });
  return { session, token };
}

/**
 * A new external session of the user's, titled `title` (trimmed; a default when empty), not yet stored. Refuses an
 * empty user id, a title too long and an unknown user.
 */
export async function newExternalSession(deps: Pick<SessionDeps, 'store' | 'ids'>, input: { userId: string; title: string }, now: Date): Promise<Session> {
  if (input.userId === '') throw invalidInput('user_id is required', { field: 'user_id' });
  const title = input.title.trim() || DEFAULT_EXTERNAL_TITLE;
  if (title.length > MAX_TITLE_LENGTH) {
    throw invalidInput(`title is longer than ${MAX_TITLE_LENGTH} characters`, { field: 'title', max: MAX_TITLE_LENGTH });
  }
  if (!(await deps.store.userExists(input.userId))) {
    throw notFound('no such user', { field: 'user_id', userId: input.userId });
  }
  return {
    id: deps.ids.newId(),
    userId: input.userId,
    title,
    provider: EXTERNAL_PROVIDER,
    model: '',
    origin: 'external',
    state: 'idle',
    cwd: '',
    archived: false,
    messageCount: 0,
    createdAt: now,
    lastActivityAt: now,
    ...NEW_SESSION_SETTINGS,
  };
}
