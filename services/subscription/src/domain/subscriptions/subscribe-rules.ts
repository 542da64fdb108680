/**
 * The rules of subscribe, pure: which events a subscription may name, the default set, the checks of
 * every argument (with the spec's refusal sentences), the 20-per-conversation limit, and whether a
 * subscription takes an event of a session.
 */
import { parseQuietHours, type QuietHours } from '../delivery/index.ts';
import { subscriptionRefusal } from '../errors.ts';

/** What a subscription may name in `events`. */
export const SUBSCRIBABLE_EVENTS = [
  'question_asked',
  'question_answered',
  'error',
  'turn_end',
  'subagent_finished',
  'task_started',
  'task_finished',
  'task_failed',
  'stalled',
  'all_idle',
] as const;
export type SubscribableEvent = (typeof SUBSCRIBABLE_EVENTS)[number];

/** The events of a subscription that names none (spec, The default events). */
export const DEFAULT_EVENTS: readonly SubscribableEvent[] = ['question_asked', 'error', 'turn_end', 'subagent_finished', 'task_failed', 'stalled', 'all_idle'];

/** Subscriptions one conversation may hold at a time. */
export const SUBSCRIPTIONS_PER_CONVERSATION = 20;
export const DEFAULT_STALLED_MINUTES = 15;

export type WatchedSession = { id: string; title: string };

/** A subscription's settings once every argument was checked. */
export type SubscriptionSpec = {
  scope: 'sessions' | 'all';
  sessions: WatchedSession[];
  exclude: string[];
  events: SubscribableEvent[];
  once: boolean;
  match: string;
  stalledMinutes: number;
  heartbeatMinutes: number | null;
  digestMinutes: number | null;
  quietHours: QuietHours | null;
};

/** subscribe's arguments as they come in (0, "" and [] mean none). */
export type SubscribeInput = {
  watcherSessionId: string;
  sessions: readonly string[];
  exclude: readonly string[];
  events: readonly string[];
  once: boolean;
  match: string;
  stalledMinutes: number;
  heartbeatMinutes: number;
  digestMinutes: number;
  quietHours: { from: string; to: string; tz: string } | null;
  /** The listed sessions as the session service knows them. */
  resolved: readonly WatchedSession[];
};

function positiveMinutes(name: string, value: number): number | null {
  if (value === 0) return null;
  if (!Number.isInteger(value) || value < 1 || value > 7 * 24 * 60) {
    throw subscriptionRefusal('REMOTE_RELAY_INVALID_INPUT', `${name} must be a whole number of minutes from 1 to 10080, got ${value}.`);
  }
  return value;
}

/** Checks subscribe's arguments; throws the refusal that names what is wrong. */
export function parseSubscribe(input: SubscribeInput): SubscriptionSpec {
  const listed = [...new Set(input.sessions.map((id) => id.trim()).filter((id) => id !== ''))];
  if (listed.length === 0) {
    throw subscriptionRefusal('REMOTE_RELAY_INVALID_INPUT', 'subscribe needs sessions: the session ids to watch, or ["all"].');
  }
  const all = listed.length === 1 && listed[0]?.toLowerCase() === 'all';
  if (!all && listed.some((id) => id.toLowerCase() === 'all')) {
    throw subscriptionRefusal('REMOTE_RELAY_INVALID_INPUT', 'sessions is either ["all"] or a list of session ids, not both.');
  }
  const exclude = [...new Set(input.exclude.map((id) => id.trim()).filter((id) => id !== ''))];
  if (!all && exclude.length > 0) {
    throw subscriptionRefusal('REMOTE_RELAY_INVALID_INPUT', 'exclude goes with sessions ["all"] only; a list of sessions names what it watches.');
  }
  if (!all && listed.includes(input.watcherSessionId)) {
    throw subscriptionRefusal(
      'REMOTE_RELAY_FORBIDDEN',
      `subscribe: session ${input.watcherSessionId} is the conversation you run in. The agent's own conversation is never watched.`,
    );
  }
  const unknownEvents = input.events.filter((event) => !(SUBSCRIBABLE_EVENTS as readonly string[]).includes(event));
  if (unknownEvents.length > 0) {
    throw subscriptionRefusal(
      'REMOTE_RELAY_INVALID_INPUT',
      `unknown event ${unknownEvents.map((event) => JSON.stringify(event)).join(', ')}; events are ${SUBSCRIBABLE_EVENTS.join(', ')}.`,
      { events: [...SUBSCRIBABLE_EVENTS] },
    );
  }
  const quiet = parseQuietHours(input.quietHours ?? undefined);
  if (!quiet.ok) throw subscriptionRefusal('REMOTE_RELAY_INVALID_INPUT', quiet.error);
  const stalledMinutes = positiveMinutes('stalled_minutes', input.stalledMinutes) ?? DEFAULT_STALLED_MINUTES;
  const heartbeatMinutes = positiveMinutes('heartbeat_minutes', input.heartbeatMinutes);
  const digestMinutes = positiveMinutes('digest_minutes', input.digestMinutes);

  let sessions: WatchedSession[] = [];
  if (!all) {
    const known = new Map(input.resolved.map((session) => [session.id, session]));
    const missing = listed.filter((id) => !known.has(id));
    if (missing.length > 0) {
      throw subscriptionRefusal('REMOTE_RELAY_NOT_FOUND', `No session ${missing.join(', ')} on this relay.`, { sessions: missing });
    }
    sessions = listed.map((id) => known.get(id) as WatchedSession);
  }
  const events = input.events.length === 0 ? [...DEFAULT_EVENTS] : [...new Set(input.events as SubscribableEvent[])];
  return {
    scope: all ? 'all' : 'sessions',
    sessions,
    exclude: all ? exclude : [],
    events,
    once: input.once,
    match: input.match.trim(),
    stalledMinutes,
    heartbeatMinutes,
    digestMinutes,
    quietHours: quiet.quietHours,
  };
}

/** Refuses one more subscription for a conversation that holds `active` of them. */
export function requireRoomFor(active: number, adding = 1): void {
  if (active + adding > SUBSCRIPTIONS_PER_CONVERSATION) {
    throw subscriptionRefusal(
      'REMOTE_RELAY_SUBSCRIPTION_LIMIT',
      `This conversation holds ${active} subscriptions; a conversation can hold ${SUBSCRIPTIONS_PER_CONVERSATION} at a time. End one with unsubscribe first.`,
      { active, limit: SUBSCRIPTIONS_PER_CONVERSATION },
    );
  }
}

/** The parts of a subscription that decide whether it takes an event. */
export type Matchable = Pick<SubscriptionSpec, 'scope' | 'sessions' | 'exclude' | 'events' | 'match'> & { watcherSessionId: string };

/** True when the subscription takes `kind` in `sessionId` with `text` (the row's quoted text, for match). */
export function takesEvent(subscription: Matchable, sessionId: string, kind: string, text: string): boolean {
  if (sessionId === subscription.watcherSessionId) return false;
  if (!(subscription.events as readonly string[]).includes(kind)) return false;
  const watched = subscription.scope === 'all' ? !subscription.exclude.includes(sessionId) : subscription.sessions.some((session) => session.id === sessionId);
  if (!watched) return false;
  return subscription.match === '' || text.toLowerCase().includes(subscription.match.toLowerCase());
}
