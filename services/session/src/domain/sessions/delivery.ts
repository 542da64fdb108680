/**
 * How far a message sent to a session has come (issue 40): read off the turn it queued, or, in an external session,
 * off its agent's read marker — never a state of its own.
 */
import type { TurnStatus } from '../turns/turn.ts';
import type { MessageRole } from './conversation.ts';

/** queued: not yet with the agent; delivered: the agent has it; failed: it will not reach the agent, or its turn failed. */
export type MessageDelivery = 'queued' | 'delivered' | 'failed';

/** The roles of messages sent to a session (by the person, another agent, a relay event, a schedule). */
const SENT_ROLES: readonly MessageRole[] = ['user', 'agent', 'event', 'schedule'];

/**
 * A message's delivery from its turn: queued while the turn waits; delivered once it started (running, waiting for
 * an answer, done, or stopped after it started); failed when the turn ended in error, or was stopped before it
 * started.
 */
export function turnDelivery(turn: { status: TurnStatus; started: boolean }): MessageDelivery {
  switch (turn.status) {
    case 'queued':
      return 'queued';
    case 'error':
      return 'failed';
    case 'stopped':
      return turn.started ? 'delivered' : 'failed';
    case 'running':
    case 'waiting_for_answer':
    case 'done':
      return 'delivered';
  }
}

/** What a read knows about one message: its role, its order, and its turn if it queued one. */
export interface DeliveryFacts {
  role: MessageRole;
  seq: number;
  turn: { status: TurnStatus; started: boolean } | null;
}

/**
 * A message's delivery in its session, or undefined for one that was not sent to it (a reply, an error row). A
 * message with a turn goes by its turn; in an external session (no turns) one at or before the agent's read marker
 * (`externalReadSeq`) is delivered, a later one queued.
 */
export function messageDelivery(message: DeliveryFacts, session: { origin: string; externalReadSeq: number }): MessageDelivery | undefined {
  if (!SENT_ROLES.includes(message.role)) return undefined;
  if (message.turn !== null) return turnDelivery(message.turn);
  if (session.origin === 'external') return message.seq <= session.externalReadSeq ? 'delivered' : 'queued';
  return undefined;
}
