import type { Clock } from '@relay/clock';
import type { SessionServiceServer } from '@relay/proto/relay/session/v1/session_service';
import { serveUnary } from '@relay/rpc';
import type { Logger } from '@relay/telemetry';
import { archiveSession } from '../../app/sessions/archive-session.ts';
import { unarchiveSession } from '../../app/sessions/unarchive-session.ts';
import { authenticate } from '../../app/users/authenticate.ts';
import { createExternalSession } from '../../app/sessions/create-external-session.ts';
import { createSession } from '../../app/sessions/create-session.ts';
import { createUser } from '../../app/users/create-user.ts';
import { holdExternalCall, releaseExternalCall, renewExternalCalls, withCallsInFlight, type ExternalCallStore } from '../../app/external/external-calls.ts';
import type { PendingNote } from '../../domain/external/external-inbox.ts';
import type { ExternalInbox } from '../../app/external/ports.ts';
import { getConversation } from '../../app/sessions/get-conversation.ts';
import { getPendingMessages, listPendingMessages } from '../../app/external/get-pending-messages.ts';
import { getRelayInfo, type RelayInfo } from '../../app/settings/get-relay-info.ts';
import { getUsage, type UsageDeps } from '../../app/usage/get-usage.ts';
import { toUsageReportMessage } from './wire/usage-wire.ts';
import { getDailyUsage } from '../../app/usage/get-daily-usage.ts';
import type { UsageHistory } from '../../app/usage/ports.ts';
import { toDailyUsageMessage } from './wire/daily-usage-wire.ts';
import { listSessions } from '../../app/sessions/list-sessions.ts';
import type { ActionDeps, ConversationStore, SessionDeps, SessionReads, SessionStore, TokenReads } from '../../app/ports.ts';
import { readSession } from '../../app/sessions/read-session.ts';
import { removeUser } from '../../app/users/remove-user.ts';
import { rotateSessionToken, rotateUserToken } from '../../app/users/rotate-token.ts';
import { createSignInLink, endSignIn, redeemSignInLink } from '../../app/users/sign-in-links.ts';
import { getRelaySettings, updateRelaySettings } from '../../app/settings/relay-settings.ts';
import { noteRemoteSessionStarted, noteRemoteUpdateAllowed } from '../../app/sessions/remote-sessions.ts';
import { clearAskMark, noteAskAbout } from '../../app/sessions/note-ask-about.ts';
import { sendMessage } from '../../app/sessions/send-message.ts';
import { setConversationOptions } from '../../app/sessions/set-conversation-options.ts';
import { updateSession } from '../../app/sessions/update-session.ts';
import type { LoopGuardMethod } from './loop-guard-grpc.ts';
import type { BudgetMethod } from './budget-grpc.ts';
import type { BudgetDeps } from '../../app/budgets/check-budgets.ts';
import { narrowBudget, refuseOverBudget } from '../../app/budgets/budget-gate.ts';
import { fromBudgetLimitsMessage } from './wire/budget-wire.ts';
import { tasksOfSessions, withMemberStates, type SessionTasksDeps } from './session-tasks.ts';
import type { TaskMethod } from './task-grpc.ts';
import type { WrittenMethod } from './written-grpc.ts';
import {
  fromProvenanceMessage,
  toCallerMessage,
  toUserSummary,
  toChatMessage,
  toGroupMemberMessage,
  toGroupRefMessage,
  toPendingQuestion,
  toProvenanceMessage,
  toProviderInfoMessage,
  toRelaySettingsMessage,
  toSessionMessage,
} from './wire/session-wire.ts';

/** The generated server interface without grpc-js's index signature, which UnaryHandlers would map to never. */
type SessionServiceMethods = { [K in keyof SessionServiceServer as string extends K ? never : K]: SessionServiceServer[K] };

/** Everything the session RPCs need; the turn RPCs (Wait, StopTurn) are turn-grpc.ts's. */
export type SessionGrpcDeps = SessionDeps &
  Omit<ActionDeps, 'store'> & {
    store: SessionStore & ConversationStore;
    /** list_sessions' and read_session's reads, in as few statements as they take. */
    reads: SessionReads;
    /** Authenticate's read of a token with its user and session, in one statement. */
    tokens: TokenReads;
    clock: Clock;
    logger: Logger;
    /** Where each session's background tasks come from (read_session and list_sessions show them). */
    tasks?: SessionTasksDeps;
    /** The relay's usage accounting (relay_info carries the usage report; GetDailyUsage reads it day by day); without it (tests) every meter reads zero. */
    usage?: Omit<UsageDeps, 'catalogue' | 'ledger'> & { ledger: UsageDeps['ledger'] & UsageHistory };
    /** External sessions' inboxes (their agents' read marks); without it reading marks nothing read. */
    inbox?: ExternalInbox;
    /** External sessions' calls in flight (their running turns); without it no call shows. */
    calls?: ExternalCallStore;
    /** The budgets over delegation trees: they refuse a turn or a session a tree may not start; without it none does. */
    budgets?: BudgetDeps;
  };

/** A ledger with nothing in it: tracked providers show meters at zero. */
const NO_USAGE: UsageDeps['ledger'] & UsageHistory = { totalsSince: async () => [], pausesAt: async () => [], dailyTotalsSince: async () => [] };

/**
 * relay.session.v1.SessionService without Wait and StopTurn (merge with turnGrpc): decode the request,
 * run the use case, encode the answer.
 */
export function sessionGrpc(deps: SessionGrpcDeps): ReturnType<typeof serveUnary> {
  const { store, clock } = deps;
  return serveUnary<Omit<SessionServiceMethods, 'wait' | 'stopTurn' | LoopGuardMethod | TaskMethod | BudgetMethod | WrittenMethod>>(deps.logger, {
    authenticate: async (request) => {
      const { caller, settings } = await authenticate(deps, request.token, clock.now());
      return { caller: toCallerMessage(caller), role: caller.role, external: caller.external === true, settings: toRelaySettingsMessage(settings) };
    },
    createUser: async (request) => {
      const { user, token } = await createUser(deps, { name: request.name, role: request.role }, clock.now());
      return { userId: user.id, token, role: user.role };
    },
    listUsers: async () => ({ users: (await store.listUsers()).map(toUserSummary) }),
    removeUser: async (request) => {
      const { user, archivedSessions } = await removeUser(deps, { userId: request.userId, callerUserId: request.callerUserId }, clock.now());
      deps.logger.info({ userId: user.id, archivedSessions }, 'removed a user');
      return { user: toUserSummary(user), archivedSessions };
    },
    rotateUserToken: async (request) => rotateUserToken(deps, { userId: request.userId, revoke: request.revoke }, clock.now()),
    rotateSessionToken: async (request) =>
      rotateSessionToken(deps, { userId: request.userId, sessionId: request.sessionId, revoke: request.revoke }, clock.now()),
    createSignInLink: async (request) => createSignInLink(deps, request.userId, clock.now()),
    redeemSignInLink: async (request) => {
      const { token, user, expiresAt } = await redeemSignInLink(deps, request.link, clock.now());
      return { token, userId: user.id, role: user.role, expiresAt };
    },
    endSignIn: async (request) => ({ ended: await endSignIn(deps, request.token) }),
    listSessions: async (request) => {
      const page = { limit: request.limit, offset: request.offset };
      const input = { userId: request.userId, scope: request.scope, page, pendingFor: agentOf(request) };
      const { sessions, total, pending } = await listSessions(deps.reads, input, clock.now());
      const withTheirTasks = await tasksOfSessions(
        deps.tasks,
        sessions.filter((session) => session.hasTasks).map((session) => session.id),
      );
      return { sessions: withTheirTasks(sessions.map(toSessionMessage)), total, pending };
    },
    createExternalSession: async (request) => {
      const { session, token } = await createExternalSession(deps, { userId: request.userId, title: request.title }, clock.now());
      return { session: toSessionMessage(session), token };
    },
    getRelaySettings: async () => ({
      settings: toRelaySettingsMessage(await getRelaySettings(store)),
    }),
    updateRelaySettings: async (request) => {
      const { settings, changed } = await updateRelaySettings(store, {
        agentSessionsEnabled: request.agentSessionsEnabled,
        maxWaitSeconds: request.maxWaitSeconds,
        maxTurnMinutes: request.maxTurnMinutes,
        taskQuietMinutes: request.taskQuietMinutes,
      });
      return { settings: toRelaySettingsMessage(settings), changed };
    },
    getRelayInfo: async (request) => {
      const input = { userId: request.userId, pendingFor: agentOf(request) };
      if (request.withoutUsage) return { ...relayInfoFields(await getRelayInfo(deps, input)), usage: undefined, settings: undefined };
      const [info, settings, usage] = await Promise.all([
        getRelayInfo(deps, input),
        getRelaySettings(store),
        getUsage(
          { catalogue: deps.catalogue, ledger: deps.usage?.ledger ?? NO_USAGE, allowances: deps.usage?.allowances ?? {}, priced: deps.usage?.priced ?? [] },
          clock.now(),
        ),
      ]);
      return { ...relayInfoFields(info), usage: toUsageReportMessage(usage), settings: toRelaySettingsMessage(settings) };
    },
    getDailyUsage: async (request) =>
      toDailyUsageMessage(
        await getDailyUsage(
          { catalogue: deps.catalogue, ledger: deps.usage?.ledger ?? NO_USAGE, priced: deps.usage?.priced ?? [] },
          { days: request.days },
          clock.now(),
        ),
      ),
    readSession: async (request) => {
      const now = clock.now();
      // An external session's agent reading its own conversation has read what was pending for it: its note is read
      // after the read marks that, not along with the read.
      const ownInbox = request.readerSessionId === request.sessionId;
      const read = await readSession(
        deps,
        { userId: request.userId, sessionId: request.sessionId, last: request.last, pendingFor: ownInbox ? undefined : agentOf(request) },
        now,
      );
      if (ownInbox && read.session.origin === 'external')
        await deps.inbox?.markRead(
          read.session.id,
          read.messages.map((message) => message.id),
        );
      const pending = ownInbox ? pendingAlong(deps, request.pendingForSessionId) : read.pending;
      const [members, withTheirTasks] = await Promise.all([
        withCallsInFlight(deps.calls, read.groupMembers, now),
        tasksOfSessions(deps.tasks, read.session.hasTasks ? [read.session.id] : []),
      ]);
      const [session] = withTheirTasks([toSessionMessage(read.session)]);
      return {
        session,
        messages: read.messages.map(toChatMessage),
        inFlight: read.inFlight,
        pendingQuestions: read.pendingQuestions.map(toPendingQuestion),
        groupMembers: await withMemberStates(deps.tasks, members.map(toGroupMemberMessage)),
        pending: await pending,
        neverAskedAbout: read.askMark === 0,
        askMark: read.askMark,
      };
    },
    createSession: async (request) => {
      const now = clock.now();
      const budget = request.budget === undefined ? undefined : fromBudgetLimitsMessage(request.budget);
      if (deps.budgets !== undefined && request.callerSessionId !== '') {
        await refuseOverBudget(deps.budgets, { sessionId: request.callerSessionId, startsSession: true, nothingDone: 'Nothing was created.' }, now);
      }
      const created = await createSession(
        deps,
        {
          userId: request.userId,
          callerSessionId: request.callerSessionId,
          title: request.title,
          provider: request.provider,
          model: request.model,
          effort: request.effort,
          mode: request.mode,
          cwd: request.cwd,
          repo: request.repo,
          branch: request.branch,
          group: request.group,
          text: request.text,
          provenance: fromProvenanceMessage(request.provenance),
          mentionedRelays: request.mentionedRelays,
          dryRun: request.dryRun,
        },
        now,
      );
      if (deps.budgets !== undefined) {
        const { session } = created;
        const narrowing = {
          userId: request.userId,
          startedBySessionId: session.startedBySessionId,
          callerSessionId: request.callerSessionId,
          pairedRelay: request.provenance?.originRelay ?? '',
          limits: budget,
        };
        await narrowBudget(deps.budgets, { ...narrowing, sessionId: session.id, dryRun: request.dryRun }, now);
      }
      return {
        session: toSessionMessage(created.session),
        messageId: created.messageId,
        modelNote: created.modelNote,
        groupWarning: created.groupWarning,
        firstStartedByCaller: created.firstStartedByCaller,
      };
    },
    sendMessage: async (request) => {
      const now = clock.now();
      const budget = request.budget === undefined ? undefined : fromBudgetLimitsMessage(request.budget);
      const target = deps.budgets === undefined ? undefined : await store.findSession(request.sessionId);
      if (deps.budgets !== undefined && target !== undefined && target.userId === request.userId) {
        // An agent's prompt (here or from a paired relay) is refused at once; the person's own message waits, queued.
        const byAgent = request.callerSessionId !== '' || request.provenance !== undefined;
        if (byAgent) await refuseOverBudget(deps.budgets, { sessionId: target.id, startsSession: false, nothingDone: 'Nothing was sent.' }, now);
        const narrowing = {
          userId: request.userId,
          sessionId: target.id,
          startedBySessionId: target.startedBySessionId,
          callerSessionId: request.callerSessionId,
          pairedRelay: request.provenance?.originRelay ?? '',
          limits: budget,
        };
        await narrowBudget(deps.budgets, { ...narrowing, dryRun: true }, now);
      }
      const sent = await sendMessage(
        deps,
        {
          userId: request.userId,
          callerSessionId: request.callerSessionId,
          sessionId: request.sessionId,
          text: request.text,
          provider: request.provider,
          model: request.model,
          effort: request.effort,
          mode: request.mode,
          provenance: fromProvenanceMessage(request.provenance),
          mentionedRelays: request.mentionedRelays,
          dryRun: request.dryRun,
        },
        now,
      );
      if (deps.budgets !== undefined && target !== undefined && !request.dryRun) {
        const narrowing = {
          userId: request.userId,
          sessionId: target.id,
          startedBySessionId: target.startedBySessionId,
          callerSessionId: request.callerSessionId,
          pairedRelay: request.provenance?.originRelay ?? '',
          limits: budget,
        };
        await narrowBudget(deps.budgets, { ...narrowing, dryRun: false }, now);
      }
      return { session: toSessionMessage(sent.session), messageId: sent.messageId, modelNote: sent.modelNote, billingSwitch: sent.billingSwitch };
    },
    updateSession: async (request) => {
      const updated = await updateSession(
        deps,
        {
          userId: request.userId,
          callerSessionId: request.callerSessionId,
          sessionId: request.sessionId,
          model: request.model,
          effort: request.effort,
          mode: request.mode,
          autoCompactWindow: request.autoCompactWindow,
          title: request.title,
          group: request.group,
          thinkingEnabled: request.thinkingEnabled,
          thinkingDisplay: request.thinkingDisplay,
          cwd: request.cwd,
          allowed: request.allowed,
          ...(request.remoteCaller ? { remoteCaller: { relay: request.remoteCaller.originRelay, sessionId: request.remoteCaller.originSessionId } } : {}),
          dryRun: request.dryRun,
        },
        clock.now(),
      );
      const { settings } = updated;
      return {
        settings: { ...settings, group: settings.group === null ? undefined : toGroupRefMessage(settings.group) },
        changed: updated.changed,
        relaunched: updated.relaunched,
        groupCreated: updated.groupCreated,
        note: updated.note,
        needsAllow: updated.needsAllow,
      };
    },
    archiveSession: async (request) => {
      const { session } = await archiveSession(
        deps,
        { userId: request.userId, callerSessionId: request.callerSessionId, sessionId: request.sessionId },
        clock.now(),
      );
      return { session: toSessionMessage(session) };
    },
    unarchiveSession: async (request) => {
      const session = await unarchiveSession(deps, { userId: request.userId, sessionId: request.sessionId });
      return { session: toSessionMessage(session) };
    },
    noteRemoteSessionStarted: async (request) => {
      await noteRemoteSessionStarted(deps, { sessionId: request.sessionId, relay: request.relay, remoteSessionId: request.remoteSessionId }, clock.now());
      return {};
    },
    noteAskAbout: async (request) => {
      await noteAskAbout(deps, { userId: request.userId, sessionId: request.sessionId });
      return {};
    },
    clearAskMark: async (request) => ({ cleared: await clearAskMark(deps, { userId: request.userId, sessionId: request.sessionId, mark: request.askMark }) }),
    noteRemoteUpdateAllowed: async (request) => {
      await noteRemoteUpdateAllowed(deps, { sessionId: request.sessionId, relay: request.relay }, clock.now());
      return {};
    },
    holdExternalCall: async (request) => {
      if (deps.calls === undefined) return { leaseMs: 0 };
      return holdExternalCall({ store, calls: deps.calls }, { sessionId: request.sessionId, callId: request.callId }, clock.now());
    },
    renewExternalCalls: async (request) => {
      if (deps.calls === undefined) return { leaseMs: 0, gone: [] };
      return renewExternalCalls(deps.calls, { calls: request.calls }, clock.now());
    },
    releaseExternalCall: async (request) => {
      if (deps.calls !== undefined)
        await releaseExternalCall({ store, calls: deps.calls }, { sessionId: request.sessionId, callId: request.callId }, clock.now());
      return {};
    },
    getConversation: async (request) => {
      const conversation = await getConversation(deps, { sessionId: request.sessionId });
      return {
        session: toSessionMessage(conversation.session),
        hasRunningTurn: conversation.hasRunningTurn,
        turnProvenance: conversation.turnProvenance === null ? undefined : toProvenanceMessage(conversation.turnProvenance),
        startedSessions: conversation.startedSessions,
        unlockedRelays: conversation.unlockedRelays,
        updateAllowedRelays: conversation.updateAllowedRelays,
        pending: conversation.session.origin === 'external' ? await deps.reads.pending(conversation.session.id) : undefined,
      };
    },
    getPendingMessages: async (request) => ({ pending: await getPendingMessages(deps, { sessionId: request.sessionId }) }),
    listPendingMessages: async (request) => ({ pending: Object.fromEntries(await listPendingMessages(deps, { sessionIds: request.sessionIds })) }),
    setConversationOptions: async (request) => {
      const session = await setConversationOptions(deps, {
        userId: request.userId,
        sessionId: request.sessionId,
        mode: request.mode,
        mayCreateSessions: request.mayCreateSessions,
      });
      return { session: toSessionMessage(session) };
    },
  });
}

/** The external session whose pending note a read answers along (pending_for_session_id), if one is asked for. */
function agentOf(request: { pendingForSessionId?: string }): string | undefined {
  return request.pendingForSessionId === '' ? undefined : request.pendingForSessionId;
}

/**
 * The pending note a read answers along after it (read_session of the agent's own conversation, once that is marked
 * read): none when not asked; one that cannot be read is left out (a warning), never the read's failure. Never
 * rejects.
 */
function pendingAlong(deps: SessionGrpcDeps, sessionId: string | undefined): Promise<PendingNote | undefined> {
  if (sessionId === undefined || sessionId === '') return Promise.resolve(undefined);
  return getPendingMessages(deps, { sessionId }).catch((error: unknown) => {
    deps.logger.warn({ err: error, sessionId }, 'the pending note asked along with a read could not be read');
    return undefined;
  });
}

/** GetRelayInfo's answer but for usage and settings. */
function relayInfoFields(info: RelayInfo) {
  return {
    providers: info.providers.map(toProviderInfoMessage),
    defaultCwd: info.defaultCwd,
    recentCwds: info.recentCwds,
    modes: info.modes,
    groups: info.groups,
    groupsTotal: info.groupsTotal,
    pending: info.pending,
  };
}
