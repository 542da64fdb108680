/**
 * The state the fake owners share (the session, pairing and question fakes read and change it) and the helpers
 * their RPCs use; start-fake-owners.ts hands it to the tests as FakeOwners.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '@relay/errors';
import type { ForwardToolCallRequest, PairedRelay, AgentLevel } from '@relay/proto/relay/pairing/v1/pairing_service';
import type { Ask, Card } from '@relay/proto/relay/question/v1/question_service';
import {
  MessageDelivery,
  SessionOrigin,
  SessionState,
  TurnStatus,
  type ChatMessage,
  type PendingQuestion,
  type Provenance,
  type RelaySettings,
  type Session,
  type TurnResult,
} from '@relay/proto/relay/session/v1/session';
import type { FakeCall, FakeOwners, WaitScript } from '../start-fake-owners.ts';

/** The fakes' shared state and helpers. */
export type OwnersState = ReturnType<typeof createOwnersState>;

/** Empty state; `owners` is filled in by startFakeOwners once the fakes listen. */
export function createOwnersState() {
  const settings: RelaySettings = { agentSessionsEnabled: true, maxWaitSeconds: 600, maxTurnMinutes: 60, taskQuietMinutes: 10 };
  const paired: PairedRelay[] = [];
  const unlocked = new Map<string, { relay: string; byMention: boolean }[]>();
  const forwarded: ForwardToolCallRequest[] = [];
  /** Paired relays per conversation where the user allowed changes to sessions it did not start. */
  const updateAllowed = new Map<string, string[]>();
  const relayTokens = new Map<string, { relayName: string; userId: string; acceptPrompts: boolean; level?: AgentLevel }>();
  const sessions: Session[] = [];
  const messages = new Map<string, ChatMessage[]>();
  const turns = new Map<string, TurnResult>();
  const pendingQuestions = new Map<string, PendingQuestion[]>();
  const askMarks = new Map<string, number>();
  const asksAbout = new Map<string, Ask[]>();
  const askListings: string[] = [];
  const tokens = new Map<string, { userId: string; sessionId?: string }>();
  const users: FakeOwners['users'] = [];
  const roleOf = (userId: string) => users.find((user) => user.id === userId)?.role ?? 'admin';
  const calls: FakeCall[] = [];
  const refusals = new Map<string, AppError>();
  const realRefusals = new Map<string, AppError>();
  const failing = new Set<string>();
  const cancelledWaits: string[] = [];
  const cards: Card[] = [];
  const cardWaits: number[] = [];
  const grants = new Set<string>();
  const noRunningTurn = new Set<string>();

  const owners = {} as FakeOwners;

  const record = (method: string, request: object) => {
    calls.push({ method, request: { ...request } as Record<string, unknown> });
    if (failing.has(method)) throw new Error(`${method} broke: password=hunter2`);
    const refusal = refusals.get(method) ?? ('dryRun' in request && request.dryRun === false ? realRefusals.get(method) : undefined);
    if (refusal) throw refusal;
  };
  const notFound = (id: string) => new AppError('REMOTE_RELAY_NOT_FOUND', 'not_found', `No session ${id} on this relay.`);
  const sessionOf = (userId: string, id: string): Session => {
    const session = sessions.find((candidate) => candidate.id === id && candidate.userId === userId);
    if (!session) throw notFound(id);
    return session;
  };
  // Nothing waits in an external session's conversation here (the inbox is the session service's: services/session, e2e).
  const pendingOf = (id: string | undefined) =>
    sessions.find((candidate) => candidate.id === id)?.origin === SessionOrigin.SESSION_ORIGIN_EXTERNAL ? { count: 0, previews: [] } : undefined;
  const writable = (userId: string, id: string): Session => {
    const session = sessionOf(userId, id);
    if (session.archived) throw new AppError('REMOTE_RELAY_ARCHIVED', 'failed_precondition', `Session ${id} is archived.`);
    return session;
  };
  const queue = (session: Session, text: string, role: string, provenance: Provenance | undefined, model: string): string => {
    const messageId = randomUUID();
    const list = messages.get(session.id) ?? [];
    list.push({
      id: messageId,
      role,
      text,
      provenance,
      createdAt: new Date('2026-10-18T09:00:00Z'),
      model: '',
      delivery: MessageDelivery.MESSAGE_DELIVERY_DELIVERED,
    });
    messages.set(session.id, list);
    session.messageCount = list.length;
    turns.set(messageId, {
      sessionId: session.id,
      messageId,
      status: TurnStatus.TURN_STATUS_DONE,
      replyText: `${model}: ${text}`,
      replyModel: model,
      error: '',
      pendingQuestions: [],
      delivery: MessageDelivery.MESSAGE_DELIVERY_DELIVERED,
    });
    return messageId;
  };

  const newSession = (userId: string, fields: Partial<Session> = {}): Session => ({
    id: randomUUID(),
    userId,
    title: 'Untitled',
    provider: 'script',
    model: 'script-1',
    state: SessionState.SESSION_STATE_IDLE,
    cwd: '/tmp',
    archived: false,
    origin: SessionOrigin.SESSION_ORIGIN_HOSTED,
    messageCount: 0,
    createdAt: new Date('2026-01-01T00:00:00Z'),
    lastActivityAt: new Date('2026-01-01T00:00:00Z'),
    effort: '',
    mode: 'agent',
    repo: '',
    branch: '',
    group: undefined,
    startedBySessionId: '',
    startedByTitle: '',
    mayCreateSessions: false,
    autoCompactWindow: 'auto',
    thinkingEnabled: true,
    thinkingDisplay: 'summarized',
    tasks: [],
    lastTurn: undefined,
    ...fields,
  });

  const defaultWait: WaitScript = async function* (request) {
    const result = turns.get(request.messageId);
    if (!result || result.sessionId !== request.sessionId)
      throw new AppError('REMOTE_RELAY_NOT_FOUND', 'not_found', `No message ${request.messageId} in that session.`);
    yield { progressSeconds: 0 };
    yield { result };
  };

  return {
    settings,
    paired,
    unlocked,
    forwarded,
    updateAllowed,
    relayTokens,
    sessions,
    messages,
    turns,
    pendingQuestions,
    askMarks,
    asksAbout,
    askListings,
    tokens,
    users,
    roleOf,
    calls,
    refusals,
    realRefusals,
    failing,
    cancelledWaits,
    cards,
    cardWaits,
    grants,
    noRunningTurn,
    owners,
    record,
    notFound,
    sessionOf,
    pendingOf,
    writable,
    queue,
    newSession,
    defaultWait,
  };
}
