import type { PairedRelay, PairingOwner, RelaySettings, SessionOwner } from '../ports.ts';

export interface RelayState {
  settings: RelaySettings;
  paired: PairedRelay[];
}

/**
 * The relay's settings and paired relays, read from their owners for one request. `local`: the request works on
 * this relay only, so with agent sessions on it needs no paired relay (relay_tool is on whatever they allow) and
 * the pairing service is not asked; `paired` is then empty.
 */
export async function readRelayState(owners: { sessions: SessionOwner; pairing: PairingOwner }, local = false): Promise<RelayState> {
  if (!local) {
    const [settings, paired] = await Promise.all([owners.sessions.getRelaySettings(), owners.pairing.listPairedRelays()]);
    return { settings, paired };
  }
  const settings = await owners.sessions.getRelaySettings();
  return { settings, paired: settings.agentSessionsEnabled ? [] : await owners.pairing.listPairedRelays() };
}
