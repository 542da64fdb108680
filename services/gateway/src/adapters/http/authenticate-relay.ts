/**
 * Who calls /relay/v1: a paired relay, by the relay token it holds for this one (verified by the pairing
 * service, which keeps only its hash). The token is never logged. Unknown relay tokens count against
 * themselves and the client's failed tries like any other (failure-limits.ts); a valid one is always let in, and then
 * held to what this relay grants its pairing.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerTokenOf, checkToken } from './authenticate-bearer.ts';
import type { AuthenticateRelayResponse as RelayCaller } from '@relay/proto/relay/pairing/v1/pairing_service';
import { isAppError } from '@relay/errors';
import type { PairingClient } from '../../app/ports.ts';
import { agentLevelName } from '../../app/views/pairing-view.ts';
import type { AgentLevelName } from '../../domain/agent-levels.ts';
import { checkIncomingRelayCall } from '../../domain/paired-relay-policy.ts';

export type RelayAuthOutcome =
  { ok: true; caller: RelayCaller } | { ok: false; status: 401 | 429 | 503; code: string; message: string; retryAfterSeconds?: number };

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

/** What a /relay/v1 route does for a paired relay, as this relay checks it (checkIncomingRelayCall). */
export interface RelayRouteNeed {
  what: string;
  needs: AgentLevelName;
  changesOrWatches: boolean;
}

/**
 * The calling relay, once this relay's own rules let it do `need` (the level it grants the pairing, Accept prompts);
 * undefined once the refusal was sent (401/429/503, or 403 REMOTE_RELAY_PERMISSION, with `{ code, error }`).
 */
export async function relayCallerOf(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: { pairing: PairingClient; relayName: string },
  need: RelayRouteNeed,
): Promise<RelayCaller | undefined> {
  const auth = await authenticateRelay(request, deps.pairing);
  if (!auth.ok) {
    sendRelayAuthRefusal(reply, auth);
    return undefined;
  }
  const { caller } = auth;
  try {
    checkIncomingRelayCall({
      ...need,
      sendsPrompt: false,
      pairing: { relayName: caller.relayName, level: agentLevelName(caller.level), acceptPrompts: caller.acceptPrompts },
      provenance: { hops: 1, viaRelays: [caller.relayName] },
      selfName: deps.relayName,
    });
  } catch (error) {
    if (!isAppError(error)) throw error;
    reply.code(403).send({ code: error.code, error: error.message });
    return undefined;
  }
  return caller;
}

/** A refused relay authentication: its status, `{ code, error }`, and retry-after while the client must wait. */
export function sendRelayAuthRefusal(reply: FastifyReply, auth: Extract<RelayAuthOutcome, { ok: false }>): FastifyReply {
  if (auth.retryAfterSeconds !== undefined) reply.header('retry-after', String(auth.retryAfterSeconds));
  return reply.code(auth.status).send({ code: auth.code, error: auth.message });
}
