import type { Message, MessageRole, Provenance, RelayUnlock } from './conversation.ts';
import type { RelayMode, Session } from './session.ts';
import type { Turn, TurnQueuedEvent } from '../turns/turn.ts';

/** What is queued into a session: the text and who wrote it. */
export interface QueuedPrompt {
  text: string;
  role: MessageRole;
  /** Set on prompts another agent sent (and carried into the turn, so hops travel on). */
  provenance: Provenance | null;
  /** The conversation whose agent sent it, if one did. */
  senderSessionId: string | null;
  /** The relay mode the turn runs in. */
  mode: RelayMode;
}

/** The rows and the event that queuing a prompt writes: the message, its queued turn, turn_queued. */
export function buildQueuedMessage(
  ids: { newId(): string },
  session: Pick<Session, 'id' | 'userId'>,
  prompt: QueuedPrompt,
  now: Date,
): { message: Message; turn: Turn; event: TurnQueuedEvent } {
  const message: Message = {
    id: ids.newId(),
    sessionId: session.id,
    role: prompt.role,
    text: prompt.text,
    provenance: prompt.provenance,
    model: '',
    senderSessionId: prompt.senderSessionId,
    createdAt: now,
  };
  const turn: Turn = {
    id: ids.newId(),
    sessionId: session.id,
    messageId: message.id,
    status: 'queued',
    mode: prompt.mode,
    provenance: prompt.provenance,
    senderSessionId: prompt.senderSessionId,
    replyText: '',
    replyModel: '',
    error: '',
    inFlight: '',
    pendingQuestions: [],
    stopRequested: false,
    queuedAt: now,
    startedAt: null,
    endedAt: null,
  };
  const event: TurnQueuedEvent = {
    eventId: ids.newId(),
    occurredAt: now,
    sessionId: session.id,
    userId: session.userId,
    turnId: turn.id,
    messageId: message.id,
  };
  return { message, turn, event };
}

/**
 * The provenance of a prompt the caller's agent sends on this relay: it keeps the hops and the chain of relays
 * of the turn that sends it (decisions.md, Across relays).
 */
export function agentProvenance(caller: Session, callerOpenTurns: readonly Turn[], relayName: string): Provenance {
  const running = callerOpenTurns.find((turn) => turn.status === 'running' || turn.status === 'waiting_for_answer');
  return {
    originRelay: relayName,
    originSessionId: caller.id,
    originSessionTitle: caller.title,
    model: caller.model,
    hops: running?.provenance?.hops ?? 0,
    viaRelays: [...(running?.provenance?.viaRelays ?? [])],
  };
}

/**
 * A prompt as it is queued (decisions.md, Across relays): a user's message as typed; a prompt from another
 * relay's agent starts with the "Remote prompt" line and unlocks that relay in the conversation, so the agent
 * here can answer; `mentioned` are the paired relays a user's message names, which it unlocks too.
 */
export function promptOf(
  input: { text: string; provenance: Provenance | null; mentioned: readonly string[] },
  fromAgent: boolean,
  relayName: string,
): { text: string; role: MessageRole; unlocks: RelayUnlock[] } {
  const remote = input.provenance !== null && input.provenance.originRelay !== '' && input.provenance.originRelay !== relayName;
  if (remote) {
    return {
      text: `${remotePromptHeader(input.provenance!)}\n${input.text}`,
      role: 'agent',
      unlocks: [{ relay: input.provenance!.originRelay, byMention: false }],
    };
  }
  if (fromAgent) return { text: input.text, role: 'agent', unlocks: [] };
  return { text: input.text, role: 'user', unlocks: input.mentioned.map((relay) => ({ relay, byMention: true })) };
}

/**
 * The line an agent-sent prompt starts with on the receiving side (decisions.md, Across relays), so the
 * agent knows another agent, not the user, is talking.
 */
export function remotePromptHeader(provenance: Provenance): string {
  const model = provenance.model === '' ? 'unknown model' : provenance.model;
  return `[Remote prompt from an agent on relay "${provenance.originRelay}" · session "${provenance.originSessionTitle}" · ${model} · acting for the user]`;
}
