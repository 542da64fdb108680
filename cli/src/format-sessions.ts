import type { Schemas } from '@relay/user-api';
import { formatTable } from './format-table.ts';

/** A session as the CLI shows it in a table row. */
export type SessionRow = {
  id: string;
  title: string;
  state: string;
  model: string;
  messages: string;
  lastActivity: string;
};

const TITLE_WIDTH = 40;
/** How many sessions a page of GET /api/v1/sessions lists when no limit is asked (the CLI asks none). */
const SESSIONS_PAGE = 100;
const STATUS_WIDTH = 48;

/** The sessions as an aligned table, or a one-line note when there are none. */
export function formatSessionsTable(sessions: readonly Schemas['UserSession'][], scope: string, now: Date): string {
  if (sessions.length === 0) return scope === 'all' ? 'No sessions.' : `No ${scope} sessions.`;
  const columns: (keyof SessionRow)[] = ['id', 'title', 'state', 'model', 'messages', 'lastActivity'];
  const rows = sessions.map((session) => sessionRow(session, now));
  return formatTable(
    ['ID', 'TITLE', 'STATE', 'MODEL', 'MSGS', 'LAST ACTIVITY'],
    rows.map((row) => columns.map((column) => row[column])),
  );
}

/**
 * A page of the sessions as the table, and below it which of how many it shows and the command for the next page
 * when there are more (or the last page, for a page past it).
 */
export function formatSessionsPage(listed: Schemas['SessionPage'], scope: string, now: Date): string {
  const { sessions, sessionsTotal, page, pages, nextPage } = listed;
  const scopeWord = scope === 'active' ? '' : ` --scope ${scope}`;
  if (sessions.length === 0 && page > 1) {
    return `Page ${page} is past the last one: ${sessionsTotal} sessions fill ${pages} page${pages === 1 ? '' : 's'}; relay sessions${scopeWord} --page ${pages} shows the last.`;
  }
  const table = formatSessionsTable(sessions, scope, now);
  if (pages === 1) return table;
  const first = (page - 1) * SESSIONS_PAGE + 1;
  const shown = `Sessions ${first}–${first + sessions.length - 1} of ${sessionsTotal} (page ${page} of ${pages}), the most recently active first.`;
  const more =
    nextPage === undefined
      ? ''
      : ` ${sessionsTotal - first - sessions.length + 1} more: relay sessions${scopeWord} --page ${nextPage}, or --all for every one.`;
  return `${table}\n\n${shown}${more}`;
}

/** One session's cells; an empty title or model shows as "-". */
export function sessionRow(session: Schemas['UserSession'], now: Date): SessionRow {
  const title = session.title === '' ? '-' : session.title;
  return {
    id: session.id,
    title: title.length > TITLE_WIDTH ? `${title.slice(0, TITLE_WIDTH - 1)}…` : title,
    state: `${statusWords(session.status, session.state, STATUS_WIDTH)}${session.archived ? ', archived' : ''}`,
    model: [session.provider, session.model].filter((part) => part !== '').join('/') || '-',
    messages: String(session.messageCount),
    lastActivity: timeAgo(session.lastActivityAt, now),
  };
}

/**
 * What the gateway calls the session's status ("working", "waiting for you (card)", "idle", "failed: …"), at most
 * `width` characters; its state's name where there is no status.
 */
export function statusWords(status: Schemas['SessionStatus'] | undefined, state: string, width = Number.POSITIVE_INFINITY): string {
  const words = status?.words ?? '';
  if (words === '') return state;
  return words.length > width ? `${words.slice(0, width - 1)}…` : words;
}

/** "just now", "5 min ago", "3 h ago", "2 d ago"; no time or an unreadable one shows as "-". */
export function timeAgo(value: string | null | undefined, now: Date): string {
  if (value === null || value === undefined) return '-';
  const at = new Date(value).getTime();
  if (Number.isNaN(at)) return '-';
  const seconds = Math.max(0, Math.round((now.getTime() - at) / 1000));
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86_400)} d ago`;
}
