import type { PairedRelayStatus } from './paired-relay.ts';
import type { PairedRelayStore } from './ports.ts';

/**
 * Every paired relay, by name, with its link state. No links exist yet: until the fetch loops keep
 * them, every relay reads as offline with an unknown version ("").
 */
export async function listPairedRelays(store: PairedRelayStore): Promise<PairedRelayStatus[]> {
  const relays = await store.list();
  return relays.map((relay) => ({ name: relay.name, url: relay.url, level: relay.level, online: false, version: '' }));
}
