import { isAppError } from '@relay/errors';
import type { PairedRelayStore, RelayLink } from './ports.ts';

/**
 * Asks every paired relay who it is, so list_relays shows whether it is online and which version it runs (and
 * feature checks compare against it). A relay that does not answer is offline; one that refuses the token answered,
 * so it is online (its calls will say REMOTE_RELAY_AUTH).
 */
export async function probeLinks(deps: { relays: PairedRelayStore; link: RelayLink }, now: Date): Promise<void> {
  const relays = await deps.relays.list();
  await Promise.all(
    relays.map(async (relay) => {
      try {
        const { version } = await deps.link.hello({ url: relay.url, token: relay.outboundToken });
        await deps.relays.noteContact(relay.name, { online: true, version, at: now });
      } catch (error) {
        if (!isAppError(error)) throw error;
        await deps.relays.noteContact(relay.name, { online: error.kind !== 'unavailable', at: now });
      }
    }),
  );
}
