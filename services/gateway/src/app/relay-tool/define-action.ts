/**
 * One relay_tool action, whole, in one file under actions/: the arguments it takes (their schemas check the
 * call and make the tool's JSON Schema), whether it names a relay, who may call it (this relay's agents —
 * hosted or external sessions alike — and paired relays, each way), whether it is a write, and its handlers.
 * Every list the tool keeps (the action enum, the writes, what is forwarded, what a paired relay may call here,
 * the level each needs) is read off the definitions (action-list.ts). What the rules read of it is its traits
 * (domain/action-traits.ts).
 */
import type { ActionArguments, ActionContext } from './action-context.ts';
import type { ToolArguments } from '../../domain/tool-arguments.ts';
import type { RelayCallOrigin } from './relay-call-origin.ts';
import type { Success } from '../../domain/result.ts';
import type { ActionTraits } from '../../domain/action-traits.ts';

/** An action's work for a call from this relay's own agents. */
export type Action = (args: ToolArguments, context: ActionContext) => Promise<Success>;

/** An action's work for a paired relay's call (POST /relay/v1/tool); that relay has already asked its cards. */
export type ServedAction = (args: ToolArguments, context: ActionContext, origin: RelayCallOrigin) => Promise<Success>;

export interface ActionDefinition<N extends string = string> extends ActionTraits<N> {
  /** What it takes besides `action`, in the order the spec names them (tool-arguments.ts, argumentsOf). */
  args: ActionArguments;
  /** The call from this relay's agents. */
  handler: Action;
  /** The call from a paired relay's agents, served here; left out, such a call is refused. */
  fromPaired?: ServedAction;
}

/** Declares an action; its name stays a literal, so the list of definitions gives the names' type. */
export function defineAction<const N extends string>(definition: ActionDefinition<N>): ActionDefinition<N> {
  return definition;
}
