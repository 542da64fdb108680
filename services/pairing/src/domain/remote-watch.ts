/**
 * A paired relay's subscription to sessions of this relay, and which of our sessions' events it keeps.
 */

/** A subscription another relay registered here. */
export interface RemoteWatch {
  /** The watching relay's name. */
  relay: string;
  /** Its subscription id there. */
  id: string;
  userId: string;
  scope: 'sessions' | 'all';
  sessions: { id: string; title: string }[];
  exclude: string[];
  /** The kinds it takes; empty = every kind (the watching relay applies its default). */
  events: string[];
  stalledMinutes: number;
  heartbeatMinutes: number;
}

/** One event of a session of this relay, as it travels to a watching relay. */
export interface RemoteEventInput {
  id: string;
  kind: string;
  userId: string;
  sessionId: string;
  text: string;
  /** turn_end's ending; a finished or failed task's exit code; '' otherwise. */
  status: string;
  /** question_asked: the question's id; task events: the task's id; '' otherwise. */
  refId: string;
  occurredAt: Date;
}

/**
 * Whether `watch` keeps `event`: a session it lists, or any of its user's sessions but those it excludes. The
 * archive of a listed session is kept whatever kinds it takes (the watching relay takes the session off the list,
 * as a local archive does); one to all sessions needs none.
 */
export function watchKeeps(watch: RemoteWatch, event: RemoteEventInput): boolean {
  if (event.userId !== watch.userId) return false;
  if (event.kind === 'archived') return watch.scope === 'sessions' && watch.sessions.some((session) => session.id === event.sessionId);
  if (watch.events.length > 0 && !watch.events.includes(event.kind)) return false;
  if (watch.scope === 'all') return !watch.exclude.includes(event.sessionId);
  return watch.sessions.some((session) => session.id === event.sessionId);
}

/** The kinds computed from the watched sessions' activity rather than taken from one event. */
const COMPUTED_KINDS = ['stalled', 'all_idle'];

/** Whether the watch asks for stalled, all_idle or the heartbeat (no events named = the default, which has both). */
export function watchComputes(watch: Pick<RemoteWatch, 'events' | 'heartbeatMinutes'>): boolean {
  return watch.heartbeatMinutes > 0 || watch.events.length === 0 || watch.events.some((kind) => COMPUTED_KINDS.includes(kind));
}
