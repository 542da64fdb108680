import type { PairedRelayStore, PairingCodeStore } from './ports.ts';

/**
 * A user was removed (relay.session.v1.user_removed): every pairing they made ends as an unpair does (announced, so
 * the subscriptions, asks and watches that depend on it end too), and the pairing codes they made and nobody spent
 * are dropped, so no relay pairs for them later. Each unpaired event's id comes from the removal's, and a pairing
 * or a code already gone is skipped: a redelivery changes nothing.
 */
export async function endUserPairings(
  deps: { relays: PairedRelayStore; codes: PairingCodeStore },
  removal: { eventId: string; userId: string },
  now: Date,
): Promise<{ unpaired: string[]; codes: number }> {
  const theirs = (await deps.relays.list()).filter((relay) => relay.ownerUserId === removal.userId);
  const unpaired: string[] = [];
  for (const relay of theirs) {
    const removed = await deps.relays.remove(relay.name, { eventId: `${removal.eventId}:${relay.name.toLowerCase()}`, occurredAt: now, relay: relay.name });
    if (removed !== undefined) unpaired.push(removed.name);
  }
  return { unpaired, codes: await deps.codes.dropUnspentOf(removal.userId) };
}
