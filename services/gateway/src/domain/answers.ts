/**
 * What the owners' answers always hold: proto3 makes every message field optional on the wire, so the fields an
 * answer carries for sure are checked once, here, and the types below say so.
 */
import type { GroupRef, Session } from '@relay/proto/relay/session/v1/session';
import type { GetConversationResponse, ReadSessionResponse } from '@relay/proto/relay/session/v1/session_service';

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

/** What policy needs to know about a calling conversation (GetConversation), its session always there. */
export type Conversation = GetConversationResponse & { session: Session };

/** The session's group, when it is in one (the session service sends an empty one otherwise). */
export function groupOf(session: Pick<Session, 'group'>): GroupRef | undefined {
  return session.group?.id ? session.group : undefined;
}
