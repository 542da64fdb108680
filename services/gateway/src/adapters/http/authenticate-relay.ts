/**
 * Who calls /relay/v1: a paired relay, by the relay token it holds for this one (verified by the pairing
 * service, which keeps only its hash). The token is never logged. Unknown relay tokens count against
 * themselves and the client's failed tries like any other (failure-limits.ts); a valid one is always let in.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerTokenOf, checkToken } from './authenticate-bearer.ts';
import type { AuthenticateRelayResponse as RelayCaller } from '@relay/proto/relay/pairing/v1/pairing_service';
import type { PairingClient } from '../../app/ports.ts';

export type RelayAuthOutcome =
  | { ok: true; caller: RelayCaller }
  | { ok: false; status: 401 | 429 | 503; code: string; message: string; retryAfterSeconds?: number };

/** The paired relay (its name as paired here) and the local user who owns that pairing; 401 for any other token, 429 while the client must wait, 503 when tokens cannot be checked. */
export async function authenticateRelay(request: FastifyRequest, pairing: PairingClient): Promise<RelayAuthOutcome> {
  const token = bearerTokenOf(request);
  if (!token) return { ok: false, status: 401, code: 'REMOTE_RELAY_AUTH', message: 'Authorization: Bearer <relay token> is required.' };
  try {
    const checked = await checkToken(request, token, (value) => pairing.authenticateRelay({ token: value }));
    if (checked.kind === 'ok') return { ok: true, caller: checked.value };
    if (checked.kind === 'wait') {
      return {
        ok: false,
        status: 429,
        code: 'REMOTE_RELAY_AUTH',
        message: `This relay token, or too many unknown relay tokens from your address, failed too often; try again in ${checked.seconds} s with a valid one.`,
        retryAfterSeconds: checked.seconds,
      };
    }
    return { ok: false, status: 401, code: 'REMOTE_RELAY_AUTH', message: 'This relay does not know that relay token; pair the relays again.' };
  } catch (error) {
    request.log.error({ err: error }, 'relay authentication failed');
    return { ok: false, status: 503, code: 'REMOTE_RELAY_INTERNAL', message: 'This relay cannot check relay tokens right now; try again in a moment.' };
  }
}

/** The calling relay, or undefined once the refusal was sent (401/429/503 with `{ code, error }`). */
export async function relayCallerOf(request: FastifyRequest, reply: FastifyReply, pairing: PairingClient): Promise<RelayCaller | undefined> {
  const auth = await authenticateRelay(request, pairing);
  if (auth.ok) return auth.caller;
  sendRelayAuthRefusal(reply, auth);
  return undefined;
}

/** A refused relay authentication: its status, `{ code, error }`, and retry-after while the client must wait. */
export function sendRelayAuthRefusal(reply: FastifyReply, auth: Extract<RelayAuthOutcome, { ok: false }>): FastifyReply {
  if (auth.retryAfterSeconds !== undefined) reply.header('retry-after', String(auth.retryAfterSeconds));
  return reply.code(auth.status).send({ code: auth.code, error: auth.message });
}
