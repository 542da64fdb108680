/**
 * Who calls /relay/v1: a paired relay, by the relay token it holds for this one (verified by the pairing
 * service, which keeps only its hash). The token is never logged.
 */
import { isAppError } from '@relay/errors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PairingOwner, RelayCaller } from '../ports.ts';

export type RelayAuthOutcome = { ok: true; caller: RelayCaller } | { ok: false; status: 401 | 503; code: string; message: string };

/** The paired relay (its name as paired here) and the local user who owns that pairing; 401 for any other token, 503 when tokens cannot be checked. */
export async function authenticateRelay(request: FastifyRequest, pairing: PairingOwner): Promise<RelayAuthOutcome> {
  const token = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(request.headers.authorization ?? '')?.[1];
  if (!token) return { ok: false, status: 401, code: 'REMOTE_RELAY_AUTH', message: 'Authorization: Bearer <relay token> is required.' };
  try {
    return { ok: true, caller: await pairing.authenticateRelay(token) };
  } catch (error) {
    if (isAppError(error) && error.kind === 'unauthenticated') {
      return { ok: false, status: 401, code: 'REMOTE_RELAY_AUTH', message: 'This relay does not know that relay token; pair the relays again.' };
    }
    request.log.error({ err: error }, 'relay authentication failed');
    return { ok: false, status: 503, code: 'REMOTE_RELAY_INTERNAL', message: 'This relay cannot check relay tokens right now; try again in a moment.' };
  }
}

/** The calling relay, or undefined once the refusal was sent (401/503 with `{ code, error }`). */
export async function relayCallerOf(request: FastifyRequest, reply: FastifyReply, pairing: PairingOwner): Promise<RelayCaller | undefined> {
  const auth = await authenticateRelay(request, pairing);
  if (auth.ok) return auth.caller;
  reply.code(auth.status).send({ code: auth.code, error: auth.message });
  return undefined;
}
