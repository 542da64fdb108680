/**
 * Small fakes of the session, pairing and question services, served over real gRPC on port 0, so
 * the gateway's integration tests exercise its real clients: each built on its generated service definition with only
 * the RPCs the tests call (fakes/serve-fake.ts), over one shared state (fakes/owners-state.ts). They keep just enough state to answer
 * like the real services; tests steer them (refusals, turn results, card decisions) and read back
 * every call they answered. The real services are tested end to end.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AppError } from '@relay/errors';
import type { AgentLevel, ForwardToolCallRequest, PairedRelay } from '@relay/proto/relay/pairing/v1/pairing_service';
import type { Ask, Card } from '@relay/proto/relay/question/v1/question_service';
import type { ChatMessage, GroupSummary, PendingQuestion, ProviderInfo, RelaySettings, Session, TurnResult } from '@relay/proto/relay/session/v1/session';
import type { BudgetLimits, TreeUsage, WaitRequest, WaitResponse } from '@relay/proto/relay/session/v1/session_service';
import type { Logger } from '@relay/telemetry';
import { createOwnersState } from './fakes/owners-state.ts';
import { startFakePairingService } from './fakes/fake-pairing-service.ts';
import { startFakeQuestionOwner } from './fakes/fake-question-service.ts';
import { startFakeSessionService } from './fakes/fake-session-service.ts';

/** One call a fake answered. */
export interface FakeCall {
  method: string;
  // The decoded request, as the fake's handler saw it.
  request: Record<string, unknown>;
}

/** How the fake question service decides the next cards. */
export type CardDecision = 'allow' | 'deny' | 'pending';

/** Produces the Wait stream of one call; the default yields one progress and the stored result. */
export type WaitScript = (request: WaitRequest, signal: AbortSignal) => AsyncIterable<WaitResponse>;

export interface FakeOwners {
  sessionAddress: string;
  pairingAddress: string;
  questionAddress: string;
  settings: RelaySettings;
  paired: PairedRelay[];
  /** "Accept prompts from other relays' agents", as GetPairingSettings answers it. */
  acceptPrompts: boolean;
  /** Relay tokens of paired relays calling /relay/v1, and who each is. */
  /** Relay tokens and the pairings behind them; a pairing without a level grants full. */
  relayTokens: Map<string, { relayName: string; userId: string; acceptPrompts: boolean; level?: AgentLevel }>;
  /**
   * The calls forwarded to paired relays (the fake answers each with ok). update_session of a session id starting
   * with "theirs" is refused with needsAllow there unless the call carries the Allow, as for a session it did not start.
   */
  forwarded: ForwardToolCallRequest[];
  /** The paired relays unlocked per conversation, as GetConversation answers them. */
  unlocked: Map<string, { relay: string; byMention: boolean }[]>;
  sessions: Session[];
  /** Messages per session id. */
  messages: Map<string, ChatMessage[]>;
  /** Questions waiting in a session, as ReadSession lists them. */
  pendingQuestions: Map<string, PendingQuestion[]>;
  /** Each marked session's ask mark (NoteAskAbout, or set by a test): ReadSession answers never_asked_about for the others. */
  askMarks: Map<string, number>;
  /** The asks pending about a session, as the question service's ListAsks answers them. */
  asksAbout: Map<string, Ask[]>;
  /** The sessions ListAsks was asked about, in order. */
  askListings: string[];
  /** The result Wait answers for a message id; send and create store a done turn. */
  turns: Map<string, TurnResult>;
  providers: ProviderInfo[];
  groups: GroupSummary[];
  groupsTotal: number;
  /** Sessions whose conversation has no running turn (a card cannot show there). */
  noRunningTurn: Set<string>;
  /** The hops of every caller's running turn. */
  turnHops: number;
  /** What CheckTreeBudget answers a prompt to a paired relay carries (undefined: no budget over the tree). */
  carried: BudgetLimits | undefined;
  /** What GetTreeUsage answers (undefined: a tree that spent nothing, no budget over it). */
  treeUsage: TreeUsage | undefined;
  /** The reads of trees (GetTreeUsage, GetBudgetedRemoteSessions), apart from calls: every prompt reads one for its note. */
  treeReads: FakeCall[];
  /** What the paired relay reports in the results of calls forwarded to it (treeSpent; undefined: nothing). */
  treeSpent: Record<string, unknown> | undefined;
  /** What the next created or sent messages report besides their id. */
  notes: { modelNote: string; groupWarning: string };
  /** bearer token → caller */
  tokens: Map<string, { userId: string; sessionId?: string }>;
  /** The relay's users, oldest first; addUser and CreateUser add to it. */
  users: { id: string; name: string; role: 'admin' | 'member'; createdAt: Date }[];
  /** Every call the session service answered, in order. */
  calls: FakeCall[];
  /** Refusals: every call of the method (dry run or not) throws this error. */
  refusals: Map<string, AppError>;
  /** Refusals of the real calls only: the dry run passes, the call that would write throws (a partial write). */
  realRefusals: Map<string, AppError>;
  /** Makes the next calls of `method` fail with a plain error (an internal fault). */
  failing: Set<string>;
  /** The Wait stream; replace it to script progress and results. */
  waitScript: WaitScript;
  /** Wait streams whose caller went away (the stream was cancelled). */
  cancelledWaits: string[];
  cards: Card[];
  cardDecision: CardDecision;
  /** wait_seconds of every AwaitCard call. */
  cardWaits: number[];
  /** Adds a session of `userId` with a token for its agent; returns the token. */
  addAgentSession(userId: string, fields?: Partial<Session>): { session: Session; token: string };
  /** Adds a user (an admin unless `role` says member) with a personal token; returns the token. */
  addUser(userId: string, role?: 'admin' | 'member'): string;
  /** The calls of the session service that change something (not dry runs, not reads). */
  writes(): FakeCall[];
  reset(): void;
  stop(): Promise<void>;
}

const WRITES = ['createSession', 'sendMessage', 'updateSession', 'stopTurn', 'archiveSession', 'unarchiveSession', 'setConversationOptions'];

/** Starts the three fakes on loopback. */
export async function startFakeOwners(logger: Logger): Promise<FakeOwners> {
  const state = createOwnersState();
  const {
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
    newSession,
    defaultWait,
  } = state;
  const sessionService = await startFakeSessionService(state, logger);
  const pairingService = await startFakePairingService(state, logger);
  const questionService = await startFakeQuestionOwner(state, logger);

  const defaults = () => ({
    providers: [
      { id: 'script', name: 'Script', available: true, reason: '', defaultModel: 'script-1', models: ['script-1'], efforts: [], modelsKnown: true },
      {
        id: 'claude',
        name: 'Claude',
        available: false,
        reason: 'no credentials',
        defaultModel: 'claude-sonnet-5-5',
        models: [],
        efforts: ['low', 'medium', 'high'],
        modelsKnown: false,
      },
    ],
    groups: [{ id: 'grp_release', name: 'Release 2.4', memberCount: 3 }],
  });

  Object.assign(owners, {
    sessionAddress: `127.0.0.1:${sessionService.port}`,
    pairingAddress: `127.0.0.1:${pairingService.port}`,
    questionAddress: `127.0.0.1:${questionService.port}`,
    settings,
    unlocked,
    forwarded,
    relayTokens,
    paired,
    sessions,
    messages,
    pendingQuestions,
    askMarks,
    asksAbout,
    askListings,
    turns,
    ...defaults(),
    groupsTotal: 1,
    noRunningTurn,
    turnHops: 0,
    carried: undefined,
    treeUsage: undefined,
    treeReads: [],
    treeSpent: undefined,
    acceptPrompts: true,
    notes: { modelNote: '', groupWarning: '' },
    tokens,
    users,
    calls,
    refusals,
    realRefusals,
    failing,
    waitScript: defaultWait,
    cancelledWaits,
    cards,
    cardDecision: 'allow' as CardDecision,
    cardWaits,
    addAgentSession(userId: string, fields?: Partial<Session>) {
      const session = newSession(userId, fields);
      sessions.push(session);
      const token = `rs_${randomUUID()}`;
      tokens.set(token, { userId, sessionId: session.id });
      return { session, token };
    },
    addUser(userId: string, role: 'admin' | 'member' = 'admin') {
      const known = users.findIndex((user) => user.id === userId);
      if (known >= 0) users.splice(known, 1);
      users.push({ id: userId, name: userId, role, createdAt: new Date('2026-11-30T09:00:00.000Z') });
      const token = `ru_${randomUUID()}`;
      tokens.set(token, { userId });
      return token;
    },
    writes() {
      return calls.filter((call) => WRITES.includes(call.method) && call.request.dryRun !== true);
    },
    reset() {
      Object.assign(settings, { agentSessionsEnabled: true, maxWaitSeconds: 600, maxTurnMinutes: 60, taskQuietMinutes: 10 });
      paired.splice(0);
      unlocked.clear();
      forwarded.splice(0);
      updateAllowed.clear();
      relayTokens.clear();
      calls.splice(0);
      refusals.clear();
      realRefusals.clear();
      failing.clear();
      cards.splice(0);
      cardWaits.splice(0);
      cancelledWaits.splice(0);
      noRunningTurn.clear();
      grants.clear();
      askMarks.clear();
      asksAbout.clear();
      askListings.splice(0);
      Object.assign(owners, {
        ...defaults(),
        groupsTotal: 1,
        turnHops: 0,
        carried: undefined,
        treeUsage: undefined,
        treeReads: [],
        treeSpent: undefined,
        acceptPrompts: true,
        notes: { modelNote: '', groupWarning: '' },
        waitScript: defaultWait,
        cardDecision: 'allow',
      });
    },
    async stop() {
      await Promise.all([sessionService.shutdown(), pairingService.shutdown(), questionService.shutdown()]);
    },
  } satisfies FakeOwners);
  return owners;
}

/** A Wait stream that sends progress every `everyMs` and the result after `afterMs` (wall time, for the progress tests). */
export function slowWait(owners: FakeOwners, everyMs: number, afterMs: number): WaitScript {
  return async function* (request, signal) {
    const started = Date.now();
    let seconds = 0;
    while (Date.now() - started < afterMs) {
      await sleep(everyMs, undefined, { signal }).catch(() => undefined);
      if (signal.aborted) return;
      seconds += 1;
      yield { progressSeconds: seconds };
    }
    const result = owners.turns.get(request.messageId);
    if (result) yield { result };
  };
}
