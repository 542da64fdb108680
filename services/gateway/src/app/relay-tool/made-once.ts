/**
 * An effect a call makes at most once, whichever gateway replica runs it: a call run as an MCP task records the effect
 * as begun before it is made and its outcome once made (the task's progress, in the session service), so a replica
 * that takes the task over reads the outcome instead of making the effect again, and ends a task whose effect was begun
 * but not recorded as made rather than guess (docs/adr/0042-mcp-tasks-taken-over.md).
 */
import type { ActionContext } from './action-context.ts';

/** How an effect's outcome is kept: as JSON, and read back (a generated message's toJSON and fromJSON). */
export interface OutcomeCodec<T> {
  toJSON(outcome: T): unknown;
  fromJSON(json: unknown): T;
}

/** Makes the effect `name` (one per call), or answers its outcome recorded by the replica that made it. */
export type MakeOnce = <T>(name: string, make: () => Promise<T>, codec: OutcomeCodec<T>) => Promise<T>;

/** `make` run once for the call of `context`: through its task's record when it runs as one, else simply. */
export function madeOnce<T>(context: Pick<ActionContext, 'makeOnce'>, name: string, make: () => Promise<T>, codec: OutcomeCodec<T>): Promise<T> {
  return context.makeOnce === undefined ? make() : context.makeOnce(name, make, codec);
}
