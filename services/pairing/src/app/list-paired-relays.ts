import { statusOf, type PairedRelayStatus } from '../domain/paired-relay.ts';
import type { PairedRelayStore } from './ports.ts';

/** Every paired relay, by name, with what the last contact showed of it (online, version). */
export async function listPairedRelays(store: PairedRelayStore): Promise<PairedRelayStatus[]> {
  return (await store.list()).map(statusOf);
}
