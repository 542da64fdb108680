/**
 * An effect a call makes at most once, whichever gateway replica runs it: a call run as an MCP task records the effect
 * as begun before it is made and its outcome once made (the task's progress, in the session service), so a replica
 * that takes the task over reads the outcome instead of making the effect again, and ends a task whose effect was begun
 * but not recorded as made rather than guess (docs/adr/0042-mcp-tasks-taken-over.md). A call made again past an effect
 * recorded made skips the checks that came before it (madeBefore): they were passed, and asked again they would count
 * the effect itself (the loop guard's prompt, the session at work) or ask the person anew.
 */
import type { ActionContext } from './action-context.ts';

/** How an effect's outcome is kept: as JSON, and read back (a generated message's toJSON and fromJSON). */
export interface OutcomeCodec<T> {
  toJSON(outcome: T): unknown;
  fromJSON(json: unknown): T;
}

/** The effects of a call run as an MCP task, as its task records them. */
export interface CallEffects {
  /** Makes the effect `name` (one per call), or answers its outcome recorded by the replica that made it. */
  once<T>(name: string, make: () => Promise<T>, codec: OutcomeCodec<T>): Promise<T>;
  /** The outcome of the effect `name` recorded made by a replica that ran the call before; undefined when none was. */
  made<T>(name: string, codec: OutcomeCodec<T>): T | undefined;
}

/** `make` run once for the call of `context`: through its task's record when it runs as one, else simply. */
export function madeOnce<T>(context: Pick<ActionContext, 'effects'>, name: string, make: () => Promise<T>, codec: OutcomeCodec<T>): Promise<T> {
  return context.effects === undefined ? make() : context.effects.once(name, make, codec);
}

/** The outcome of the effect `name` the call of `context` made before (on the replica that ran its task first), if any. */
export function madeBefore<T>(context: Pick<ActionContext, 'effects'>, name: string, codec: OutcomeCodec<T>): T | undefined {
  return context.effects?.made(name, codec);
}
