import { auth } from '../domain/errors.ts';
import type { AgentLevel } from '../domain/paired-relay.ts';
import type { PairedRelayStore, PairingSettingsStore, Secrets } from './ports.ts';

/**
 * Who calls /relay/v1: the paired relay behind a relay token, the user its calls act for, whether prompts are
 * accepted, and the "Agents may" level this relay grants the pairing (the receiving relay's own check).
 */
export interface RelayCaller {
  relayName: string;
  userId: string;
  acceptPrompts: boolean;
  level: AgentLevel;
}

/** The paired relay whose token this is; REMOTE_RELAY_AUTH for any other token (never saying why). */
export async function authenticateRelay(
  deps: { relays: PairedRelayStore; settings: PairingSettingsStore; secrets: Secrets },
  token: string,
): Promise<RelayCaller> {
  const hash = deps.secrets.hash(token);
  const relay = token === '' ? undefined : await deps.relays.findByInboundHash(hash);
  // The lookup is by hash; comparing again in constant time keeps timing from telling how much of a hash matched.
  if (relay === undefined || !deps.secrets.sameHash(relay.inboundTokenHash, hash)) throw auth('This relay does not know that relay token.');
  const { acceptPrompts } = await deps.settings.get();
  return { relayName: relay.name, userId: relay.ownerUserId, acceptPrompts, level: relay.level };
}
