import { toolError } from './errors.ts';
import { resolveRelay, type KnownRelays } from './relay-name.ts';

/**
 * The relay of a question action (ask, list_questions, withdraw): left out, it is this one. Asks
 * about the agent's own conversation need no setting and no mention, so agent sessions being off
 * does not refuse them; a paired relay cannot be reached from here yet (REMOTE_RELAY_UNSUPPORTED).
 */
export function ownRelay(relay: string | undefined, context: KnownRelays): string {
  const target = resolveRelay(relay, context.relayName, context.paired);
  if (target.kind === 'paired') {
    throw toolError(
      'REMOTE_RELAY_UNSUPPORTED',
      `Asks on paired relays are not available on this relay yet; "${target.relay.name}" cannot be reached from here.`,
    );
  }
  return target.name;
}
