/**
 * The watches paired relays keep here (spec, On a paired relay): registered, fetched by cursor, our sessions' events
 * kept for each watch that takes them, and the stalled, all_idle and heartbeat our subscription service computes for
 * the watches that ask for them (docs/adr/0013).
 */
import { invalidInput, notFound } from '../domain/errors.ts';
import { watchComputes, watchKeeps, type RemoteEventInput, type RemoteWatch } from '../domain/remote-watch.ts';
import type { Clock, KeptEvent, RegisteredWatch, RemoteWatchStore, WatchEventComputer } from './remote-ports.ts';

/** Keeps a paired relay's watch of our sessions; registering the same one again changes nothing. */
export async function keepWatch(watches: RemoteWatchStore, watch: Omit<RemoteWatch, 'scope'> & { scope: string }, now: Date): Promise<void> {
  if (watch.relay === '' || watch.id === '' || watch.userId === '') throw invalidInput('A watch needs the relay, its subscription id and the user.');
  if (watch.scope !== 'all' && watch.scope !== 'sessions') throw invalidInput('A watch\'s scope is "sessions" or "all".');
  await watches.keep({ ...watch, scope: watch.scope }, now);
}

/** The events kept for a watch after `after` (those at or before it are acknowledged and dropped); NOT_FOUND for a watch not kept here. */
export async function fetchWatchEvents(
  watches: RemoteWatchStore,
  watch: { relay: string; id: string },
  after: number,
  now: Date,
): Promise<{ events: KeptEvent[]; cursor: number; dropped: number; userId: string }> {
  const page = await watches.fetch(watch.relay, watch.id, Math.max(after, 0), now);
  if (page === undefined) throw notFound(`No subscription ${watch.id} of relay "${watch.relay}" is kept here.`);
  return page;
}

/** Keeps the events of one bus message for every watch that takes them (watchKeeps), once per message. */
export async function keepSessionEvents(
  watches: RemoteWatchStore,
  message: { consumer: string; id: string },
  events: RemoteEventInput[],
  now: Date,
): Promise<void> {
  if (events.length > 0) await watches.append(message.consumer, message.id, events, watchKeeps, now);
}

/** The watches that ask for stalled, all_idle or the heartbeat (watchComputes), with when each was registered. */
export async function computingWatches(watches: RemoteWatchStore): Promise<RegisteredWatch[]> {
  return (await watches.list()).filter(watchComputes);
}

/** Keeps what our subscription service computes as due for one watch; each computed id is kept once ever. Answers how many were new. */
export async function keepComputedEvents(
  watch: RegisteredWatch,
  deps: { watches: RemoteWatchStore; computer: WatchEventComputer; clock: Clock },
): Promise<number> {
  const events = await deps.computer.compute(watch);
  return events.length > 0 ? deps.watches.keepComputed(watch.relay, watch.id, events, deps.clock.now()) : 0;
}
