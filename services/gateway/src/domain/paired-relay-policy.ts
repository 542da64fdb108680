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

/** A call as it arrives from a paired relay (POST /relay/v1/…), with what this relay knows of the pairing. */
export interface IncomingRelayCall {
  /** What is asked, for the refusal ("create_session", "an ask"). */
  what: string;
  /** The lowest level this relay must grant the pairing for it ('none': any pairing); the same table as outgoing calls. */
  needs: AgentLevelName | 'none';
  /** It could change or watch something here (what Accept prompts switches off). */
  changesOrWatches: boolean;
  /** It passes a prompt on to this relay's agents, so the hop limit governs it. */
  sendsPrompt: boolean;
  /** The pairing as this relay keeps it: the caller's name, the level granted to it here, Accept prompts. */
  pairing: { relayName: string; level: AgentLevelName; acceptPrompts: boolean };
  /** The hops the call carries (counting the boundary into this relay) and the relays it came through. */
  provenance: { hops: number; viaRelays: readonly string[] };
  /** This relay's own name. */
  selfName: string;
}

/**
 * Throws the refusal this relay gives a paired relay's call on its own side, whatever the calling relay checked
 * (docs/security.md, Paired relays), before anything is read or written: REMOTE_RELAY_PERMISSION below the level
 * this relay grants the pairing ("Agents may" here) or, for what could change or watch anything, while Accept
 * prompts is off; REMOTE_RELAY_HOP_LIMIT for a prompt that has already crossed two relays before this one and did
 * not come through it before. A calling relay's word that its user unlocked this relay by mention is not taken:
 * such a prompt is refused here, as this relay's person never allowed it.
 */
export function checkIncomingRelayCall(call: IncomingRelayCall): void {
  const { pairing, needs } = call;
  if (needs !== 'none' && AGENT_LEVELS.indexOf(pairing.level) < AGENT_LEVELS.indexOf(needs)) {
    throw toolError(
      'REMOTE_RELAY_PERMISSION',
      `Relay "${call.selfName}" lets agents of relay "${pairing.relayName}" do ${pairing.level === 'off' ? 'nothing' : `only what "${pairing.level}" allows`} (its "Agents may" for that pairing, Settings → Relays there); ${call.what} needs at least ${needs}. Nothing was done.`,
      { relay: call.selfName, level: pairing.level, needed: needs },
    );
  }
  if (call.changesOrWatches && !pairing.acceptPrompts) {
    throw toolError(
      'REMOTE_RELAY_PERMISSION',
      `Relay "${call.selfName}" does not accept prompts from other relays' agents (Settings → Relays), so ${call.what} is refused there. Listing and reading sessions, reading task output, waiting, relay_info and usage still work.`,
    );
  }
  const { hops, viaRelays } = call.provenance;
  // The chain ends with the caller; a prompt that came back is one this relay passed on before.
  const cameBack = viaRelays.slice(0, -1).some((name) => name.toLowerCase() === call.selfName.toLowerCase());
  if (call.sendsPrompt && hops > HOP_LIMIT && !cameBack) {
    throw toolError(
      'REMOTE_RELAY_HOP_LIMIT',
      `This prompt has already crossed ${hops - 1} relays before relay "${call.selfName}" (${viaRelays.map((name) => `"${name}"`).join(', ')}); relay "${call.selfName}" takes a prompt from a third relay only when it came through it before. Ask the user of relay "${call.selfName}" to send it there. Nothing was sent.`,
      { relay: call.selfName, hops, cameThrough: [...viaRelays] },
    );
  }
}
