/**
 * What the rules know of a relay_tool action: its name, whether it names a relay, whether it is a write, how a
 * refusal of it ends and how it reaches a paired relay. Its arguments' schema and handlers are the use case's
 * (app/relay-tool/define-action.ts), which declares each action with these traits.
 */
import type { AgentLevelName } from './agent-levels.ts';
import type { CardText } from './card-text.ts';
import type { ToolArguments } from './tool-arguments.ts';

/** A feature of the action that a paired relay only has from a version on (spec, "Added in"). */
export interface Feature {
  since: string;
  /** The call uses the feature; left out, every call of the action does. */
  applies?: (args: ToolArguments) => boolean;
  /** The refusal; {relay} and {version} are filled in. */
  refusal: string;
}

/** How this relay's agents reach a paired relay with the action. */
export interface ToPairedRelay {
  /** The lowest "Agents may" level that relay grants for it ('none': any paired relay). */
  level: AgentLevelName | 'none';
  /** The gateway forwards the call to that relay as it is; otherwise the handler reaches it its own way. */
  forwarded: boolean;
  /** The forwarded call passes a prompt on to that relay's agents, so the hop limit governs it. */
  sendsPrompt?: boolean;
  /** Versions of that relay older than a feature's refuse a call using it, before anything is forwarded. */
  features?: readonly Feature[];
  /**
   * The forwarded call starts a session there: the first session a conversation starts asks the user, as on this
   * relay, and each one started is noted for the conversation, so that card is not asked again.
   */
  startsSession?: boolean;
  /**
   * That relay's dry run (always asked first) may answer needsAllow: it did not record the calling conversation as the
   * session's starter. The user allows it here on the card, once per conversation and relay; the Allow is noted and
   * covers the conversation's later calls there. A dry run that would change nothing (`changed: []`) asks nobody.
   */
  asksAllow?: boolean;
  /** The card this relay shows before forwarding, from that relay's dry run; left out, one that lists the call's arguments. */
  card?: (call: PairedCall) => CardText;
}

/** A forwarded call as its card reads it: the arguments, that relay's dry run, and whether the card grants the Allow. */
export interface PairedCall {
  args: ToolArguments;
  /** That relay's answer to the dry run. */
  checked: Record<string, unknown>;
  /** That relay's name as paired here. */
  relay: string;
  grantsAllow: boolean;
}

export interface ActionTraits<N extends string = string> {
  name: N;
  /** required: it works on one named relay; optional: left out, it means "this"; none: it takes no relay. */
  relay: 'required' | 'optional' | 'none';
  /**
   * A write (spec, Modes): in the ask and plan modes the user allows it on a card first, and a paired relay
   * whose "Accept prompts from other relays' agents" is off refuses it.
   */
  write: boolean;
  /** The sentence a refusal ends with ("Nothing was sent."). */
  nothing?: string;
  /** It refuses an argument it does not take (ending the refusal with `nothing`) instead of listing it in ignored. */
  refusesOthers?: boolean;
  /**
   * It never waits and reports no progress: its result is all a call of it sends, so /mcp answers a call of it on this
   * relay in one JSON body, without the MCP SDK's server (docs/adr/0026).
   */
  answersAtOnce?: boolean;
  /**
   * It neither reads the caller's own conversation (which marks its messages read) nor waits for what arrives in it,
   * and asks for no pending note along (as list_sessions, read_session and relay_info do): an external caller's
   * pending note is read while it runs.
   */
  inboxBlind?: boolean;
  /** Calls naming a paired relay; left out, such a call is refused: the relay the agent runs on keeps it. */
  toPaired?: ToPairedRelay;
}

/** The sentence a refusal of the action ends with. */
export function nothingOf(definition: Pick<ActionTraits, 'nothing'>): string {
  return definition.nothing ?? 'Nothing was done.';
}
