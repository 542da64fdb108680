/**
 * What a provider is to the turn runtime: something that turns a queued message into a reply,
 * reporting what it does on the way, and that stops when the turn's signal aborts.
 */
import type { Clock } from '@relay/clock';
import type { PendingQuestion } from '../../domain/turns/turn.ts';
import type { RunnableSession } from './turn-store.ts';

/** What a provider reports while a turn runs. */
export type ProviderEvent =
  /** More reply text (read_session's inFlight). */
  | { type: 'text'; delta: string }
  /** The turn now waits on a question in its own session (waiting_for_answer). */
  | { type: 'question_raised'; question: PendingQuestion }
  /** The question was answered, dismissed or withdrawn; the turn runs on. */
  | { type: 'question_answered'; questionId: string }
  /** A tool the agent calls (the session's activity line). */
  | { type: 'tool_call'; name: string; input: unknown }
  /** A sub-agent the provider runs inside the turn finished (where the provider reports them). */
  | { type: 'subagent_finished'; description: string; status: 'completed' | 'failed' | 'stopped'; summary: string }
  /**
   * Where another replica can pick the turn up from here (TurnInput.resume there), kept with the turn before what
   * follows runs. `parked`: the turn now only waits for a person or a reply (a card, an ask, a `wait`), so a replica
   * that stops hands it over at once; otherwise at the end of its grace. A provider that never reports one cannot be
   * picked up.
   */
  | { type: 'resume_point'; point: ResumePoint; parked: boolean };

/** A provider's own record of where its turn is (JSON), read back only by that provider. */
export type ResumePoint = { readonly [key: string]: unknown };

/** One turn as a provider sees it. */
export interface TurnInput {
  session: RunnableSession;
  /** The message that started the turn. */
  message: { id: string; text: string };
  /** The session worker's bearer token for the gateway's MCP endpoint. */
  token: string;
  /** Aborts when the turn is stopped, overruns Max turn duration, or the relay stops. */
  signal: AbortSignal;
  /** The relay clock: every wait a provider makes is on it. */
  clock: Clock;
  /** Reports progress; awaiting it orders the report before what follows (e.g. a question before its wait). */
  emit(event: ProviderEvent): Promise<void>;
  /** The turn's last resume_point when another replica ran it before (it was handed over); undefined on a first start. */
  resume?: ResumePoint;
}

/** The messages of a session before `messageId`, oldest first (the relay's record of the conversation). */
export type ConversationHistory = (sessionId: string, messageId: string) => Promise<{ role: 'user' | 'assistant'; content: string }[]>;

/** A finished turn's reply. */
export interface TurnReply {
  text: string;
  model: string;
}

/** Whether a provider can run turns here, and why not (never a secret in the reason). */
export interface Availability {
  available: boolean;
  /** '' when available. */
  reason: string;
}

/**
 * A provider plug-in: one per provider id. It says whether it can run here, which models it offers,
 * runs a turn streaming its events through `emit`, stops when the turn's signal aborts, and, where
 * the provider can, takes text steered into a turn while it runs.
 */
export interface Provider {
  readonly id: string;
  /** Whether this relay can run the provider's turns now (credentials, binary), with why not. */
  availability(): Availability;
  /** The model ids it offers (discovery or configuration); undefined while not known. */
  listModels(signal?: AbortSignal): Promise<string[] | undefined>;
  /** Whether steer() may take text into a running turn (decisions.md, While the watcher is mid-turn). */
  readonly canSteer: boolean;
  /** Steers text into the session's turn running here; false when none runs here (the caller queues it instead). */
  steer?(sessionId: string, text: string): boolean;
  /** Runs the turn to its reply; throws TurnFailed for a failure to show, or the signal's reason once aborted. */
  startTurn(input: TurnInput): Promise<TurnReply>;
}

/** Always able to run: a provider that needs nothing from outside. */
export const ALWAYS_AVAILABLE: Availability = { available: true, reason: '' };

/**
 * The abort reason of a turn this replica hands over to another (it stops): the turn goes on there, so its provider
 * leaves its cards pending and its session's state as it is.
 */
export class TurnHandedOver extends Error {
  override readonly name = 'TurnHandedOver';
}

/** Whether the turn's signal aborted because the turn is handed to another replica (not stopped or ended). */
export function isHandedOver(signal: AbortSignal): boolean {
  return signal.aborted && signal.reason instanceof TurnHandedOver;
}

/** A turn that failed for a reason the user and the calling agent should read (its message becomes the turn's error). */
export class TurnFailed extends Error {
  override readonly name = 'TurnFailed';
}
