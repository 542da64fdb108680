/**
 * One relay_tool action, whole, in one file under actions/: the arguments it takes (their schemas check the
 * call and make the tool's JSON Schema), whether it names a relay, who may call it (this relay's agents —
 * hosted or external sessions alike — and paired relays, each way), whether it is a write, and its handlers.
 * Every list the tool keeps (the action enum, the writes, what is forwarded, what a paired relay may call here,
 * the level each needs) is read off the definitions (action-list.ts).
 */
import type { z } from 'zod';
import type { ActionContext } from './action-context.ts';
import type { ToolArguments } from './tool-arguments.ts';
import type { RelayCallOrigin } from './serve-relay-call.ts';
import type { Success } from './result.ts';
import type { AgentLevelName } from '../pairing-view.ts';

/** An action's work for a call from this relay's own agents. */
export type Action = (args: ToolArguments, context: ActionContext) => Promise<Success>;

/** An action's work for a paired relay's call (POST /relay/v1/tool); that relay has already asked its cards. */
export type ServedAction = (args: ToolArguments, context: ActionContext, origin: RelayCallOrigin) => Promise<Success>;

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
}

export interface ActionDefinition<N extends string = string> {
  name: N;
  /** What it takes besides `action`, in the order the spec names them (tool-arguments.ts, argumentsOf). */
  args: z.ZodObject<Record<string, z.ZodType>>;
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
  /** Calls naming a paired relay; left out, such a call is refused: the relay the agent runs on keeps it. */
  toPaired?: ToPairedRelay;
  /** The call from this relay's agents. */
  handler: Action;
  /** The call from a paired relay's agents, served here; left out, such a call is refused. */
  fromPaired?: ServedAction;
}

/** Declares an action; its name stays a literal, so the list of definitions gives the names' type. */
export function defineAction<const N extends string>(definition: ActionDefinition<N>): ActionDefinition<N> {
  return definition;
}

/** The sentence a refusal of the action ends with. */
export function nothingOf(definition: Pick<ActionDefinition, 'nothing'>): string {
  return definition.nothing ?? 'Nothing was done.';
}

