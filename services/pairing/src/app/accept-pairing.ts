import { auth, invalidInput, pairingExists } from '../domain/errors.ts';
import { normaliseCode } from '../domain/pairing-codes.ts';
import type { PairAnswer, PairedRelayStore, PairingCodeStore, Secrets } from './ports.ts';
import { checkRelayName } from '../domain/relay-name.ts';
import { checkRelayUrl } from '../domain/relay-url.ts';
import { findPairedAt } from './pair.ts';

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
 * A relay whose name (case aside) or URL is paired here already is refused, so it cannot take over that pairing
 * (its URL, tokens and level) until the pairing is unpaired here. The code is spent first: a caller without one
 * learns nothing about what is paired.
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
  const atUrl = await findPairedAt(deps.relays, url);
  if (atUrl !== undefined) {
    throw pairingExists(
      atUrl,
      `${input.self.name} already has a pairing "${atUrl.name}" at ${atUrl.url}, the same relay as ${url}; it must be unpaired on ${input.self.name} before it can pair again.`,
    );
  }
  const existing = await deps.relays.add({
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
  if (existing !== undefined) {
    throw pairingExists(
      existing,
      `${input.self.name} already has a pairing "${existing.name}" (${existing.url}) with that name or address; it must be unpaired on ${input.self.name} before "${name}" at ${url} can pair.`,
    );
  }
  return { name: input.self.name, version: input.self.version, token: inbound };
}
