/**
 * Who is calling: the bearer token of a request, resolved by the session service. The token is
 * never logged.
 */
import { isAppError } from '@relay/errors';
import type { Logger } from '@relay/telemetry';
import type { AuthenticatedCaller, SessionOwner } from '../ports.ts';

export type BearerOutcome =
  | { ok: true; caller: AuthenticatedCaller }
  | { ok: false; status: 401 | 503; message: string };

/** The caller behind an Authorization header; 401 without a valid bearer token, 503 when tokens cannot be checked. */
export async function authenticateBearer(header: string | undefined, sessions: SessionOwner, logger: Logger): Promise<BearerOutcome> {
  const token = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '')?.[1];
  if (!token) return { ok: false, status: 401, message: 'Authorization: Bearer <token> is required.' };
  try {
    return { ok: true, caller: await sessions.authenticate(token) };
  } catch (error) {
    if (isAppError(error) && error.kind === 'unauthenticated') {
      return { ok: false, status: 401, message: 'The bearer token is unknown or revoked.' };
    }
    logger.error({ err: error }, 'authentication failed');
    return { ok: false, status: 503, message: 'This relay cannot check tokens right now; try again in a moment.' };
  }
}
