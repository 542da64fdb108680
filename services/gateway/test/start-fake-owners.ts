/**
 * Small fakes of the session, pairing and question services, served over real gRPC on port 0, so
 * the gateway's integration tests exercise its real clients. They keep just enough state to answer
 * like the real services; tests steer them (refusals, turn results, card decisions) and read back
 * every call they answered. The real services are tested end to end.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '@relay/errors';
import { AgentLevel, PairingServiceService, type ForwardToolCallRequest, type PairedRelay, type PairingServiceServer } from '@relay/proto/relay/pairing/v1/pairing_service';
import {
  CardStatus,
  QuestionServiceService,
  type Ask,
  type AwaitCardResponse,
  type Card,
  type QuestionServiceServer,
} from '@relay/proto/relay/question/v1/question_service';
import {
  MessageDelivery,
  SessionOrigin,
  SessionState,
  TurnStatus,
  type ChatMessage,
  type GroupSummary,
  type PendingQuestion,
  type ProviderInfo,
  type Provenance,
  type RelaySettings,
  type Session,
  type TurnResult,
} from '@relay/proto/relay/session/v1/session';
import { SessionServiceService, type SessionServiceServer, type WaitRequest, type WaitResponse } from '@relay/proto/relay/session/v1/session_service';
import { callersFor } from '@relay/testing';
import { serveStream, serveUnary, startGrpcServer, type GrpcServer } from '@relay/rpc';
import type { Logger } from '@relay/telemetry';
import { fakeCredentials } from './fake-credentials.ts';

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
  let lastAskMark = 0;
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
    list.push({ id: messageId, role, text, provenance, createdAt: new Date('2026-10-18T09:00:00Z'), model: '', delivery: MessageDelivery.MESSAGE_DELIVERY_DELIVERED });
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
    ...fields,
  });

  const defaultWait: WaitScript = async function* (request) {
    const result = turns.get(request.messageId);
    if (!result || result.sessionId !== request.sessionId) throw new AppError('REMOTE_RELAY_NOT_FOUND', 'not_found', `No message ${request.messageId} in that session.`);
    yield { progressSeconds: 0 };
    yield { result };
  };

  const signInLinks = new Map<string, string>();
  const sessionService: GrpcServer = await startGrpcServer({
    port: 0,
    host: '127.0.0.1',
    logger,
    auth: fakeCredentials.auth('session'),
    services: [
      {
        definition: SessionServiceService,
        callers: callersFor(SessionServiceService, 'gateway'),
        implementation: {
          ...serveUnary<SessionServiceServer>(logger, {
            authenticate: async ({ token }) => {
              if (failing.has('authenticate')) throw new Error('authenticate broke: password=hunter2');
              const caller = tokens.get(token);
              if (!caller) throw new AppError('UNAUTHENTICATED', 'unauthenticated', 'unknown or revoked token');
              const external = sessions.find((session) => session.id === caller.sessionId)?.origin === SessionOrigin.SESSION_ORIGIN_EXTERNAL;
              return { caller: { userId: caller.userId, sessionId: caller.sessionId ?? '' }, role: roleOf(caller.userId), external, settings: { ...settings } };
            },
            createUser: async (request) => {
              record('createUser', request);
              if (request.name.trim() === '') throw new AppError('REMOTE_RELAY_INVALID_INPUT', 'invalid_argument', 'name is required');
              const role = request.role === 'admin' ? 'admin' : 'member';
              const user = { id: `user-${users.length + 1}`, name: request.name.trim(), role, createdAt: new Date('2026-11-30T10:00:00.000Z') } as const;
              users.push(user);
              const token = `ru_${randomUUID()}`;
              tokens.set(token, { userId: user.id });
              return { userId: user.id, token, role };
            },
            listUsers: async () => ({ users: users.map((user) => ({ ...user })) }),
            removeUser: async (request) => {
              record('removeUser', request);
              const at = users.findIndex((user) => user.id === request.userId);
              if (request.userId === request.callerUserId) throw new AppError('REMOTE_RELAY_FORBIDDEN', 'permission_denied', 'You cannot remove yourself.');
              if (at < 0) throw new AppError('REMOTE_RELAY_NOT_FOUND', 'not_found', `No user '${request.userId}'.`);
              const [user] = users.splice(at, 1);
              for (const [token, caller] of tokens) if (caller.userId === request.userId) tokens.delete(token);
              return { user: { ...user! }, archivedSessions: 0 };
            },
            rotateUserToken: async (request) => {
              record('rotateUserToken', request);
              if (!users.some((user) => user.id === request.userId)) throw new AppError('REMOTE_RELAY_NOT_FOUND', 'not_found', `No user '${request.userId}'.`);
              for (const [token, caller] of tokens) if (caller.userId === request.userId && caller.sessionId === undefined) tokens.delete(token);
              if (request.revoke) return { token: '' };
              const token = `ru_${randomUUID()}`;
              tokens.set(token, { userId: request.userId });
              return { token };
            },
            // A link signs in once: redeeming deletes it and makes a user token.
            createSignInLink: async (request) => {
              record('createSignInLink', request);
              const link = `rly_l_${randomUUID()}`;
              signInLinks.set(link, request.userId);
              return { link, expiresAt: new Date('2026-11-30T10:10:00.000Z') };
            },
            redeemSignInLink: async ({ link }) => {
              const userId = signInLinks.get(link);
              signInLinks.delete(link);
              if (userId === undefined) throw new AppError('UNAUTHENTICATED', 'unauthenticated', 'unknown or revoked token');
              const token = `ru_${randomUUID()}`;
              tokens.set(token, { userId });
              return { token, userId, role: roleOf(userId), expiresAt: new Date('2026-12-07T10:00:00.000Z') };
            },
            endSignIn: async () => ({ ended: false }),
            rotateSessionToken: async (request) => {
              record('rotateSessionToken', request);
              sessionOf(request.userId, request.sessionId);
              for (const [token, caller] of tokens) if (caller.sessionId === request.sessionId) tokens.delete(token);
              if (request.revoke) return { token: '' };
              const token = `rs_${randomUUID()}`;
              tokens.set(token, { userId: request.userId, sessionId: request.sessionId });
              return { token };
            },
            listSessions: async (request) => {
              record('listSessions', request);
              const wanted = request.scope === '' ? 'active' : request.scope;
              if (!['active', 'archived', 'all'].includes(wanted)) {
                throw new AppError('REMOTE_RELAY_INVALID_INPUT', 'invalid_argument', `unknown scope "${request.scope}"`);
              }
              const mine = sessions.filter((s) => s.userId === request.userId && (wanted === 'all' || s.archived === (wanted === 'archived')));
              return { sessions: mine, pending: pendingOf(request.pendingForSessionId) };
            },
            createExternalSession: async (request) => {
              record('createExternalSession', request);
              // The gateway bounds a title's length first; what is left to refuse here is a blank one.
              if (request.title !== '' && request.title.trim() === '') throw new AppError('REMOTE_RELAY_INVALID_INPUT', 'invalid_argument', 'title must not be blank');
              const session = newSession(request.userId, {
                title: request.title || 'External session',
                provider: 'external',
                model: '',
                cwd: '',
                origin: SessionOrigin.SESSION_ORIGIN_EXTERNAL,
              });
              sessions.push(session);
              const token = `rs_${randomUUID()}`;
              tokens.set(token, { userId: request.userId, sessionId: session.id });
              return { session, token };
            },
            getRelaySettings: async () => {
              if (failing.has('getRelaySettings')) throw new Error('getRelaySettings broke: password=hunter2');
              return { settings };
            },
            // Stores what it is given; the real service's range checks are steered with refusals.
            updateRelaySettings: async (request) => {
              record('updateRelaySettings', request);
              const change = Object.entries(request).filter(([key, value]) => value !== undefined && value !== settings[key as keyof RelaySettings]);
              Object.assign(settings, Object.fromEntries(change));
              return { settings, changed: change.map(([key]) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)) };
            },
            getRelayInfo: async (request) => {
              record('getRelayInfo', request);
              return {
                providers: owners.providers,
                defaultCwd: '/home/dev',
                recentCwds: ['/home/dev/shop', '/home/dev/site'],
                modes: ['agent', 'ask', 'plan'],
                groups: owners.groups,
                groupsTotal: owners.groupsTotal,
                // A session service without usage accounting: the gateway shows providers as not tracked.
                usage: undefined,
                settings,
                pending: pendingOf(request.pendingForSessionId),
              };
            },
            // The series the real service answers for a ledger with claude turns on its last day (today, 2026-11-30) only.
            getDailyUsage: async (request) => {
              record('getDailyUsage', request);
              const count = request.days === 0 ? 30 : request.days;
              const days = Array.from({ length: count }, (_, index) => new Date(Date.UTC(2026, 10, 30 - (count - 1) + index)).toISOString().slice(0, 10));
              const last = (day: string) => day === '2026-11-30';
              return {
                days,
                providers: [
                  {
                    provider: 'claude',
                    costTracked: true,
                    days: days.map((day) => ({ day, inputTokens: last(day) ? '1200' : '0', outputTokens: last(day) ? '300' : '0', costUsd: last(day) ? 0.42 : 0, turns: last(day) ? 2 : 0 })),
                  },
                ],
              };
            },
            readSession: async (request) => {
              record('readSession', request);
              const session = sessionOf(request.userId, request.sessionId);
              const last = request.last === 0 ? 10 : request.last;
              const members = session.group
                ? sessions
                    .filter((other) => other.id !== session.id && other.group?.id === session.group?.id)
                    .map((other) => ({ id: other.id, title: other.title, role: other.group?.role ?? 'member', state: other.state, archived: other.archived }))
                : [];
              return {
                session,
                messages: (messages.get(session.id) ?? []).slice(-last),
                inFlight: session.state === SessionState.SESSION_STATE_RUNNING_TURN ? 'Checking the deploy log…' : '',
                pendingQuestions: pendingQuestions.get(session.id) ?? [],
                groupMembers: members,
                pending: pendingOf(request.pendingForSessionId),
                neverAskedAbout: !askMarks.has(session.id),
                askMark: askMarks.get(session.id) ?? 0,
              };
            },
            createSession: async (request) => {
              record('createSession', request);
              const caller = request.callerSessionId ? sessionOf(request.userId, request.callerSessionId) : undefined;
              const group = request.group ? owners.groups.find((g) => g.id === request.group || g.name.toLowerCase() === request.group.toLowerCase()) : undefined;
              if (request.group && !group) {
                throw new AppError('REMOTE_RELAY_UNKNOWN_GROUP', 'invalid_argument', `Relay "desk" has no session group "${request.group}". No session was created.`, {
                  details: { groups: owners.groups.slice(0, 20).map(({ id, name }) => ({ id, name })), groupsTotal: owners.groups.length },
                });
              }
              const session = newSession(request.userId, {
                id: request.dryRun ? '' : randomUUID(),
                title: request.title || request.text.slice(0, 40),
                provider: request.provider || caller?.provider || 'script',
                model: request.model || caller?.model || 'script-1',
                effort: request.effort,
                mode: request.mode || 'agent',
                cwd: request.repo ? '' : request.cwd || caller?.cwd || '/home/dev',
                repo: request.repo,
                branch: request.branch,
                group: group ? { id: group.id, name: group.name, role: 'member' } : caller ? { id: 'grp_caller', name: caller.title, role: 'member' } : undefined,
                startedBySessionId: caller?.id ?? '',
                startedByTitle: caller?.title ?? '',
                state: SessionState.SESSION_STATE_RUNNING_TURN,
              });
              const firstStartedByCaller = caller !== undefined && !sessions.some((s) => s.startedBySessionId === caller.id);
              if (request.dryRun) return { session, messageId: '', modelNote: '', groupWarning: '', firstStartedByCaller };
              if (owners.notes.groupWarning) session.group = undefined;
              sessions.push(session);
              const messageId = queue(session, request.text, caller ? 'agent' : 'user', request.provenance, session.model);
              return { session, messageId, ...owners.notes, firstStartedByCaller };
            },
            sendMessage: async (request) => {
              record('sendMessage', request);
              const session = writable(request.userId, request.sessionId);
              if (request.callerSessionId === request.sessionId) throw new AppError('REMOTE_RELAY_FORBIDDEN', 'permission_denied', 'not on itself');
              const billingSwitch = request.provider === 'claude-api' ? 'API key' : request.provider === 'claude' ? 'subscription' : '';
              if (request.dryRun) return { session, messageId: '', modelNote: '', billingSwitch };
              const messageId = queue(session, request.text, request.callerSessionId ? 'agent' : 'user', request.provenance, request.model || session.model);
              return { session, messageId, modelNote: owners.notes.modelNote, billingSwitch };
            },
            updateSession: async (request) => {
              record('updateSession', request);
              const session = writable(request.userId, request.sessionId);
              const changed: string[] = [];
              const next = { ...session };
              const set = <K extends keyof Session>(name: string, key: K, value: Session[K] | undefined) => {
                if (value === undefined || value === session[key]) return;
                changed.push(name);
                next[key] = value;
              };
              set('model', 'model', request.model);
              set('effort', 'effort', request.effort);
              set('mode', 'mode', request.mode);
              set('auto_compact_window', 'autoCompactWindow', request.autoCompactWindow);
              set('title', 'title', request.title);
              set('thinking_enabled', 'thinkingEnabled', request.thinkingEnabled);
              set('thinking_display', 'thinkingDisplay', request.thinkingDisplay);
              set('cwd', 'cwd', request.cwd);
              let groupCreated: GroupSummary | undefined;
              if (request.group !== undefined && request.group.toLowerCase() !== session.group?.name.toLowerCase() && request.group !== session.group?.id) {
                const existing = owners.groups.find((g) => g.id === request.group || g.name.toLowerCase() === request.group?.toLowerCase());
                const group = existing ?? { id: `grp_${request.group.toLowerCase().replace(/\W+/g, '')}`, name: request.group, memberCount: 1 };
                if (!existing) groupCreated = group;
                next.group = { id: existing ? group.id : '', name: group.name, role: 'member' };
                changed.push('group');
              }
              const needsAllow = session.startedBySessionId !== request.callerSessionId && !grants.has(request.callerSessionId);
              const settingsOf = (s: Session) => ({
                model: s.model,
                effort: s.effort,
                mode: s.mode,
                autoCompactWindow: s.autoCompactWindow,
                title: s.title,
                group: s.group,
                thinkingEnabled: s.thinkingEnabled,
                thinkingDisplay: s.thinkingDisplay,
                cwd: s.cwd,
              });
              if (request.dryRun) return { settings: settingsOf(next), changed, needsAllow: changed.length > 0 && needsAllow, note: '', groupCreated: undefined };
              if (changed.length > 0 && needsAllow && !request.allowed) throw new AppError('REMOTE_RELAY_PERMISSION', 'permission_denied', 'needs the user');
              if (request.allowed) grants.add(request.callerSessionId);
              if (groupCreated) {
                owners.groups.push(groupCreated);
                next.group = { id: groupCreated.id, name: groupCreated.name, role: 'member' };
              }
              Object.assign(session, next);
              return {
                settings: settingsOf(session),
                changed,
                relaunched: changed.includes('cwd') ? true : undefined,
                groupCreated,
                note: '',
                needsAllow: false,
              };
            },
            stopTurn: async (request) => {
              record('stopTurn', request);
              const session = sessionOf(request.userId, request.sessionId);
              const running = session.state === SessionState.SESSION_STATE_RUNNING_TURN;
              session.state = SessionState.SESSION_STATE_IDLE;
              return { stopRequested: running };
            },
            archiveSession: async (request) => {
              record('archiveSession', request);
              const session = sessionOf(request.userId, request.sessionId);
              session.archived = true;
              return { session };
            },
            unarchiveSession: async (request) => {
              record('unarchiveSession', request);
              const session = sessionOf(request.userId, request.sessionId);
              session.archived = false;
              return { session };
            },
            getConversation: async (request) => {
              record('getConversation', request);
              const session = sessions.find((candidate) => candidate.id === request.sessionId);
              if (!session) throw notFound(request.sessionId);
              return {
                session,
                hasRunningTurn: !noRunningTurn.has(session.id),
                turnProvenance: { originRelay: '', originSessionId: '', originSessionTitle: '', model: '', hops: owners.turnHops, viaRelays: [] },
                startedSessions: sessions.filter((s) => s.startedBySessionId === session.id).length,
                unlockedRelays: unlocked.get(session.id) ?? [],
                updateAllowedRelays: updateAllowed.get(session.id) ?? [],
                pending: session.origin === SessionOrigin.SESSION_ORIGIN_EXTERNAL ? { count: 0, previews: [] } : undefined,
              };
            },
            setConversationOptions: async (request) => {
              record('setConversationOptions', request);
              const session = sessionOf(request.userId, request.sessionId);
              if (request.mode !== undefined) {
                if (!['agent', 'ask', 'plan'].includes(request.mode)) throw new AppError('REMOTE_RELAY_INVALID_INPUT', 'invalid_argument', `unknown mode "${request.mode}"`);
                session.mode = request.mode;
              }
              if (request.mayCreateSessions !== undefined) session.mayCreateSessions = request.mayCreateSessions;
              return { session };
            },
            // The loop guard is tested against the real session service (e2e); here it never runs out.
            countAgentPrompt: async () => ({ sent: 0, allowed: 30, usedUp: false }),
            grantAgentPrompts: async () => ({ sent: 0, allowed: 30 }),
            noteRemoteSessionStarted: async (request) => {
              record('noteRemoteSessionStarted', request);
              return {};
            },
            noteAskAbout: async (request) => {
              record('noteAskAbout', request);
              askMarks.set(sessionOf(request.userId, request.sessionId).id, ++lastAskMark);
              return {};
            },
            clearAskMark: async (request) => {
              record('clearAskMark', request);
              const { id } = sessionOf(request.userId, request.sessionId);
              const cleared = request.askMark !== 0 && askMarks.get(id) === request.askMark;
              if (cleared) askMarks.delete(id);
              return { cleared };
            },
            noteRemoteUpdateAllowed: async (request) => {
              record('noteRemoteUpdateAllowed', request);
              const relays = updateAllowed.get(request.sessionId) ?? [];
              if (!relays.includes(request.relay)) updateAllowed.set(request.sessionId, [...relays, request.relay]);
              return {};
            },
            // The holds' effect on list_sessions and read_session is the session service's (services/session, e2e).
            holdExternalCall: async (request) => {
              record('holdExternalCall', request);
              return { leaseMs: 60_000 };
            },
            releaseExternalCall: async (request) => {
              record('releaseExternalCall', request);
              return {};
            },
            getPendingMessages: async (request) => {
              record('getPendingMessages', request);
              if (!sessions.some((candidate) => candidate.id === request.sessionId)) throw notFound(request.sessionId);
              return { pending: pendingOf(request.sessionId) };
            },
            listPendingMessages: async (request) => {
              record('listPendingMessages', request);
              const held = request.sessionIds.flatMap((id) => {
                const pending = sessions.some((candidate) => candidate.id === id) ? pendingOf(id) : undefined;
                return pending === undefined ? [] : [[id, pending] as const];
              });
              return { pending: Object.fromEntries(held) };
            },
            // Tasks are tested against the real session service (services/session, e2e).
            readTaskOutput: async (request) => {
              throw new AppError('REMOTE_RELAY_NOT_FOUND', 'not_found', `No task '${request.taskId}'.`);
            },
          }),
          ...serveStream<SessionServiceServer>(logger, {
            wait: (request, signal) => {
              record('wait', request);
              signal.addEventListener('abort', () => cancelledWaits.push(request.messageId), { once: true });
              return owners.waitScript(request, signal);
            },
          }),
        },
      },
    ],
  });

  const pairingService: GrpcServer = await startGrpcServer({
    port: 0,
    host: '127.0.0.1',
    logger,
    auth: fakeCredentials.auth('pairing'),
    services: [
      {
        definition: PairingServiceService,
        callers: callersFor(PairingServiceService, 'gateway'),
        implementation: serveUnary<Pick<PairingServiceServer, 'listPairedRelays' | 'forwardToolCall' | 'authenticateRelay' | 'getPairingSettings'>>(logger, {
          listPairedRelays: async () => {
            if (failing.has('listPairedRelays')) throw new Error('listPairedRelays broke');
            return { relays: paired };
          },
          getPairingSettings: async () => ({ settings: { acceptPrompts: owners.acceptPrompts } }),
          authenticateRelay: async (request) => {
            const caller = relayTokens.get(request.token);
            if (caller === undefined) throw new AppError('REMOTE_RELAY_AUTH', 'unauthenticated', 'unknown relay token');
            return { level: AgentLevel.AGENT_LEVEL_FULL, ...caller };
          },
          forwardToolCall: async (request) => {
            forwarded.push(request);
            const args = JSON.parse(request.argumentsJson) as Record<string, unknown>;
            if (args.session === 'missing') {
              return { resultJson: JSON.stringify({ ok: false, code: 'REMOTE_RELAY_NOT_FOUND', error: 'no such session there' }), version: '0.9.19' };
            }
            // The other relay's dry run says its person must allow it; the call itself it answers as if they did, on its own card.
            if (request.action === 'update_session' && String(args.session).startsWith('theirs') && request.dryRun) {
              const settings = { title: 'Nightly deploy', model: args.model ?? 'script-1', group: null };
              return { resultJson: JSON.stringify({ ok: false, code: 'REMOTE_RELAY_PERMISSION', error: 'needs the Allow', needsAllow: true, settings }), version: '0.9.19' };
            }
            const started = request.action === 'create_session' ? { session: 'remote-1' } : {};
            return { resultJson: JSON.stringify({ ok: true, relay: request.relay, summary: `${request.action} → ${request.relay}: answered there`, ...started }), version: '0.9.19' };
          },
        }),
      },
    ],
  });

  const questionService: GrpcServer = await startGrpcServer({
    port: 0,
    host: '127.0.0.1',
    logger,
    auth: fakeCredentials.auth('question'),
    services: [
      {
        definition: QuestionServiceService,
        callers: callersFor(QuestionServiceService, 'gateway'),
        implementation: {
          ...serveUnary<QuestionServiceServer>(logger, {
            raiseCard: async (request) => {
              const card: Card = {
                id: `card_${cards.length + 1}`,
                userId: request.userId,
                sessionId: request.sessionId,
                kind: request.kind,
                title: request.title,
                lines: request.lines,
                options: request.options,
                status: CardStatus.CARD_STATUS_PENDING,
                answer: '',
                choices: [],
                createdAt: new Date('2026-10-18T09:00:00Z'),
                decidedAt: undefined,
              };
              cards.push(card);
              return { card };
            },
            decideCard: async () => {
              throw new AppError('REMOTE_RELAY_UNSUPPORTED', 'unimplemented', 'not in the fake');
            },
            listCards: async () => ({ cards }),
            cancelCards: async () => ({ cancelled: 0 }),
            // Asks are tested against the real question service (e2e); here only those a test sets about a session.
            listAsks: async (request) => {
              askListings.push(request.aboutSessionId);
              return { asks: asksAbout.get(request.aboutSessionId) ?? [] };
            },
            ask: async () => {
              throw new AppError('REMOTE_RELAY_UNSUPPORTED', 'unimplemented', 'not in the fake');
            },
            withdrawAsk: async () => {
              throw new AppError('REMOTE_RELAY_UNSUPPORTED', 'unimplemented', 'not in the fake');
            },
            answerAsk: async () => {
              throw new AppError('REMOTE_RELAY_UNSUPPORTED', 'unimplemented', 'not in the fake');
            },
            publishRemoteAnswer: async () => {
              throw new AppError('REMOTE_RELAY_UNSUPPORTED', 'unimplemented', 'not in the fake');
            },
            getNotificationSettings: async () => {
              throw new AppError('REMOTE_RELAY_UNSUPPORTED', 'unimplemented', 'not in the fake');
            },
            updateNotificationSettings: async () => {
              throw new AppError('REMOTE_RELAY_UNSUPPORTED', 'unimplemented', 'not in the fake');
            },
            addPushSubscription: async () => {
              throw new AppError('REMOTE_RELAY_UNSUPPORTED', 'unimplemented', 'not in the fake');
            },
            removePushSubscription: async () => {
              throw new AppError('REMOTE_RELAY_UNSUPPORTED', 'unimplemented', 'not in the fake');
            },
          }),
          ...serveStream<QuestionServiceServer>(logger, {
            awaitCard: async function* (request): AsyncIterable<AwaitCardResponse> {
              cardWaits.push(request.waitSeconds);
              const card = cards.find((candidate) => candidate.id === request.cardId);
              if (!card) throw new AppError('REMOTE_RELAY_NOT_FOUND', 'not_found', 'no such card');
              yield { progressSeconds: 0 };
              const statuses = { allow: CardStatus.CARD_STATUS_ALLOWED, deny: CardStatus.CARD_STATUS_DENIED, pending: CardStatus.CARD_STATUS_PENDING };
              card.status = statuses[owners.cardDecision];
              yield { card };
            },
          }),
        },
      },
    ],
  });

  const defaults = () => ({
    providers: [
      { id: 'script', name: 'Script', available: true, reason: '', defaultModel: 'script-1', models: ['script-1'], efforts: [], modelsKnown: true },
      { id: 'claude', name: 'Claude', available: false, reason: 'no credentials', defaultModel: 'claude-sonnet-5-5', models: [], efforts: ['low', 'medium', 'high'], modelsKnown: false },
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
