/**
 * Who is calling: the bearer token of a request, resolved by the session service. The token is never logged. A
 * valid token is always let in; a token that keeps failing, and a client whose tokens keep failing, are told to
 * wait (failure-limits.ts).
 */
import { isAppError } from '@relay/errors';
import type { Logger } from '@relay/telemetry';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { callerOf, type AuthenticatedCaller } from '../../domain/caller.ts';
import type { SessionClient } from '../../app/ports.ts';
import { credentialKeyOf } from './failure-limits.ts';

export type BearerOutcome = { ok: true; caller: AuthenticatedCaller } | { ok: false; status: 401 | 429 | 503; message: string; retryAfterSeconds?: number };

/** No token this relay mints is near this long; a longer one is unknown without asking anyone. */
export const MAX_TOKEN_LENGTH = 256;

/** The bearer token of an Authorization header, or undefined without one. */
export function bearerTokenOf(request: FastifyRequest): string | undefined {
  return /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(request.headers.authorization ?? '')?.[1];
}

/**
 * Checks a token with `check`: 'ok' with what it found, whoever else failed from the same address. A token that
 * fails is counted against itself and against its client: 'wait' with the seconds when either has failed too often
 * (a credential that did is not checked again until its minute is over), else 'unknown'. A token too long to be one
 * is unknown without asking anyone; any fault other than an unknown token is thrown.
 */
export async function checkToken<T>(
  request: FastifyRequest,
  token: string,
  check: (token: string) => Promise<T>,
): Promise<{ kind: 'ok'; value: T } | { kind: 'wait'; seconds: number } | { kind: 'unknown' }> {
  const { authentication: clients, credentials } = request.server.failureLimits;
  const credential = credentialKeyOf(token);
  const refused = await credentials.waitSeconds(request, credential);
  if (refused !== undefined) return { kind: 'wait', seconds: refused };
  if (token.length <= MAX_TOKEN_LENGTH) {
    try {
      return { kind: 'ok', value: await check(token) };
    } catch (error) {
      if (!isAppError(error) || error.kind !== 'unauthenticated') throw error;
    }
  }
  const [againstToken, againstClient] = await Promise.all([credentials.failed(request, credential), clients.failed(request)]);
  const seconds = Math.max(againstToken ?? 0, againstClient ?? 0);
  return seconds > 0 ? { kind: 'wait', seconds } : { kind: 'unknown' };
}

/** The caller behind a request's bearer token; 401 without a valid one, 429 while the client must wait, 503 when tokens cannot be checked. */
export async function authenticateBearer(request: FastifyRequest, sessions: SessionClient, logger: Logger): Promise<BearerOutcome> {
  const token = bearerTokenOf(request);
  if (!token) return { ok: false, status: 401, message: 'Authorization: Bearer <token> is required.' };
  try {
    const checked = await checkToken(request, token, async (value) => callerOf(await sessions.authenticate({ token: value })));
    if (checked.kind === 'ok') return { ok: true, caller: checked.value };
    if (checked.kind === 'wait') return tooManyFailures(checked.seconds);
    return { ok: false, status: 401, message: 'The bearer token is unknown or revoked.' };
  } catch (error) {
    logger.error({ err: error }, 'authentication failed');
    return { ok: false, status: 503, message: 'This relay cannot check tokens right now; try again in a moment.' };
  }
}

/** 429: the token's or the client's failed tries are used up for now (a valid token is never refused so). */
export function tooManyFailures(seconds: number): Extract<BearerOutcome, { ok: false }> {
  return {
    ok: false,
    status: 429,
    message: `This token, or too many unknown tokens from your address, failed too often; try again in ${seconds} s with a valid token.`,
    retryAfterSeconds: seconds,
  };
}

/**
 * The headers a refused authentication answers with: how to authenticate after a 401 (on /mcp, also where to sign in:
 * the protected resource's metadata, RFC 9728 section 5.1), when to retry after a 429.
 */
export function setRefusalHeaders(reply: FastifyReply, outcome: Extract<BearerOutcome, { ok: false }>): void {
  if (outcome.status === 401) {
    const metadata = reply.request.url.startsWith('/mcp') ? reply.server.oauthResourceMetadataUrl : undefined;
    reply.header('www-authenticate', `Bearer realm="relay", error="invalid_token"${metadata === undefined ? '' : `, resource_metadata="${metadata}"`}`);
  }
  if (outcome.retryAfterSeconds !== undefined) reply.header('retry-after', String(outcome.retryAfterSeconds));
}
