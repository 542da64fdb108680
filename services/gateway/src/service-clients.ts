/**
 * The services the gateway calls, each as a promise client over its generated contract (@relay/rpc promiseClient):
 * requests and answers are the protos' own types, and the gateway keeps no copy of them. src/main.ts makes them;
 * the views (relay-tool/, routes/) turn the answers into the spec's result shapes.
 */
import type { PairingServiceService } from '@relay/proto/relay/pairing/v1/pairing_service';
import type { RemoteEventsServiceService } from '@relay/proto/relay/pairing/v1/remote_events';
import type { QuestionServiceService } from '@relay/proto/relay/question/v1/question_service';
import type { SchedulerServiceService } from '@relay/proto/relay/scheduler/v1/scheduler_service';
import type { Session } from '@relay/proto/relay/session/v1/session';
import type { GetConversationResponse, ReadSessionResponse, SessionServiceService } from '@relay/proto/relay/session/v1/session_service';
import type { SubscriptionServiceService } from '@relay/proto/relay/subscription/v1/subscription_service';
import type { PromiseClient } from '@relay/rpc';

/** How long a question to a service may take before the caller hears it did not answer. */
export const DEADLINE_MS = 10_000;
/** A call the pairing service passes on to a paired relay answers once that relay has (up to its own timeout). */
export const REMOTE_DEADLINE_MS = 30_000;

export type PairingClient = PromiseClient<typeof PairingServiceService>;
export type QuestionClient = PromiseClient<typeof QuestionServiceService>;
/** The pairing service's events and asks across relays (relay.pairing.v1.RemoteEventsService). */
export type RemoteEventsClient = PromiseClient<typeof RemoteEventsServiceService>;
export type SchedulerClient = PromiseClient<typeof SchedulerServiceService>;
export type SessionClient = PromiseClient<typeof SessionServiceService>;
export type SubscriptionClient = PromiseClient<typeof SubscriptionServiceService>;

/** A message field every answer of `rpc` carries (proto3 makes every message field optional on the wire). */
export function answered<T>(value: T | undefined, rpc: string, field: string): T {
  if (value === undefined) throw new Error(`${rpc} answered without ${field}`);
  return value;
}

/**
 * A session read (ReadSession), its session always there: the session service answers NOT_FOUND otherwise. The
 * pending note a read may carry along is the relay_tool call's (dispatch.ts), not the read's.
 */
export type SessionRead = Omit<ReadSessionResponse, 'pending'> & { session: Session };

/** A session's `last` messages (0 = the default) and what goes on there; `readerSessionId`: see ReadSession. */
export async function readSession(sessions: SessionClient, userId: string, sessionId: string, last: number, readerSessionId = ''): Promise<SessionRead> {
  const read = await sessions.readSession({ userId, sessionId, last, readerSessionId });
  return { ...read, session: answered(read.session, 'ReadSession', 'session') };
}

/** What policy needs to know about a calling conversation (GetConversation), its session always there. */
export type Conversation = GetConversationResponse & { session: Session };

export async function getConversation(sessions: SessionClient, sessionId: string): Promise<Conversation> {
  const conversation = await sessions.getConversation({ sessionId });
  return { ...conversation, session: answered(conversation.session, 'GetConversation', 'session') };
}
