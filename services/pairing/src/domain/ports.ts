import type { PairedRelay } from './paired-relay.ts';

/** The paired relays this service owns. */
export interface PairedRelayStore {
  /** Every paired relay, ordered by name. */
  list(): Promise<PairedRelay[]>;
}
