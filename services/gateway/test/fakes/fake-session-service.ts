/**
 * The fake session service: accounts and tokens, sessions, conversations, turns, settings and the gateway's other
 * session RPCs, answered from the shared state (owners-state.ts) like the real service answers them.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '@relay/errors';
import { SessionOrigin, SessionState, type GroupSummary, type RelaySettings, type Session } from '@relay/proto/relay/session/v1/session';
import { SessionServiceService, type SessionServiceServer } from '@relay/proto/relay/session/v1/session_service';
import type { GrpcServer } from '@relay/rpc';
import type { Logger } from '@relay/telemetry';
import type { OwnersState } from './owners-state.ts';
import { serveFake } from './serve-fake.ts';

/** Starts the fake session service over `state`. */
export function startFakeSessionService(state: OwnersState, logger: Logger): Promise<GrpcServer> {
  const {
    settings,
    unlocked,
    updateAllowed,
    sessions,
    messages,
    pendingQuestions,
    askMarks,
    tokens,
    users,
    roleOf,
    failing,
    cancelledWaits,
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
  } = state;
  const signInLinks = new Map<string, string>();
  let lastAskMark = 0;
  return serveFake<SessionServiceServer>(SessionServiceService, 'session', logger, {
    unary: {
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
        // In the order added: a page and the scope's total. A listing of every session (limit 0) is refused, as the
        // session service refuses it.
        if (request.limit < 1 || request.limit > 100) {
          throw new AppError('REMOTE_RELAY_INVALID_INPUT', 'invalid_argument', `limit must be from 1 to 100: a listing is a page`);
        }
        const page = mine.slice(request.offset, request.offset + request.limit);
        return { sessions: page, total: mine.length, pending: pendingOf(request.pendingForSessionId) };
      },
      createExternalSession: async (request) => {
        record('createExternalSession', request);
        // The gateway bounds a title's length first; what is left to refuse here is a blank one.
        if (request.title !== '' && request.title.trim() === '')
          throw new AppError('REMOTE_RELAY_INVALID_INPUT', 'invalid_argument', 'title must not be blank');
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
              days: days.map((day) => ({
                day,
                inputTokens: last(day) ? '1200' : '0',
                outputTokens: last(day) ? '300' : '0',
                costUsd: last(day) ? 0.42 : 0,
                turns: last(day) ? 2 : 0,
              })),
            },
          ],
        };
      },
      // The tree the test set (owners.treeUsage), else one with nothing spent and no budget over it.
      getTreeUsage: async (request) => {
        owners.treeReads.push({ method: 'getTreeUsage', request: { ...request } });
        return {
          usage: owners.treeUsage ?? { sessionId: request.sessionId, rows: [], totals: undefined, sessionsStarted: 0, budgets: [], remoteSessions: [] },
        };
      },
      // The sessions the tree the test set started on paired relays, when a budget governs it.
      getBudgetedRemoteSessions: async (request) => {
        owners.treeReads.push({ method: 'getBudgetedRemoteSessions', request: { ...request } });
        const tree = owners.treeUsage;
        return { remoteSessions: tree !== undefined && tree.budgets.length > 0 ? tree.remoteSessions : [] };
      },
      checkTreeBudget: async (request) => {
        record('checkTreeBudget', request);
        return { carried: owners.carried };
      },
      // The person's budget, as the session service answers it: the tree with the budget as set (or without it).
      setBudget: async (request) => {
        record('setBudget', request);
        sessionOf(request.userId, request.sessionId);
        return {
          usage: {
            sessionId: request.sessionId,
            rows: [],
            totals: undefined,
            sessionsStarted: 0,
            budgets: [
              {
                sessionId: request.sessionId,
                setBy: 'person',
                limits: request.limits,
                startedAt: new Date('2026-12-07T10:00:00.000Z'),
                state: 'active',
                level: 'ok',
                meters: [],
                remaining: request.limits,
                cardId: '',
              },
            ],
            remoteSessions: [],
          },
        };
      },
      removeBudget: async (request) => {
        record('removeBudget', request);
        sessionOf(request.userId, request.sessionId);
        return { usage: { sessionId: request.sessionId, rows: [], totals: undefined, sessionsStarted: 0, budgets: [], remoteSessions: [] } };
      },
      noteRemoteTreeSpend: async (request) => {
        record('noteRemoteTreeSpend', request);
        return {};
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
          throw new AppError(
            'REMOTE_RELAY_UNKNOWN_GROUP',
            'invalid_argument',
            `Relay "desk" has no session group "${request.group}". No session was created.`,
            {
              details: { groups: owners.groups.slice(0, 20).map(({ id, name }) => ({ id, name })), groupsTotal: owners.groups.length },
            },
          );
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
          if (!['agent', 'ask', 'plan'].includes(request.mode))
            throw new AppError('REMOTE_RELAY_INVALID_INPUT', 'invalid_argument', `unknown mode "${request.mode}"`);
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
      renewExternalCalls: async (request) => {
        record('renewExternalCalls', request);
        return { leaseMs: 60_000, gone: [] };
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
    },
    stream: {
      wait: (request, signal) => {
        record('wait', request);
        signal.addEventListener('abort', () => cancelledWaits.push(request.messageId), { once: true });
        return owners.waitScript(request, signal);
      },
    },
  });
}
