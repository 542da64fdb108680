/**
 * What every action receives besides its arguments: who calls, this relay's name and state as read
 * for this call, and the owners to call.
 */
import type { Caller, PairedRelay, PairingOwner, RelaySettings, SessionOwner } from '../ports.ts';
import type { ToolArguments } from './arguments.ts';
import type { Success } from './result.ts';

export interface ActionContext {
  /** The calling session's agent, acting for its user. */
  caller: Caller & { sessionId: string };
  relayName: string;
  /** The relay's settings, read once for this call. */
  settings: RelaySettings;
  /** The paired relays, read once for this call. */
  paired: PairedRelay[];
  sessions: SessionOwner;
  pairing: PairingOwner;
}

/** One relay_tool action: validate, resolve the relay, check policy, call the owner, shape the result. */
export type Action = (args: ToolArguments, context: ActionContext) => Promise<Success>;
