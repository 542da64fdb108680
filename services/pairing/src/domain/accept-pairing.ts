import { auth, invalidInput } from './errors.ts';
import { normaliseCode } from './pairing-codes.ts';
import type { PairAnswer, PairedRelayStore, PairingCodeStore, Secrets } from './ports.ts';
import { checkRelayName } from './relay-name.ts';
import { checkRelayUrl } from './relay-url.ts';

export interface AcceptPairingInput {
  code: string;
  /** The relay asking to pair, and the token this relay will call it with. */
  name: string;
  url: string;
  version: string;
  token: string;
  /** This relay. */
  self: { name: string; version: string };
}

/**
 * The other side of pair: spends the code (once, while it has not expired) and keeps the calling relay for the
 * user who made the code, with its token to call it and the hash of a fresh token it will call this relay with.
 */
export async function acceptPairing(
  deps: { relays: PairedRelayStore; codes: PairingCodeStore; secrets: Secrets },
  input: AcceptPairingInput,
  now: Date,
): Promise<PairAnswer> {
  const name = checkRelayName(input.name, "The pairing relay's name");
  if (name.toLowerCase() === input.self.name.toLowerCase()) throw invalidInput(`This relay is named "${name}" too; rename one of them first.`);
  const url = checkRelayUrl(input.url);
  if (input.token.length < 43) throw invalidInput('The pairing relay offered no usable token.');
  const outbound = input.token;
  const inbound = deps.secrets.newToken();
  const userId = await deps.codes.spend(deps.secrets.hash(normaliseCode(input.code)), now);
  if (userId === undefined) throw auth('The pairing code is unknown, used or expired. Make a new one on this relay.');
  await deps.relays.save({
    name,
    url,
    level: 'full',
    ownerUserId: userId,
    inboundTokenHash: deps.secrets.hash(inbound),
    outboundToken: outbound,
    version: input.version,
    online: true,
    createdAt: now,
  });
  return { name: input.self.name, version: input.self.version, token: inbound };
}
