/**
 * The subscriptions a paired relay keeps to sessions of this relay (/relay/v1/subscriptions; spec, On a paired
 * relay): the pairing service keeps each watch and its events; the sessions are read as the user who owns the
 * pairing.
 */
import type { AuthenticateRelayResponse as RelayCaller } from '@relay/proto/relay/pairing/v1/pairing_service';
import type { FetchWatchEventsResponse, KeptEvent } from '@relay/proto/relay/pairing/v1/remote_events';
import { toolError } from '../domain/errors.ts';
import type { RemoteEventsClient, SessionClient } from './ports.ts';
import { readSession } from './session-reads.ts';

/** A watch as the calling relay asks for it (POST /relay/v1/subscriptions). */
export interface PairedRelayWatch {
  /** The subscription's id on the calling relay; may be empty on a dry run. */
  id: string;
  /** Session ids, or ["all"]. */
  sessions: string[];
  /** With ["all"]: sessions left out. */
  exclude: string[];
  events: string[];
  stalledMinutes: number;
  heartbeatMinutes: number;
  dryRun: boolean;
}

interface Owners {
  sessions: SessionClient;
  remoteEvents: RemoteEventsClient;
}

/**
 * Checks the watch's sessions and, unless a dry run, keeps the watch; answers the listed sessions with their
 * titles (none for ["all"]). REMOTE_RELAY_INVALID_INPUT for exclude without ["all"], or no id on a real call.
 */
export async function keepPairedRelayWatch(owners: Owners, caller: RelayCaller, watch: PairedRelayWatch): Promise<{ id: string; title: string }[]> {
  const all = watch.sessions.some((id) => id.toLowerCase() === 'all');
  if (!all && watch.exclude.length > 0)
    throw toolError('REMOTE_RELAY_INVALID_INPUT', 'exclude goes with sessions ["all"] only; a list of sessions names what it watches.');
  if (!watch.dryRun && watch.id === '') throw toolError('REMOTE_RELAY_INVALID_INPUT', 'id is required unless dryRun is true.');
  const listed = all ? [] : [...new Set(watch.sessions)];
  const found: { id: string; title: string }[] = [];
  for (const id of listed) {
    const { session } = await readSession(owners.sessions, caller.userId, id, 1);
    found.push({ id: session.id, title: session.title });
  }
  if (!watch.dryRun) {
    await owners.remoteEvents.keepWatch({
      relay: caller.relayName,
      id: watch.id,
      userId: caller.userId,
      scope: all ? 'all' : 'sessions',
      sessions: found,
      exclude: watch.exclude,
      events: watch.events,
      stalledMinutes: watch.stalledMinutes,
      heartbeatMinutes: watch.heartbeatMinutes,
    });
  }
  return found;
}

/** What the watch `id` kept after `after`, each event with its session's title. */
export async function pairedRelayWatchEvents(owners: Owners, caller: RelayCaller, id: string, after: number): Promise<FetchWatchEventsResponse> {
  const page = await owners.remoteEvents.fetchWatchEvents({ relay: caller.relayName, id, after });
  return { ...page, events: await withTitles(page.events, page.userId, owners.sessions) };
}

/** Names the sessions a watch of "all" does not list, as the watching relay's rows show them. */
async function withTitles(events: KeptEvent[], userId: string, sessions: SessionClient): Promise<KeptEvent[]> {
  const titles = new Map<string, string>();
  for (const event of events) {
    if (event.sessionTitle !== '' || titles.has(event.sessionId)) continue;
    // A session deleted since keeps its event, untitled.
    const title = await readSession(sessions, userId, event.sessionId, 1)
      .then(({ session }) => session.title)
      .catch(() => '');
    titles.set(event.sessionId, title);
  }
  return events.map((event) => (event.sessionTitle !== '' ? event : { ...event, sessionTitle: titles.get(event.sessionId) ?? '' }));
}
