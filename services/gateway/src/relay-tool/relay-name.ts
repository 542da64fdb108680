/**
 * Resolves the `relay` argument (spec, Naming a relay): "this" or this relay's own name is the
 * relay the agent runs on; a paired relay is named by its name or its host, as list_relays shows it.
 */
import type { PairedRelay } from '../ports.ts';
import { ACTION_TABLE, type ActionName } from './action-table.ts';
import { toolError } from './errors.ts';

export type RelayTarget = { kind: 'this'; name: string } | { kind: 'paired'; relay: PairedRelay };

/** The relay a call names; left out, it is this one. Throws REMOTE_RELAY_UNKNOWN_RELAY for any other name. */
export function resolveRelay(requested: string | undefined, selfName: string, paired: readonly PairedRelay[]): RelayTarget {
  const wanted = (requested ?? 'this').trim().replace(/^@/, '').toLowerCase();
  if (wanted === 'this' || wanted === selfName.toLowerCase()) return { kind: 'this', name: selfName };
  const relay = paired.find((candidate) => candidate.name.toLowerCase() === wanted || hostOf(candidate.url) === wanted);
  if (relay) return { kind: 'paired', relay };
  const known = [`"this" (${selfName})`, ...paired.map((candidate) => candidate.name)].join(', ');
  throw toolError('REMOTE_RELAY_UNKNOWN_RELAY', `No relay named "${requested}". Relays you can name: ${known}.`);
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * Actions the gateway forwards to a paired relay as they are. The watching and question actions reach a paired
 * relay their own way (registered subscriptions, asks kept there), through their own action files.
 */
const FORWARDED: ReadonlySet<ActionName> = new Set([
  'relay_info',
  'usage',
  'list_sessions',
  'read_session',
  'read_task_output',
  'send',
  'create_session',
  'update_session',
  'wait',
  'answer_question',
  'stop',
  'archive',
  'schedule',
  'list_schedules',
  'unschedule',
]);

/** The paired relay a call names when the gateway forwards that action; undefined for this relay. Throws REMOTE_RELAY_UNKNOWN_RELAY. */
export function pairedTarget(action: ActionName, requested: string | undefined, selfName: string, paired: readonly PairedRelay[]): PairedRelay | undefined {
  if (ACTION_TABLE[action].relay === 'none' || !FORWARDED.has(action)) return undefined;
  const target = resolveRelay(requested, selfName, paired);
  return target.kind === 'paired' ? target.relay : undefined;
}
