/**
 * One call to a paired relay's /relay/v1 routes for remote events and asks, by the relay's name as paired here,
 * with this relay's token for it (RelayClient). A 2xx answers its body; a refusal the AppError that relay
 * answered (its code and message); no answer REMOTE_RELAY_OFFLINE, a refused token REMOTE_RELAY_AUTH.
 */
import { AppError, ERROR_KINDS, isErrorCode } from '@relay/errors';
import { z } from 'zod';
import { offline, unknownRelay } from '../../domain/errors.ts';
import { RelayClient } from './relay-client.ts';

/** How long a paired relay has to answer one call. */
const TIMEOUT_MS = 10_000;

/** Where a paired relay is and the token this relay calls it with. */
export interface PairedRelayAddresses {
  find(name: string): Promise<{ url: string; outboundToken: string } | undefined>;
}

const refusalBody = z.object({ code: z.string(), error: z.string() });

export async function callPairedRelay(
  relays: PairedRelayAddresses,
  relay: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<unknown> {
  const paired = await relays.find(relay);
  if (paired === undefined) throw unknownRelay(relay);
  const response = await new RelayClient(paired.url, paired.outboundToken).request({ method, path, body, timeoutMs: TIMEOUT_MS });
  if (response.status >= 200 && response.status < 300) return response.body;
  const refusal = refusalBody.safeParse(response.body);
  if (!refusal.success) throw offline(`The relay "${relay}" answered HTTP ${response.status} without a refusal this relay understands.`);
  const { code, error } = refusal.data;
  // A code this relay does not know (a newer relay's) is a refusal all the same.
  throw new AppError(code, isErrorCode(code) ? ERROR_KINDS[code] : 'failed_precondition', error);
}
