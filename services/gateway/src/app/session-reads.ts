/** The session service's reads every use case makes, their answers checked once (domain/answers.ts). */
import { answered, type Conversation, type SessionRead } from '../domain/answers.ts';
import type { SessionClient } from './ports.ts';

/** A session's `last` messages (0 = the default) and what goes on there; `readerSessionId`: see ReadSession. */
export async function readSession(sessions: SessionClient, userId: string, sessionId: string, last: number, readerSessionId = ''): Promise<SessionRead> {
  const read = await sessions.readSession({ userId, sessionId, last, readerSessionId });
  return { ...read, session: answered(read.session, 'ReadSession', 'session') };
}

export async function getConversation(sessions: SessionClient, sessionId: string): Promise<Conversation> {
  const conversation = await sessions.getConversation({ sessionId });
  return { ...conversation, session: answered(conversation.session, 'GetConversation', 'session') };
}
