// How times and states read on screen.
import type { Schemas } from '@relay/user-api';

/** "just now", "5 min ago", "3 h ago", "2 d ago", or the date. */
export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '—';
  const seconds = Math.round((now - Date.parse(iso)) / 1000);
  if (seconds < 45) return 'just now';
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h ago`;
  if (seconds < 7 * 86_400) return `${Math.round(seconds / 86_400)} d ago`;
  return new Date(iso).toLocaleDateString();
}

/** A date and time in the reader's zone. */
export function when(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' }) : '—';
}

const STATES: Record<string, string> = { running_turn: 'working', background_only: 'working (background tasks)', idle: 'idle' };

/** The relay's words for a session's status ("waiting for you (card)"), or its state's from a relay without them. */
export function statusLabel(session: Pick<Schemas['UserSession'], 'state' | 'status'>): string {
  return session.status?.words ?? STATES[session.state] ?? session.state;
}

/** The status's name, for its colour: working, waiting_for_you, idle, failed or stopped. */
export function statusName(session: Pick<Schemas['UserSession'], 'state' | 'status'>): string {
  return session.status?.name ?? (session.state === 'idle' ? 'idle' : 'working');
}

/** The spec's "↗ from relay · session · model" badge text. */
export function fromBadge(provenance: Schemas['Provenance']): string {
  const relays = provenance.viaRelays.length > 0 ? provenance.viaRelays.join(' → ') : provenance.originRelay;
  const session = provenance.originSessionTitle || provenance.originSessionId.slice(0, 8);
  return ['↗ from ' + relays, session, provenance.model].filter((part) => part !== '').join(' · ');
}

/** The spec's "watching N sessions". */
export function watchingLabel(watching: number | 'all'): string {
  return watching === 'all' ? 'watching all sessions' : `watching ${watching} session${watching === 1 ? '' : 's'}`;
}
