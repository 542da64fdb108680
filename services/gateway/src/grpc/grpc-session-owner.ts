/**
 * SessionOwner over gRPC: encodes calls to relay.session.v1.SessionService and decodes its answers
 * into the gateway's types. Nothing more.
 */
import { callStream, callUnary } from '@relay/rpc';
import type {
  ChatMessage as ChatMessageMessage,
  GroupRef as GroupRefMessage,
  GroupSummary as GroupSummaryMessage,
  PendingQuestion as PendingQuestionMessage,
  Provenance as ProvenanceMessage,
  RelaySettings as RelaySettingsMessage,
  Session as SessionMessage,
  Task as TaskMessage,
  TestCounts as TestCountsMessage,
  TurnResult as TurnResultMessage,
} from '@relay/proto/relay/session/v1/session';
import { SessionOrigin, SessionState, TurnStatus } from '@relay/proto/relay/session/v1/session';
import type { SessionServiceClient } from '@relay/proto/relay/session/v1/session_service';
import type {
  Actor,
  AgentPromptCount,
  AuthenticatedCaller,
  CreatedUser,
  UserRole,
  UserSummary,
  ChatMessage,
  Conversation,
  ConversationOptions,
  CreatedSession,
  CreateSessionInput,
  GroupRef,
  GroupSummary,
  PendingQuestion,
  Provenance,
  RelayInfo,
  RelaySettings,
  SendMessageInput,
  SentMessage,
  Session,
  SessionOwner,
  SessionRead,
  SessionScope,
  SessionTask,
  TaskOutput,
  TestCounts,
  TurnResult,
  TurnStatus as TurnStatusName,
  UpdatedRelaySettings,
  UpdatedSession,
  UpdateSessionInput,
  WaitEvent,
  WaitInput,
} from '../ports.ts';

/** How long a question to the session service may take before the caller hears it did not answer. */
const DEADLINE_MS = 10_000;

// A state this gateway does not know yet (a newer session service) shows as idle.
const STATES: Record<number, Session['state']> = {
  [SessionState.SESSION_STATE_UNSPECIFIED]: 'idle',
  [SessionState.SESSION_STATE_RUNNING_TURN]: 'running_turn',
  [SessionState.SESSION_STATE_BACKGROUND_ONLY]: 'background_only',
  [SessionState.SESSION_STATE_IDLE]: 'idle',
};

// A status this gateway does not know shows as running: not finished as far as it can tell, so the
// agent waits again rather than taking it for an answer.
const TURN_STATUSES: Record<number, TurnStatusName> = {
  [TurnStatus.TURN_STATUS_UNSPECIFIED]: 'running',
  [TurnStatus.TURN_STATUS_QUEUED]: 'queued',
  [TurnStatus.TURN_STATUS_RUNNING]: 'running',
  [TurnStatus.TURN_STATUS_WAITING_FOR_ANSWER]: 'waiting_for_answer',
  [TurnStatus.TURN_STATUS_DONE]: 'done',
  [TurnStatus.TURN_STATUS_ERROR]: 'error',
  [TurnStatus.TURN_STATUS_STOPPED]: 'stopped',
};

export class GrpcSessionOwner implements SessionOwner {
  constructor(private readonly client: SessionServiceClient) {}

  async authenticate(token: string): Promise<AuthenticatedCaller> {
    const answered = await callUnary(this.client, 'authenticate', { token }, { deadlineMs: DEADLINE_MS });
    const { caller } = answered;
    if (!caller?.userId) throw new Error('Authenticate answered without a caller');
    const role = toUserRole(answered.role);
    if (!caller.sessionId) return { userId: caller.userId, role };
    return { userId: caller.userId, role, sessionId: caller.sessionId, ...(answered.external ? { external: true } : {}) };
  }

  async listUsers(): Promise<UserSummary[]> {
    const { users } = await callUnary(this.client, 'listUsers', {}, { deadlineMs: DEADLINE_MS });
    return users.map((user) => ({ id: user.id, name: user.name, role: toUserRole(user.role), createdAt: required(user.createdAt, 'ListUsers', 'created_at') }));
  }

  async createUser(name: string, role: UserRole | undefined): Promise<CreatedUser> {
    const created = await callUnary(this.client, 'createUser', role === undefined ? { name } : { name, role }, { deadlineMs: DEADLINE_MS });
    return { userId: created.userId, role: toUserRole(created.role), token: created.token };
  }

  async removeUser(userId: string, callerUserId: string): Promise<{ user: UserSummary; archivedSessions: number }> {
    const { user, archivedSessions } = await callUnary(this.client, 'removeUser', { userId, callerUserId }, { deadlineMs: DEADLINE_MS });
    const removed = required(user, 'RemoveUser', 'user');
    return { user: { id: removed.id, name: removed.name, role: toUserRole(removed.role), createdAt: required(removed.createdAt, 'RemoveUser', 'created_at') }, archivedSessions };
  }

  async rotateUserToken(userId: string, revoke: boolean): Promise<{ token: string }> {
    return callUnary(this.client, 'rotateUserToken', { userId, revoke }, { deadlineMs: DEADLINE_MS });
  }

  async createSignInLink(userId: string): Promise<{ link: string; expiresAt: Date }> {
    const created = await callUnary(this.client, 'createSignInLink', { userId }, { deadlineMs: DEADLINE_MS });
    return { link: created.link, expiresAt: required(created.expiresAt, 'CreateSignInLink', 'expires_at') };
  }

  async redeemSignInLink(link: string): Promise<{ token: string; caller: AuthenticatedCaller; expiresAt: Date }> {
    const redeemed = await callUnary(this.client, 'redeemSignInLink', { link }, { deadlineMs: DEADLINE_MS });
    return {
      token: redeemed.token,
      caller: { userId: redeemed.userId, role: toUserRole(redeemed.role) },
      expiresAt: required(redeemed.expiresAt, 'RedeemSignInLink', 'expires_at'),
    };
  }

  async endSignIn(token: string): Promise<boolean> {
    return (await callUnary(this.client, 'endSignIn', { token }, { deadlineMs: DEADLINE_MS })).ended;
  }

  async rotateSessionToken(userId: string, sessionId: string, revoke: boolean): Promise<{ token: string }> {
    return callUnary(this.client, 'rotateSessionToken', { userId, sessionId, revoke }, { deadlineMs: DEADLINE_MS });
  }

  async listSessions(userId: string, scope: SessionScope): Promise<Session[]> {
    const { sessions } = await callUnary(this.client, 'listSessions', { userId, scope }, { deadlineMs: DEADLINE_MS });
    return sessions.map(toSession);
  }

  async createExternalSession(userId: string, title: string): Promise<{ session: Session; token: string }> {
    const { session, token } = await callUnary(this.client, 'createExternalSession', { userId, title }, { deadlineMs: DEADLINE_MS });
    return { session: toSession(required(session, 'CreateExternalSession', 'session')), token };
  }

  async getRelaySettings(): Promise<RelaySettings> {
    const { settings } = await callUnary(this.client, 'getRelaySettings', {}, { deadlineMs: DEADLINE_MS });
    return toRelaySettings(required(settings, 'GetRelaySettings', 'settings'));
  }

  async updateRelaySettings(change: Partial<RelaySettings>): Promise<UpdatedRelaySettings> {
    const { settings, changed } = await callUnary(this.client, 'updateRelaySettings', change, { deadlineMs: DEADLINE_MS });
    return { settings: toRelaySettings(required(settings, 'UpdateRelaySettings', 'settings')), changed };
  }

  async getRelayInfo(userId: string): Promise<RelayInfo> {
    const info = await callUnary(this.client, 'getRelayInfo', { userId }, { deadlineMs: DEADLINE_MS });
    return {
      providers: info.providers.map((provider) => ({
        id: provider.id,
        name: provider.name,
        available: provider.available,
        reason: provider.reason,
        defaultModel: provider.defaultModel,
        models: provider.models,
        efforts: provider.efforts,
        modelsKnown: provider.modelsKnown,
      })),
      defaultCwd: info.defaultCwd,
      recentCwds: info.recentCwds,
      modes: info.modes,
      groups: info.groups.map(toGroupSummary),
      groupsTotal: info.groupsTotal,
      usage:
        info.usage === undefined
          ? undefined
          : {
              claudeUsageLimitPaused: info.usage.claudeUsageLimitPaused,
              providers: info.usage.providers.map((usage) => ({
                provider: usage.provider,
                status: usage.status,
                reason: usage.reason,
                pausedUntil: usage.pausedUntil ?? null,
                meters: usage.meters.map((meter) => ({
                  name: meter.name,
                  used: meter.used,
                  allowance: meter.allowance ?? null,
                  remaining: meter.remaining ?? null,
                  utilization: meter.utilization ?? null,
                  resetsAt: meter.resetsAt ?? null,
                })),
              })),
            },
    };
  }

  async readSession(userId: string, sessionId: string, last: number, readerSessionId?: string): Promise<SessionRead> {
    const read = await callUnary(this.client, 'readSession', { userId, sessionId, last, readerSessionId: readerSessionId ?? '' }, { deadlineMs: DEADLINE_MS });
    return {
      session: toSession(required(read.session, 'ReadSession', 'session')),
      messages: read.messages.map(toChatMessage),
      inFlight: read.inFlight,
      pendingQuestions: read.pendingQuestions.map(toPendingQuestion),
      groupMembers: read.groupMembers.map((member) => ({
        id: member.id,
        title: member.title,
        role: member.role,
        state: STATES[member.state] ?? 'idle',
        archived: member.archived,
      })),
    };
  }

  async createSession(input: CreateSessionInput): Promise<CreatedSession> {
    const created = await callUnary(
      this.client,
      'createSession',
      {
        userId: input.userId,
        callerSessionId: input.callerSessionId ?? '',
        title: input.title ?? '',
        provider: input.provider ?? '',
        model: input.model ?? '',
        effort: input.effort ?? '',
        mode: input.mode ?? '',
        cwd: input.cwd ?? '',
        repo: input.repo ?? '',
        branch: input.branch ?? '',
        group: input.group ?? '',
        text: input.text,
        provenance: input.provenance,
        mentionedRelays: input.mentionedRelays ?? [],
        dryRun: input.dryRun,
      },
      { deadlineMs: DEADLINE_MS },
    );
    return {
      session: toSession(required(created.session, 'CreateSession', 'session')),
      messageId: created.messageId,
      modelNote: created.modelNote,
      groupWarning: created.groupWarning,
      firstStartedByCaller: created.firstStartedByCaller,
    };
  }

  async sendMessage(input: SendMessageInput): Promise<SentMessage> {
    const sent = await callUnary(
      this.client,
      'sendMessage',
      {
        userId: input.userId,
        callerSessionId: input.callerSessionId ?? '',
        sessionId: input.sessionId,
        text: input.text,
        provider: input.provider ?? '',
        model: input.model ?? '',
        effort: input.effort ?? '',
        mode: input.mode ?? '',
        provenance: input.provenance,
        mentionedRelays: input.mentionedRelays ?? [],
        dryRun: input.dryRun,
      },
      { deadlineMs: DEADLINE_MS },
    );
    return {
      session: toSession(required(sent.session, 'SendMessage', 'session')),
      messageId: sent.messageId,
      modelNote: sent.modelNote,
      billingSwitch: sent.billingSwitch,
    };
  }

  async *wait(input: WaitInput, signal: AbortSignal): AsyncIterable<WaitEvent> {
    const request = {
      userId: input.userId,
      callerSessionId: input.callerSessionId ?? '',
      sessionId: input.sessionId,
      messageId: input.messageId,
      waitSeconds: input.waitSeconds,
    };
    // No deadline: the wait is bounded by wait_seconds on the relay clock, and the caller's going
    // away cancels it through `signal`.
    for await (const event of callStream(this.client, 'wait', request, { signal })) {
      if (event.result) yield { kind: 'result', result: toTurnResult(event.result) };
      else yield { kind: 'progress', seconds: event.progressSeconds ?? 0 };
    }
  }

  async updateSession(input: UpdateSessionInput): Promise<UpdatedSession> {
    const { change } = input;
    const updated = await callUnary(
      this.client,
      'updateSession',
      {
        userId: input.userId,
        callerSessionId: input.callerSessionId ?? '',
        sessionId: input.sessionId,
        model: change.model,
        effort: change.effort,
        mode: change.mode,
        autoCompactWindow: change.autoCompactWindow,
        title: change.title,
        group: change.group,
        thinkingEnabled: change.thinkingEnabled,
        thinkingDisplay: change.thinkingDisplay,
        cwd: change.cwd,
        allowed: input.allowed,
        remoteCaller: input.remoteCaller,
        dryRun: input.dryRun,
      },
      { deadlineMs: DEADLINE_MS },
    );
    const settings = required(updated.settings, 'UpdateSession', 'settings');
    return {
      settings: {
        model: settings.model,
        effort: settings.effort,
        mode: settings.mode,
        autoCompactWindow: settings.autoCompactWindow,
        title: settings.title,
        group: toGroupRef(settings.group),
        thinkingEnabled: settings.thinkingEnabled,
        thinkingDisplay: settings.thinkingDisplay,
        cwd: settings.cwd,
      },
      changed: updated.changed,
      relaunched: updated.relaunched,
      groupCreated: updated.groupCreated ? toGroupSummary(updated.groupCreated) : undefined,
      note: updated.note,
      needsAllow: updated.needsAllow,
    };
  }

  async stopTurn(actor: Actor, sessionId: string): Promise<{ stopRequested: boolean }> {
    const { stopRequested } = await callUnary(this.client, 'stopTurn', { ...actorFields(actor), sessionId }, { deadlineMs: DEADLINE_MS });
    return { stopRequested };
  }

  async archiveSession(actor: Actor, sessionId: string): Promise<Session> {
    const { session } = await callUnary(this.client, 'archiveSession', { ...actorFields(actor), sessionId }, { deadlineMs: DEADLINE_MS });
    return toSession(required(session, 'ArchiveSession', 'session'));
  }

  async unarchiveSession(userId: string, sessionId: string): Promise<Session> {
    const { session } = await callUnary(this.client, 'unarchiveSession', { userId, sessionId }, { deadlineMs: DEADLINE_MS });
    return toSession(required(session, 'UnarchiveSession', 'session'));
  }

  async getConversation(sessionId: string): Promise<Conversation> {
    const conversation = await callUnary(this.client, 'getConversation', { sessionId }, { deadlineMs: DEADLINE_MS });
    return {
      session: toSession(required(conversation.session, 'GetConversation', 'session')),
      hasRunningTurn: conversation.hasRunningTurn,
      turnProvenance: conversation.turnProvenance ? toProvenance(conversation.turnProvenance) : undefined,
      startedSessions: conversation.startedSessions,
      unlockedRelays: conversation.unlockedRelays.map(({ relay, byMention }) => ({ relay, byMention })),
      updateAllowedRelays: conversation.updateAllowedRelays,
      ...(conversation.pending ? { pending: { count: conversation.pending.count, previews: conversation.pending.previews } } : {}),
    };
  }

  async setConversationOptions(userId: string, sessionId: string, options: ConversationOptions): Promise<Session> {
    const { session } = await callUnary(
      this.client,
      'setConversationOptions',
      { userId, sessionId, mode: options.mode, mayCreateSessions: options.mayCreateSessions },
      { deadlineMs: DEADLINE_MS },
    );
    return toSession(required(session, 'SetConversationOptions', 'session'));
  }

  async countAgentPrompt(sessionId: string, dryRun: boolean): Promise<AgentPromptCount> {
    const { sent, allowed, usedUp } = await callUnary(this.client, 'countAgentPrompt', { sessionId, dryRun }, { deadlineMs: DEADLINE_MS });
    return { sent, allowed, usedUp };
  }

  async noteRemoteSessionStarted(sessionId: string, relay: string, remoteSessionId: string): Promise<void> {
    await callUnary(this.client, 'noteRemoteSessionStarted', { sessionId, relay, remoteSessionId }, { deadlineMs: DEADLINE_MS });
  }

  async noteRemoteUpdateAllowed(sessionId: string, relay: string): Promise<void> {
    await callUnary(this.client, 'noteRemoteUpdateAllowed', { sessionId, relay }, { deadlineMs: DEADLINE_MS });
  }

  async holdExternalCall(sessionId: string, callId: string): Promise<{ leaseMs: number }> {
    const held = await callUnary(this.client, 'holdExternalCall', { sessionId, callId }, { deadlineMs: DEADLINE_MS });
    return { leaseMs: held.leaseMs };
  }

  async releaseExternalCall(sessionId: string, callId: string): Promise<void> {
    await callUnary(this.client, 'releaseExternalCall', { sessionId, callId }, { deadlineMs: DEADLINE_MS });
  }

  async grantAgentPrompts(sessionId: string): Promise<void> {
    await callUnary(this.client, 'grantAgentPrompts', { sessionId }, { deadlineMs: DEADLINE_MS });
  }

  async readTaskOutput(userId: string, sessionId: string, taskId: string, lines: number): Promise<TaskOutput> {
    const read = await callUnary(this.client, 'readTaskOutput', { userId, sessionId, taskId, lines }, { deadlineMs: DEADLINE_MS });
    return {
      task: toSessionTask(required(read.task, 'ReadTaskOutput', 'task')),
      tail: read.tail,
      truncated: read.truncated,
      stall: read.stall && { minutes: read.stall.minutes, since: read.stall.since, quiet: read.stall.quiet, quietAfterMinutes: read.stall.quietAfterMinutes },
      counts: toTestCounts(read.counts),
      notes: read.notes,
    };
  }
}

function toSessionTask(message: TaskMessage): SessionTask {
  return {
    id: message.id,
    description: message.description,
    type: message.type,
    status: message.status,
    exitCode: message.exitCode ?? null,
    startedAt: message.startedAt,
    endedAt: message.endedAt,
    hasOutput: message.hasOutput,
    reason: message.reason,
    health: message.health && {
      minutesSinceOutput: message.health.minutesSinceOutput,
      quiet: message.health.quiet,
      quietAfterMinutes: message.health.quietAfterMinutes,
    },
    counts: toTestCounts(message.counts),
  };
}

function toTestCounts(message: TestCountsMessage | undefined): TestCounts | undefined {
  return message && { runner: message.runner, passed: message.passed, failed: message.failed, skipped: message.skipped, final: message.final };
}

function toRelaySettings(message: RelaySettingsMessage): RelaySettings {
  const { agentSessionsEnabled, maxWaitSeconds, maxTurnMinutes, taskQuietMinutes } = message;
  return { agentSessionsEnabled, maxWaitSeconds, maxTurnMinutes, taskQuietMinutes };
}

function required<T>(value: T | undefined, rpc: string, field: string): T {
  if (value === undefined) throw new Error(`${rpc} answered without ${field}`);
  return value;
}

function actorFields(actor: Actor): { userId: string; callerSessionId: string } {
  return { userId: actor.userId, callerSessionId: actor.callerSessionId ?? '' };
}

function toSession(message: SessionMessage): Session {
  return {
    id: message.id,
    title: message.title,
    provider: message.provider,
    model: message.model,
    state: STATES[message.state] ?? 'idle',
    cwd: message.cwd,
    archived: message.archived,
    external: message.origin === SessionOrigin.SESSION_ORIGIN_EXTERNAL,
    messageCount: message.messageCount,
    lastActivityAt: message.lastActivityAt,
    effort: message.effort,
    mode: message.mode,
    repo: message.repo,
    branch: message.branch,
    group: toGroupRef(message.group),
    startedBy: message.startedBySessionId ? { id: message.startedBySessionId, title: message.startedByTitle } : undefined,
    mayCreateSessions: message.mayCreateSessions,
    tasks: message.tasks.map(toSessionTask),
  };
}

function toGroupRef(message: GroupRefMessage | undefined): GroupRef | undefined {
  return message?.id ? { id: message.id, name: message.name, role: message.role } : undefined;
}

function toGroupSummary(message: GroupSummaryMessage): GroupSummary {
  return { id: message.id, name: message.name, memberCount: message.memberCount };
}

function toProvenance(message: ProvenanceMessage): Provenance {
  return {
    originRelay: message.originRelay,
    originSessionId: message.originSessionId,
    originSessionTitle: message.originSessionTitle,
    model: message.model,
    hops: message.hops,
    viaRelays: [...message.viaRelays],
  };
}

function toChatMessage(message: ChatMessageMessage): ChatMessage {
  return {
    id: message.id,
    role: message.role,
    text: message.text,
    provenance: message.provenance ? toProvenance(message.provenance) : undefined,
    createdAt: message.createdAt,
    model: message.model,
  };
}

function toPendingQuestion(message: PendingQuestionMessage): PendingQuestion {
  return { id: message.id, kind: message.kind, question: message.question, options: message.options };
}

function toTurnResult(message: TurnResultMessage): TurnResult {
  return {
    sessionId: message.sessionId,
    messageId: message.messageId,
    status: TURN_STATUSES[message.status] ?? 'running',
    replyText: message.replyText,
    replyModel: message.replyModel,
    error: message.error,
    pendingQuestions: message.pendingQuestions.map(toPendingQuestion),
  };
}

// A role this gateway does not know, or none (a session service that predates roles), reads as member:
// the safe side, since only admins change what is relay-wide.
function toUserRole(role: string | undefined): UserRole {
  return role === 'admin' ? 'admin' : 'member';
}
