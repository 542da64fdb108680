import type { PairedRelay, PairingOwner, RelaySettings, SessionOwner } from '../ports.ts';

export interface RelayState {
  settings: RelaySettings;
  paired: PairedRelay[];
}

/** The relay's settings and paired relays, read from their owners for one request. */
export async function readRelayState(owners: { sessions: SessionOwner; pairing: PairingOwner }): Promise<RelayState> {
  const [settings, paired] = await Promise.all([owners.sessions.getRelaySettings(), owners.pairing.listPairedRelays()]);
  return { settings, paired };
}
