/**
 * The deadline of the unary gRPC call being served, for the work its handler does (docs/adr/0049, Deadlines). A caller
 * gives up at its deadline (the gateway after 10 s); work of its call still waiting for the database then is work for
 * nobody, which only delays the calls still waited on. The transaction gate and the pool's lines (@relay/db) read it
 * here and give such work up. Work the handler leaves running once it has answered (a turn it started) is no
 * longer its call's: from then on it has no deadline.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Deadline } from '@grpc/grpc-js';

interface ServedCall {
  /** Milliseconds since the epoch; undefined once the handler answered. */
  deadline: number | undefined;
}

const served = new AsyncLocalStorage<ServedCall>();

/** The deadline (ms since the epoch) of the call whose handler runs this work; undefined when none or no call. */
export function callDeadline(): number | undefined {
  return served.getStore()?.deadline;
}

/**
 * Runs `handle` (a handler's work) under `deadline` (a call's own, Infinity when it has none) until the promise it
 * returns settles.
 */
export function withCallDeadline<T>(deadline: Deadline, handle: () => Promise<T>): Promise<T> {
  const ms = deadline instanceof Date ? deadline.getTime() : deadline;
  const call: ServedCall = { deadline: Number.isFinite(ms) ? ms : undefined };
  return served.run(call, handle).finally(() => (call.deadline = undefined));
}
