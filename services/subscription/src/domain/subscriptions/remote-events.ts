/**
 * A paired relay's events for a subscription that watches it (IngestRemoteEvents), pure: checks each one, turns
 * it into the delivery module's event with the relay's name on it, and says whether the subscription takes it
 * (its sessions, exclude, events and match, as for this relay's events). The other relay already applied its
 * side; this relay applies the digest, quiet hours, cap and coalescing where the watcher is.
 */
import { quietWindowAt, type EventSession, type QuietHours, type RelayEvent } from '../delivery/index.ts';
import { subscriptionRefusal } from '../errors.ts';
import { takesEvent, type Matchable } from './subscribe-rules.ts';

/** One event as the other relay sent it (the RemoteEvent message). */
export type RemoteEventInput = {
  id: string;
  kind: string;
  sessionId: string;
  sessionTitle: string;
  text: string;
  /** turn_end: done, error or stopped; task_finished/task_failed: the exit code ('' when none). */
  status: string;
  /** question_asked: the question id; task events: the task id. */
  refId: string;
  occurredAt: Date | undefined;
};

/** A checked remote event: what matching looks at, and the event stored for the watcher. */
export type RemoteCandidate = { eventId: string; kind: string; sessionId: string | null; text: string; event: RelayEvent };

/** The kinds a paired relay may send: those subscribe names, the heartbeat, and the archive of a listed session. */
export const REMOTE_EVENT_KINDS = [
  'question_asked',
  'error',
  'turn_end',
  'subagent_finished',
  'task_started',
  'task_finished',
  'task_failed',
  'stalled',
  'all_idle',
  'heartbeat',
  'archived',
] as const;

const TURN_STATUSES = ['done', 'error', 'stopped'] as const;
/** Kinds about the subscription as a whole rather than one session. */
const SESSIONLESS_KINDS = ['all_idle', 'heartbeat'];

function refuse(index: number, event: RemoteEventInput, problem: string): never {
  throw subscriptionRefusal('REMOTE_RELAY_INVALID_INPUT', `events[${index}] (${event.id || 'no id'}): ${problem}.`, { index });
}

function exitCode(index: number, input: RemoteEventInput): number | null {
  if (input.status === '') return null;
  const code = Number(input.status);
  if (!Number.isInteger(code)) refuse(index, input, `status of ${input.kind} is the exit code as a whole number or empty, got "${input.status}"`);
  return code;
}

/** The delivery module's event for one remote event; throws REMOTE_RELAY_INVALID_INPUT naming what is wrong. */
function toRelayEvent(index: number, input: RemoteEventInput, relay: string, replayed: { dropped: number } | null): RelayEvent {
  const occurredAt = input.occurredAt;
  if (occurredAt === undefined || Number.isNaN(occurredAt.getTime())) refuse(index, input, 'occurred_at is missing');
  const session: EventSession = { id: input.sessionId, title: input.sessionTitle || input.sessionId };
  const base = { id: input.id, occurredAt, relay, ...(replayed === null ? {} : { replayed }) };
  switch (input.kind) {
    case 'turn_end': {
      const status = TURN_STATUSES.find((candidate) => candidate === input.status);
      if (status === undefined) refuse(index, input, `turn_end status is done, error or stopped, got "${input.status}"`);
      return { ...base, kind: 'turn_end', session, status, text: input.text === '' ? null : input.text, promptMessageId: null };
    }
    case 'question_asked':
      return { ...base, kind: 'question_asked', session, questionId: input.refId, question: input.text };
    case 'error':
      return { ...base, kind: 'error', session, message: input.text };
    case 'subagent_finished':
      return { ...base, kind: 'subagent_finished', session, description: input.text };
    case 'task_started':
    case 'task_finished':
    case 'task_failed':
      return {
        ...base,
        kind: input.kind,
        session,
        taskId: input.refId,
        description: input.text,
        exitCode: input.kind === 'task_started' ? null : exitCode(index, input),
      };
    default:
      // stalled, all_idle, heartbeat: computed there over sessions this relay does not see, shown in its words.
      return { ...base, kind: 'remote', remoteKind: input.kind, session: SESSIONLESS_KINDS.includes(input.kind) ? null : session, text: input.text };
  }
}

/**
 * Checks a batch: every event needs an id, a known kind, occurred_at, and a session unless it is about the
 * subscription as a whole (all_idle, heartbeat). A bad one refuses the whole batch, so nothing is half taken.
 * An archive is checked like the rest but is no row: `remoteArchives` reads it.
 */
export function parseRemoteEvents(relay: string, events: readonly RemoteEventInput[], replayed: { dropped: number } | null): RemoteCandidate[] {
  const seen = new Set<string>();
  return events.flatMap((input, index) => {
    if (input.id.trim() === '') refuse(index, input, 'id is missing');
    if (!(REMOTE_EVENT_KINDS as readonly string[]).includes(input.kind))
      refuse(index, input, `kind "${input.kind}" is not one of ${REMOTE_EVENT_KINDS.join(', ')}`);
    if (input.sessionId === '' && !SESSIONLESS_KINDS.includes(input.kind)) refuse(index, input, `${input.kind} needs session_id`);
    // The same id twice in one batch is one event.
    if (seen.has(input.id)) return [];
    seen.add(input.id);
    if (input.kind === 'archived') {
      if (input.occurredAt === undefined || Number.isNaN(input.occurredAt.getTime())) refuse(index, input, 'occurred_at is missing');
      return [];
    }
    const event = toRelayEvent(index, input, relay, replayed);
    const sessionId = SESSIONLESS_KINDS.includes(input.kind) ? null : input.sessionId;
    return [{ eventId: input.id, kind: input.kind, sessionId, text: input.text, event }];
  });
}

/**
 * Whether the subscription takes a remote event: the heartbeat when it asked for one and it was not made inside
 * the quiet hours (which are applied here, so that relay makes it regardless); all_idle when it names it (the
 * other relay judged it over the watched sessions but `exclude`); the rest as this relay's own events.
 */
export function takesRemoteEvent(
  subscription: Matchable & { heartbeatMinutes: number | null; quietHours: QuietHours | null },
  candidate: RemoteCandidate,
): boolean {
  if (candidate.kind === 'heartbeat')
    return subscription.heartbeatMinutes !== null && !(subscription.quietHours !== null && quietWindowAt(candidate.event.occurredAt, subscription.quietHours));
  if (candidate.sessionId === null) return (subscription.events as readonly string[]).includes(candidate.kind);
  return takesEvent(subscription, candidate.sessionId, candidate.kind, candidate.text);
}

/** The sessions a (checked) batch says were archived on the other relay. */
export function remoteArchives(events: readonly RemoteEventInput[]): string[] {
  return [...new Set(events.filter((event) => event.kind === 'archived').map((event) => event.sessionId))];
}

/**
 * A subscription after sessions it lists were archived (here, or on the relay it watches): they leave its list, and
 * a list left empty ends it (session_archived). A subscription to all sessions keeps going (its sessions are
 * whatever is not archived). Null when nothing changes.
 */
export function afterArchives(
  subscription: { scope: 'sessions' | 'all'; sessions: readonly { id: string; title: string }[] },
  archived: readonly string[],
): { sessions: { id: string; title: string }[]; ended: boolean } | null {
  if (subscription.scope !== 'sessions') return null;
  const sessions = subscription.sessions.filter((session) => !archived.includes(session.id));
  if (sessions.length === subscription.sessions.length) return null;
  return { sessions, ended: sessions.length === 0 };
}

/** The stored source id of a remote event: unique per (subscription, event id), which makes ingest idempotent. */
export function remoteSourceId(subscriptionId: string, eventId: string): string {
  return `remote:${subscriptionId}:${eventId}`;
}
