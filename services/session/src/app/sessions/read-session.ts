import type { GroupMember } from '../../domain/groups/group.ts';
import type { Message } from '../../domain/sessions/conversation.ts';
import type { PendingQuestion } from '../../domain/turns/turn.ts';
import { invalidInput, noSuchSession } from '../../domain/errors.ts';
import { MAX_GROUP_MEMBERS } from '../../domain/groups/groups.ts';
import type { ConversationStore, ListedSession, PendingAlong, SessionReads } from '../ports.ts';
import { tasksShownSince, withCallsAt } from './list-sessions.ts';

/** Messages read_session returns by default, and at most (decisions.md, Limits). */
export const DEFAULT_READ_LAST = 10;
export const MAX_READ_LAST = 100;

/** What read_session shows. */
export interface ReadSessionResult extends PendingAlong {
  session: ListedSession;
  /** The most recent messages, newest last. */
  messages: Message[];
  /** The reply still being written, if a turn runs. */
  inFlight: string;
  pendingQuestions: PendingQuestion[];
  /** The other members of its group, at most 50. */
  groupMembers: GroupMember[];
  /** Its ask mark (NoteAskAbout): 0 means no ask is pending about it (asks are the question service's). */
  askMark: number;
}

/**
 * read_session: a session's last messages (1–100, 0 = 10) and what is going on there right now (an external call
 * in flight at `now` is its running turn). With the pending note of `pendingFor` (PendingAlong).
 */
export async function readSession(
  deps: { reads: Pick<SessionReads, 'readSession'>; store: Pick<ConversationStore, 'groupMembers'>; relay: { name: string } },
  input: { userId: string; sessionId: string; last: number; pendingFor?: string },
  now: Date,
): Promise<ReadSessionResult> {
  const last = input.last === 0 ? DEFAULT_READ_LAST : input.last;
  if (!Number.isInteger(last) || last < 1 || last > MAX_READ_LAST) {
    throw invalidInput(`last must be a whole number from 1 to ${MAX_READ_LAST} (default ${DEFAULT_READ_LAST}).`, {
      field: 'last',
      min: 1,
      max: MAX_READ_LAST,
    });
  }
  const read = await deps.reads.readSession(input.sessionId, last, tasksShownSince(now), input.pendingFor);
  if (read === undefined || read.session.userId !== input.userId) {
    throw noSuchSession(deps.relay.name, input.sessionId);
  }
  const { session, messages, running, askMark, pending } = read;
  const members = session.groupId === null ? [] : await deps.store.groupMembers(session.groupId, MAX_GROUP_MEMBERS + 1);
  return {
    session: withCallsAt(session, now),
    messages,
    inFlight: running?.inFlight ?? '',
    pendingQuestions: running?.pendingQuestions ?? [],
    groupMembers: members.filter((member) => member.id !== session.id).slice(0, MAX_GROUP_MEMBERS),
    askMark,
    pending,
  };
}
