/**
 * Resolves the `relay` argument (spec, Naming a relay): "this" or this relay's own name is the
 * relay the agent runs on; a paired relay is named by its name or its host, as list_relays shows it.
 */
import type { ActionTraits } from './action-traits.ts';
import { toolError } from './errors.ts';
import type { PairedRelay } from '@relay/proto/relay/pairing/v1/pairing_service';

/** This relay's name and its paired relays, as read for one call. */
export interface KnownRelays {
  relayName: string;
  paired: readonly PairedRelay[];
}

export type RelayTarget = { kind: 'this'; name: string } | { kind: 'paired'; relay: PairedRelay };

/** The relay a call names; left out, it is this one. Throws REMOTE_RELAY_UNKNOWN_RELAY for any other name. */
export function resolveRelay(requested: string | undefined, selfName: string, paired: readonly PairedRelay[]): RelayTarget {
  if (namesThisRelay(requested, selfName)) return { kind: 'this', name: selfName };
  const wanted = wantedName(requested);
  const relay = paired.find((candidate) => candidate.name.toLowerCase() === wanted || hostOf(candidate.url) === wanted);
  if (relay) return { kind: 'paired', relay };
  const known = [`"this" (${selfName})`, ...paired.map((candidate) => candidate.name)].join(', ');
  throw toolError('REMOTE_RELAY_UNKNOWN_RELAY', `No relay named "${requested}". Relays you can name: ${known}.`);
}

/** Whether a `relay` argument, as the agent gave it, names this relay (left out, "this", or its own name). */
export function namesThisRelay(requested: unknown, selfName: string): boolean {
  if (requested !== undefined && typeof requested !== 'string') return false;
  const wanted = wantedName(requested);
  return wanted === 'this' || wanted === selfName.toLowerCase();
}

function wantedName(requested: string | undefined): string {
  return (requested ?? 'this').trim().replace(/^@/, '').toLowerCase();
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * The paired relay a call names when the gateway forwards the action as it is (or refuses it: an action
 * with no way to a paired relay); undefined for this relay, and for the actions that reach a paired relay
 * their own way (registered subscriptions, asks kept there). Throws REMOTE_RELAY_UNKNOWN_RELAY.
 */
export function pairedTarget(
  action: Pick<ActionTraits, 'relay' | 'toPaired'>,
  requested: string | undefined,
  selfName: string,
  paired: readonly PairedRelay[],
): PairedRelay | undefined {
  if (action.relay === 'none' || action.toPaired?.forwarded === false) return undefined;
  const target = resolveRelay(requested, selfName, paired);
  return target.kind === 'paired' ? target.relay : undefined;
}
