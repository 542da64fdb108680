/**
 * Domain values as the proto messages of the gRPC API. The events carry some of them too: main.ts hands these
 * encoders to the stores, which write the events (adapters/store/outbox-events.ts).
 */
import {
  MessageDelivery as MessageDeliveryMessage,
  SessionOrigin as SessionOriginMessage,
  SessionState as SessionStateMessage,
  type Caller as CallerMessage,
  type ChatMessage,
  type GroupMember as GroupMemberMessage,
  type GroupRef as GroupRefMessage,
  type LastTurn as LastTurnMessage,
  type PendingQuestion as PendingQuestionMessage,
  type Provenance as ProvenanceMessage,
  type ProviderInfo as ProviderInfoMessage,
  type RelaySettings as RelaySettingsMessage,
  type Session as SessionMessage,
  TurnStatus as TurnStatusMessage,
} from '@relay/proto/relay/session/v1/session';
import type { UserSummary } from '@relay/proto/relay/session/v1/session_service';
import type { GroupMember, GroupRef } from '../../../domain/groups/group.ts';
import type { Message, Provenance } from '../../../domain/sessions/conversation.ts';
import type { MessageDelivery } from '../../../domain/sessions/delivery.ts';
import type { Session, SessionOrigin, SessionState, SessionView } from '../../../domain/sessions/session.ts';
import type { RelaySettings } from '../../../domain/settings/relay-settings.ts';
import type { EndedTurnStatus, LastTurn, PendingQuestion } from '../../../domain/turns/turn.ts';
import type { Caller, User } from '../../../domain/users/user.ts';
import type { ProviderInfo } from '../../../domain/catalogue/provider-catalogue.ts';

const STATES: Record<SessionState, SessionStateMessage> = {
  running_turn: SessionStateMessage.SESSION_STATE_RUNNING_TURN,
  background_only: SessionStateMessage.SESSION_STATE_BACKGROUND_ONLY,
  idle: SessionStateMessage.SESSION_STATE_IDLE,
};

const ORIGINS: Record<SessionOrigin, SessionOriginMessage> = {
  hosted: SessionOriginMessage.SESSION_ORIGIN_HOSTED,
  external: SessionOriginMessage.SESSION_ORIGIN_EXTERNAL,
};

const ENDED_STATUSES: Record<EndedTurnStatus, TurnStatusMessage> = {
  done: TurnStatusMessage.TURN_STATUS_DONE,
  error: TurnStatusMessage.TURN_STATUS_ERROR,
  stopped: TurnStatusMessage.TURN_STATUS_STOPPED,
};

/**
 * A session as relay.session.v1.Session; a bare Session (no view) has no group and no starter title, and only a
 * listed one (list_sessions, read_session) says how its last turn ended.
 */
export function toSessionMessage(session: Session | SessionView | (SessionView & { lastTurn: LastTurn | null })): SessionMessage {
  const view = 'group' in session ? session : undefined;
  const lastTurn = 'lastTurn' in session ? session.lastTurn : null;
  return {
    id: session.id,
    userId: session.userId,
    title: session.title,
    provider: session.provider,
    model: session.model,
    state: STATES[session.state],
    cwd: session.cwd,
    archived: session.archived,
    origin: ORIGINS[session.origin],
    messageCount: session.messageCount,
    createdAt: session.createdAt,
    lastActivityAt: session.lastActivityAt,
    effort: session.effort,
    mode: session.mode,
    repo: session.repo,
    branch: session.branch,
    group: view?.group == null ? undefined : toGroupRefMessage(view.group),
    startedBySessionId: session.startedBySessionId ?? '',
    startedByTitle: view?.startedByTitle ?? '',
    mayCreateSessions: session.mayCreateSessions,
    autoCompactWindow: session.autoCompactWindow,
    thinkingEnabled: session.thinkingEnabled,
    thinkingDisplay: session.thinkingDisplay,
    // Tasks are added by the RPCs that show them (tasks/session-tasks.ts).
    tasks: [],
    lastTurn: lastTurn === null ? undefined : toLastTurnMessage(lastTurn),
  };
}

/** How a session's last turn ended, as relay.session.v1.LastTurn. */
function toLastTurnMessage(lastTurn: LastTurn): LastTurnMessage {
  return { status: ENDED_STATUSES[lastTurn.status], error: lastTurn.error, endedAt: lastTurn.endedAt };
}

/** A group reference as relay.session.v1.GroupRef. */
export function toGroupRefMessage(group: GroupRef): GroupRefMessage {
  return { id: group.id, name: group.name, role: group.role };
}

/** A group member as relay.session.v1.GroupMember. */
export function toGroupMemberMessage(member: GroupMember): GroupMemberMessage {
  return { id: member.id, title: member.title, role: member.role, state: STATES[member.state], archived: member.archived };
}

/** A provider as relay.session.v1.ProviderInfo. */
export function toProviderInfoMessage(provider: ProviderInfo): ProviderInfoMessage {
  return {
    id: provider.id,
    name: provider.name,
    available: provider.available,
    reason: provider.reason,
    defaultModel: provider.defaultModel,
    models: [...provider.models],
    efforts: [...provider.efforts],
    modelsKnown: provider.modelsKnown,
  };
}

/** Provenance as relay.session.v1.Provenance. */
export function toProvenanceMessage(provenance: Provenance): ProvenanceMessage {
  return { ...provenance, viaRelays: provenance.viaRelays ?? [] };
}

/** A relay.session.v1.Provenance from a request; unset (or all empty) means none. */
export function fromProvenanceMessage(message: ProvenanceMessage | undefined): Provenance | null {
  if (message === undefined) return null;
  if (message.originRelay === '' && message.originSessionId === '' && message.hops === 0) return null;
  return {
    originRelay: message.originRelay,
    originSessionId: message.originSessionId,
    originSessionTitle: message.originSessionTitle,
    model: message.model,
    hops: message.hops,
    viaRelays: [...message.viaRelays],
  };
}

const DELIVERIES: Record<MessageDelivery, MessageDeliveryMessage> = {
  queued: MessageDeliveryMessage.MESSAGE_DELIVERY_QUEUED,
  delivered: MessageDeliveryMessage.MESSAGE_DELIVERY_DELIVERED,
  failed: MessageDeliveryMessage.MESSAGE_DELIVERY_FAILED,
};

/** A message's delivery as relay.session.v1.MessageDelivery; UNSPECIFIED for a message that has none. */
export function toDeliveryMessage(delivery: MessageDelivery | undefined): MessageDeliveryMessage {
  return delivery === undefined ? MessageDeliveryMessage.MESSAGE_DELIVERY_UNSPECIFIED : DELIVERIES[delivery];
}

/** A message as relay.session.v1.ChatMessage. */
export function toChatMessage(message: Message): ChatMessage {
  return {
    id: message.id,
    role: message.role,
    text: message.text,
    provenance: message.provenance === null ? undefined : toProvenanceMessage(message.provenance),
    createdAt: message.createdAt,
    model: message.model,
    delivery: toDeliveryMessage(message.delivery),
  };
}

/** A pending question as relay.session.v1.PendingQuestion. */
export function toPendingQuestion(question: PendingQuestion): PendingQuestionMessage {
  return { id: question.id, kind: question.kind, question: question.question, options: [...question.options] };
}

/** Settings as relay.session.v1.RelaySettings. */
export function toRelaySettingsMessage(settings: RelaySettings): RelaySettingsMessage {
  return { ...settings };
}

/** A caller as relay.session.v1.Caller; a user token leaves session_id empty. */
export function toCallerMessage(caller: Caller): CallerMessage {
  return { userId: caller.userId, sessionId: caller.sessionId ?? '' };
}

/** A user as relay.session.v1.UserSummary: never their tokens. */
export function toUserSummary(user: User): UserSummary {
  return { id: user.id, name: user.name, role: user.role, createdAt: user.createdAt };
}
