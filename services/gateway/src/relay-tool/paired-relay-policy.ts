/**
 * What a call to a paired relay must pass on this relay before any card and before it is forwarded
 * (spec, Locked and unlocked, What a paired relay allows, Across relays; decisions.md, Agents may and
 * Across relays), in this order: the lock, the level, the hop limit. The target's own rules follow there.
 */
import { AGENT_LEVELS, type AgentLevel, type Conversation, type PairedRelay, type RelayUnlock } from '../ports.ts';
import type { ActionName } from './action-table.ts';
import { toolError } from './errors.ts';
import { relayChain } from './provenance.ts';

/** The lowest "Agents may" level each action needs on a paired relay; null for this relay's own actions. */
export const LEVEL_NEEDED: Record<ActionName, AgentLevel | 'none' | null> = {
  list_relays: 'none',
  relay_info: 'read',
  usage: 'read',
  list_sessions: 'read',
  read_session: 'read',
  read_task_output: 'read',
  wait: 'read',
  list_subscriptions: 'read',
  list_questions: 'read',
  subscribe: 'read',
  unsubscribe: 'read',
  send: 'read_and_prompt',
  ask: 'read_and_prompt',
  withdraw: 'read_and_prompt',
  create_session: 'full',
  update_session: 'full',
  answer_question: 'full',
  stop: 'full',
  archive: 'full',
  transfer_subscriptions: 'full',
  schedule: null,
  list_schedules: null,
  unschedule: null,
};

/** Hops from which a prompt is not passed on to a third relay (decisions.md, Limits). */
export const HOP_LIMIT = 2;

export interface PairedRelayCall {
  action: ActionName;
  relay: PairedRelay;
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
  const { action, relay } = call;
  const needed = LEVEL_NEEDED[action];
  if (needed === null) {
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
  if (needed !== 'none' && AGENT_LEVELS.indexOf(relay.level) < AGENT_LEVELS.indexOf(needed)) {
    throw toolError(
      'REMOTE_RELAY_PERMISSION',
      `${action} needs "Agents may" at least ${needed} for relay "${relay.name}"; it is ${relay.level} (Settings → Relays). Nothing was done.`,
      { relay: relay.name, level: relay.level, needed },
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

/** True for calls that pass a prompt on to the other relay's agents, which the hop limit governs. */
export function sendsPrompt(action: ActionName, args: { session?: string }): boolean {
  return action === 'send' || action === 'create_session' || (action === 'ask' && args.session !== undefined);
}
