import { invalidInput, pairingExists } from '../domain/errors.ts';
import { statusOf, type PairedRelayStatus } from '../domain/paired-relay.ts';
import type { PairedRelayStore, RelayLink, Secrets } from './ports.ts';
import type { PairedRelay } from '../domain/paired-relay.ts';
import { checkRelayName } from '../domain/relay-name.ts';
import { checkRelayUrl, sameRelayUrls } from '../domain/relay-url.ts';

export interface PairInput {
  userId: string;
  /** The other relay's base URL. */
  url: string;
  /** The code a user made on the other relay. */
  code: string;
  /** This relay, as the other one will know it. */
  self: { name: string; url: string; version: string };
}

/**
 * Pairs this relay with the one at `url`: offers it a fresh token to call this relay with (kept here only as a
 * hash) together with its code, and keeps the token it answers to call it with. New pairings start at full.
 * A pairing never replaces another: a URL already paired is refused before anything is sent, and a name already
 * paired (case aside) once the other relay has answered it; either stays refused until that pairing is unpaired.
 */
export async function pair(deps: { relays: PairedRelayStore; link: RelayLink; secrets: Secrets }, input: PairInput, now: Date): Promise<PairedRelayStatus> {
  if (input.userId === '') throw invalidInput('user_id is required');
  if (input.code.trim() === '') throw invalidInput('The pairing code is required: make one on the other relay (relay pair --code).');
  const url = checkRelayUrl(input.url);
  const atUrl = await findPairedAt(deps.relays, url);
  if (atUrl !== undefined)
    throw pairingExists(atUrl, `The relay at ${url} is already paired, as "${atUrl.name}"; unpair "${atUrl.name}" first to pair it again.`);
  const inbound = deps.secrets.newToken();
  const answer = await deps.link.pair(url, {
    code: input.code.trim(),
    name: input.self.name,
    url: input.self.url,
    version: input.self.version,
    token: inbound,
  });
  const name = checkRelayName(answer.name, 'The other relay answered a name');
  if (name.toLowerCase() === input.self.name.toLowerCase()) {
    throw invalidInput(`The relay at ${url} is named "${name}", like this one; a relay cannot pair with itself or with a relay of its own name.`);
  }
  const relay = {
    name,
    url,
    level: 'full' as const,
    ownerUserId: input.userId,
    inboundTokenHash: deps.secrets.hash(inbound),
    outboundToken: answer.token,
    version: answer.version,
    online: true,
    createdAt: now,
  };
  // The other relay has kept this one by now; the refusal says so, since only its user can undo that side.
  const existing = await deps.relays.add(relay);
  if (existing !== undefined) {
    throw pairingExists(
      existing,
      `The relay at ${url} is named "${name}", and "${existing.name}" (${existing.url}) is already paired; unpair "${existing.name}" first to pair it again. The relay at ${url} now lists this relay as paired: unpair it there too.`,
    );
  }
  return statusOf(relay);
}

/** The pairing at `url` or at another spelling of it (sameRelayUrls: localhost and 127.0.0.1 are one relay). */
export async function findPairedAt(relays: Pick<PairedRelayStore, 'findByUrl'>, url: string): Promise<PairedRelay | undefined> {
  for (const spelling of sameRelayUrls(url)) {
    const found = await relays.findByUrl(spelling);
    if (found !== undefined) return found;
  }
  return undefined;
}
