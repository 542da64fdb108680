/**
 * What a call to a paired relay must pass on this relay before any card and before it is forwarded
 * (spec, Locked and unlocked, What a paired relay allows, Across relays; decisions.md, Agents may and
 * Across relays), in this order: the lock, the level, the hop limit. The target's own rules follow there.
 */
import type { Conversation } from './answers.ts';
import type { RelayUnlock } from '@relay/proto/relay/session/v1/session_service';
import type { ActionTraits } from './action-traits.ts';
import { toolError } from './errors.ts';
import { relayChain } from './provenance.ts';
import { AGENT_LEVELS, type AgentLevelName } from './agent-levels.ts';

/** Hops from which a prompt is not passed on to a third relay (decisions.md, Limits). */
export const HOP_LIMIT = 2;

export interface PairedRelayCall {
  /** The action called: its name and how it reaches a paired relay (toPaired: the level it needs there). */
  action: Pick<ActionTraits, 'name' | 'toPaired'>;
  /** The paired relay by name, with the level it grants by name (app/views/pairing-view.ts, pairingView). */
  relay: { name: string; level: AgentLevelName };
  /** The calling conversation's unlocked relays. */
  unlocks: readonly RelayUnlock[];
  /** The provenance of the caller's running turn; unset (hops 0) for a turn the user started. */
  turnProvenance: Conversation['turnProvenance'];
  /** The call passes a prompt on (send, create_session, ask with session). */
  sendsPrompt: boolean;
}

/**
 * Throws the refusal a call to a paired relay gets on this relay: REMOTE_RELAY_UNSUPPORTED for schedules,
 * REMOTE_RELAY_LOCKED until the relay is unlocked in this conversation, REMOTE_RELAY_PERMISSION below the
 * level the action needs, REMOTE_RELAY_HOP_LIMIT for a prompt from a turn at 2 hops or more to a relay the
 * turn's prompt did not come through (its provenance's chain, matched by name, case-insensitively) and the user
 * did not unlock by mentioning it.
 */
export function checkPairedRelayCall(call: PairedRelayCall): void {
  const { relay } = call;
  const action = call.action.name;
  const needed = call.action.toPaired?.level;
  if (needed === undefined) {
    throw toolError(
      'REMOTE_RELAY_UNSUPPORTED',
      `${action}: schedules are kept by the relay the agent runs on; a call that names a paired relay ("${relay.name}") is refused. Use relay "this".`,
    );
  }
  const unlock = call.unlocks.find((candidate) => candidate.relay.toLowerCase() === relay.name.toLowerCase());
  if (unlock === undefined) {
    throw toolError(
      'REMOTE_RELAY_LOCKED',
      `Relay "${relay.name}" is locked in this conversation. Ask the user to mention it (its name or host, e.g. @${relay.name}) in a message here; then it stays open for the rest of the conversation. Nothing was done.`,
      { relay: relay.name },
    );
  }
  const { level } = relay;
  if (needed !== 'none' && AGENT_LEVELS.indexOf(level) < AGENT_LEVELS.indexOf(needed)) {
    throw toolError(
      'REMOTE_RELAY_PERMISSION',
      `${action} needs "Agents may" at least ${needed} for relay "${relay.name}"; it is ${level} (Settings → Relays). Nothing was done.`,
      { relay: relay.name, level, needed },
    );
  }
  const hops = call.turnProvenance?.hops ?? 0;
  const cameThrough = relayChain(call.turnProvenance);
  const cameBack = cameThrough.some((name) => name.toLowerCase() === relay.name.toLowerCase());
  if (call.sendsPrompt && hops >= HOP_LIMIT && !cameBack && !unlock.byMention) {
    const through = cameThrough.map((name) => `"${name}"`).join(', ');
    throw toolError(
      'REMOTE_RELAY_HOP_LIMIT',
      `This turn's prompt has already crossed ${hops} relays (it came through ${through || 'no relay this one knows'}); it is not passed on to a third relay ("${relay.name}") unless the user mentions that relay (e.g. @${relay.name}) in this conversation. Nothing was sent.`,
      { relay: relay.name, hops, cameThrough },
    );
  }
}
