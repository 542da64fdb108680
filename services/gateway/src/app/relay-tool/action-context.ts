/**
 * What every action receives besides its arguments: who calls, this relay's name and state as read
 * for this call, the owners to call, and the call's own line to the agent (progress, going away).
 */
import type { Clock } from '@relay/clock';
import type { Caller } from '../../domain/caller.ts';
import type { RelaySettings } from '@relay/proto/relay/session/v1/session';
import type { z } from 'zod';
import type { ActionTraits } from '../../domain/action-traits.ts';
import type { CallShape } from '../../domain/call-key.ts';
import type { Owners } from '../ports.ts';
import type { CallEffects } from './made-once.ts';
import type { PairedRelay } from '@relay/proto/relay/pairing/v1/pairing_service';
import type { PendingMessages } from '@relay/proto/relay/session/v1/session_service';

/**
 * An external caller's pending note, asked along with the one read of list_sessions, read_session or relay_info
 * (their pending_for_session_id), so the call needs no GetPendingMessages of its own (dispatch.ts).
 */
export interface PendingAlong {
  /** The caller's session: the one whose note the read asks for. */
  sessionId: string;
  /** The read answered: the note it carried (unset: nothing waits, or it could not be read). */
  answered(pending: PendingMessages | undefined): void;
}

/** What an action takes besides `action`: one schema per argument (tool-arguments.ts, argumentsOf). */
export type ActionArguments = z.ZodObject<Record<string, z.ZodType>>;

export interface ActionContext extends Owners {
  /** The action called: its handler reads its own facts (write, nothing, toPaired) from here. */
  action: ActionTraits & { args: ActionArguments };
  /** The calling session's agent, acting for its user. */
  caller: Caller & { sessionId: string };
  relayName: string;
  /** The base of openUrl links: the relay's public URL, when one is set. */
  openUrlBase: string | undefined;
  /** The relay's settings, read once for this call. */
  settings: RelaySettings;
  /** The paired relays, read once for this call. */
  paired: PairedRelay[];
  /** Aborts when the agent's request goes away; long waits end early, and nothing more changes. */
  signal: AbortSignal;
  /** The relay's clock (waits run on it); the machine's when left out. */
  clock?: Clock;
  /**
   * Set for an external caller: the performance.now() (real time, as its client counts) by which the call answers
   * whatever it waits for, since its client drops a call held longer (decisions.md, Waiting for the person). What it
   * waited for goes on, and the answer names it (the card, the message) for the next call or `wait` to pick up.
   */
  answerBy?: number;
  /**
   * Set for an external session's 2026 client that opens URLs: a card still pending is answered at once, naming the
   * card (the client is sent to the card's page), and the same call made again picks up the person's decision
   * (call-key.ts).
   */
  cardsAnswerAtOnce?: true;
  /**
   * Told of the card the call waits on for the person while it waits (its id), and once it waits no more (undefined):
   * a call run as an MCP task shows input_required meanwhile.
   */
  onCardWait?(cardId: string | undefined): void;
  /** Tells the agent the call is still at work (an MCP progress notification), so its tool timeout restarts. */
  progress(message: string): Promise<void>;
  /** The call in flight (action and arguments), which keys an external session's cards; unset for a paired relay's call. */
  call?: CallShape;
  /**
   * Set for a call run as an MCP task: its effects that must not be made twice (a message sent, a session created) go
   * through it (made-once.ts), so a replica that takes the task over finds them made; its cards are keyed by the call.
   */
  effects?: CallEffects;
  /** Set for an external caller: the reads that can ask for its pending note along do. */
  pendingAlong?: PendingAlong;
}
