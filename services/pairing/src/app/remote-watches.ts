/**
 * The watches paired relays keep here (spec, On a paired relay): our sessions' events kept for each watch that takes
 * them, and the stalled, all_idle and heartbeat our subscription service computes for the watches that ask for them
 * (docs/adr/0013).
 */
import { watchComputes, watchKeeps, type RemoteEventInput } from '../domain/remote-watch.ts';
import type { Clock, RegisteredWatch, RemoteWatchStore, WatchEventComputer } from './remote-ports.ts';

/** Keeps the events of one bus message for every watch that takes them (watchKeeps), once per message. */
export async function keepSessionEvents(watches: RemoteWatchStore, message: { consumer: string; id: string }, events: RemoteEventInput[], now: Date): Promise<void> {
  if (events.length > 0) await watches.append(message.consumer, message.id, events, watchKeeps, now);
}

/** The watches that ask for stalled, all_idle or the heartbeat (watchComputes), with when each was registered. */
export async function computingWatches(watches: RemoteWatchStore): Promise<RegisteredWatch[]> {
  return (await watches.list()).filter(watchComputes);
}

/** Keeps what our subscription service computes as due for one watch; each computed id is kept once ever. Answers how many were new. */
export async function keepComputedEvents(watch: RegisteredWatch, deps: { watches: RemoteWatchStore; computer: WatchEventComputer; clock: Clock }): Promise<number> {
  const events = await deps.computer.compute(watch);
  return events.length > 0 ? deps.watches.keepComputed(watch.relay, watch.id, events, deps.clock.now()) : 0;
}
