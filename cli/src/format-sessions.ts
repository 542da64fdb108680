import { formatTable } from './format-table.ts';

/** A session as the CLI shows it, read leniently from the gateway's JSON. */
export type SessionRow = {
  id: string;
  title: string;
  state: string;
  model: string;
  messages: string;
  lastActivity: string;
};

const STATE_NAMES: Record<number, string> = { 1: 'running_turn', 2: 'background_only', 3: 'idle' };
const TITLE_WIDTH = 40;
const STATUS_WIDTH = 48;

/** The sessions as an aligned table, or a one-line note when there are none. */
export function formatSessionsTable(sessions: readonly unknown[], scope: string, now: Date): string {
  if (sessions.length === 0) return scope === 'all' ? 'No sessions.' : `No ${scope} sessions.`;
  const columns: (keyof SessionRow)[] = ['id', 'title', 'state', 'model', 'messages', 'lastActivity'];
  const rows = sessions.map((session) => sessionRow(session, now));
  return formatTable(['ID', 'TITLE', 'STATE', 'MODEL', 'MSGS', 'LAST ACTIVITY'], rows.map((row) => columns.map((column) => row[column])));
}

/** One session's cells; unknown or missing fields show as "-". */
export function sessionRow(session: unknown, now: Date): SessionRow {
  const record = typeof session === 'object' && session !== null ? (session as Record<string, unknown>) : {};
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : '-');
  const title = text(record['title']);
  const provider = typeof record['provider'] === 'string' ? record['provider'] : '';
  const model = typeof record['model'] === 'string' ? record['model'] : '';
  const archived = record['archived'] === true ? ', archived' : '';
  return {
    id: text(record['id']),
    title: title.length > TITLE_WIDTH ? `${title.slice(0, TITLE_WIDTH - 1)}…` : title,
    state: `${statusWords(record, STATUS_WIDTH)}${archived}`,
    model: [provider, model].filter((part) => part !== '').join('/') || '-',
    messages: text(record['messageCount'] ?? record['message_count']),
    lastActivity: timeAgo(record['lastActivityAt'] ?? record['last_activity_at'], now),
  };
}

/**
 * What the gateway calls the session's status ("working", "waiting for you (card)", "idle", "failed: …"), at most
 * `width` characters; a gateway without statuses shows its state name.
 */
export function statusWords(session: Record<string, unknown>, width = Number.POSITIVE_INFINITY): string {
  const status = session['status'];
  const words = typeof status === 'object' && status !== null ? (status as Record<string, unknown>)['words'] : undefined;
  if (typeof words !== 'string' || words === '') return stateName(session['state']);
  return words.length > width ? `${words.slice(0, width - 1)}…` : words;
}

function stateName(state: unknown): string {
  if (typeof state === 'number') return STATE_NAMES[state] ?? '-';
  if (typeof state !== 'string' || state === '') return '-';
  return state.toLowerCase().replace(/^session_state_/, '');
}

/** "just now", "5 min ago", "3 h ago", "2 d ago"; an unreadable time shows as "-". */
export function timeAgo(value: unknown, now: Date): string {
  if (typeof value !== 'string' && typeof value !== 'number') return '-';
  const at = new Date(value).getTime();
  if (Number.isNaN(at)) return '-';
  const seconds = Math.max(0, Math.round((now.getTime() - at) / 1000));
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86_400)} d ago`;
}
