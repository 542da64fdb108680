import type { RelaySettings } from '@relay/proto/relay/session/v1/session';
import type { PairedRelay } from '@relay/proto/relay/pairing/v1/pairing_service';
import { answered } from '../../domain/answers.ts';
import { isRelayToolOn } from '../../domain/is-relay-tool-on.ts';
import { agentLevelName } from '../views/pairing-view.ts';
import type { PairingClient, SessionClient } from '../ports.ts';

export interface RelayState {
  settings: RelaySettings;
  paired: PairedRelay[];
}

/**
 * The relay's settings and paired relays, read from their owners for one request. `local`: the request works on
 * this relay only, so with agent sessions on it needs no paired relay (relay_tool is on whatever they allow) and
 * the pairing service is not asked; `paired` is then empty.
 */
export async function readRelayState(owners: { sessions: SessionClient; pairing: PairingClient }, local = false): Promise<RelayState> {
  if (!local) {
    const [settings, paired] = await Promise.all([relaySettingsOf(owners.sessions), owners.pairing.listPairedRelays({})]);
    return { settings, paired: paired.relays };
  }
  const settings = await relaySettingsOf(owners.sessions);
  return { settings, paired: settings.agentSessionsEnabled ? [] : (await owners.pairing.listPairedRelays({})).relays };
}

async function relaySettingsOf(sessions: SessionClient): Promise<RelaySettings> {
  return answered((await sessions.getRelaySettings({})).settings, 'GetRelaySettings', 'settings');
}

/** Whether relay_tool is on with `state` (domain/is-relay-tool-on.ts), the paired relays' levels read by name. */
export function relayToolOn({ settings, paired }: RelayState): boolean {
  return isRelayToolOn(
    settings,
    paired.map((relay) => agentLevelName(relay.level)),
  );
}
