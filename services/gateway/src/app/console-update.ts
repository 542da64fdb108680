/**
 * What the console page shows, as digests (GET /api/v1/events): the user's sessions, their Inbox and the one
 * conversation open on the page; the page reads a part again through the user API when its digest changes.
 * The sessions' digest is of the first page of the listing (every scope, the most recently active first) and how many
 * there are: a read each second per open page must not grow with the user's sessions, and a session that moves
 * (a turn, a message) comes to the top. A change that does not make a session active, on a session past the first
 * page (a rename, a task that ended), shows when that page is read again.
 */
import { createHash } from 'node:crypto';
import type { QuestionClient, SessionClient } from './ports.ts';
import { readSession } from './session-reads.ts';
import { LIST_SESSIONS_PAGE } from '../domain/limits.ts';

/** What one `update` event carries: a digest per part, and the Inbox's count for the header. */
export interface ConsoleUpdate {
  sessions: string;
  inbox: string;
  inboxCount: number;
  /** The conversation named by ?session=, when one is. */
  session?: string;
}

/** The digests of what the page shows for `userId` now. */
export async function readConsoleUpdate(
  owners: { sessions: SessionClient; questions: QuestionClient },
  userId: string,
  sessionId: string | undefined,
): Promise<ConsoleUpdate> {
  const [{ sessions, total }, asks, cards, read] = await Promise.all([
    owners.sessions.listSessions({ userId, scope: 'all', limit: LIST_SESSIONS_PAGE, offset: 0 }),
    owners.questions.listAsks({ userId, askingSessionId: '', aboutSessionId: '', pendingOnly: true }).then(({ asks }) => asks),
    owners.questions.listCards({ userId, sessionId: '', pendingOnly: true }).then(({ cards }) => cards),
    sessionId === undefined ? undefined : readSession(owners.sessions, userId, sessionId, 20).catch(() => null),
  ]);
  const update: ConsoleUpdate = {
    sessions: digest([
      total,
      sessions.map((s) => [s.id, s.title, s.state, s.archived, s.messageCount, s.lastActivityAt?.getTime(), s.group?.id, s.tasks.map((t) => [t.id, t.status])]),
    ]),
    inbox: digest([asks.map((a) => a.id), cards.map((c) => c.id)]),
    inboxCount: asks.length + cards.length,
  };
  if (read !== undefined) {
    update.session =
      read === null
        ? 'gone'
        : digest([
            read.messages.map((m) => [m.id, m.text.length]),
            read.inFlight,
            read.session.state,
            read.session.mode,
            read.session.mayCreateSessions,
            read.session.tasks.map((t) => [t.id, t.status, t.health?.minutesSinceOutput]),
            cards.filter((c) => c.sessionId === sessionId).map((c) => c.id),
            asks.filter((a) => a.aboutSessionId === sessionId || a.askingSessionId === sessionId).map((a) => a.id),
          ]);
  }
  return update;
}

function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('base64url').slice(0, 16);
}
