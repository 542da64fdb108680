/**
 * The ports of events and asks across relays: the watches kept here for paired relays, this relay's cursors on them
 * and its asks kept there, the lines to a paired relay's /relay/v1, our subscription service that takes what is
 * fetched and our question service that takes the answers.
 */
import type { NewRemoteAsk, PolledAsk, RemoteAskView } from '../domain/remote-asks.ts';
import type { FetchOutcome } from '../domain/remote-link.ts';
import type { RemoteEventInput, RemoteWatch } from '../domain/remote-watch.ts';

/** An event kept for a watch. */
export interface KeptEvent {
  seq: number;
  id: string;
  kind: string;
  sessionId: string;
  sessionTitle: string;
  text: string;
  status: string;
  refId: string;
  occurredAt: Date;
}

/** The watches paired relays registered here, with their kept events. */
export interface RemoteWatchStore {
  /** Registers a watch; a second call for the same relay and id changes nothing. */
  keep(watch: RemoteWatch, now: Date): Promise<void>;
  /** Ends a watch and drops its events; false when there was none. */
  end(relay: string, id: string): Promise<boolean>;
  /** Ends every watch of a relay (it was unpaired). */
  endRelay(relay: string): Promise<number>;
  /**
   * Keeps for each watch of the events' users the events `keeps` says it takes (each its next seq), once per (watch,
   * event id), and drops what falls out of each watch's bounds. Runs inside processOnce for the bus message
   * `messageId`, with those watches held.
   */
  append(
    consumer: string,
    messageId: string,
    events: RemoteEventInput[],
    keeps: (watch: RemoteWatch, event: RemoteEventInput) => boolean,
    now: Date,
  ): Promise<void>;
  /** Every watch kept here, with when it was registered. */
  list(): Promise<RegisteredWatch[]>;
  /**
   * Keeps stalled, all_idle and heartbeat events computed for one watch, each once ever (a pass computes the same
   * id again while it stays due); nothing when the watch has ended. Answers how many were new.
   */
  keepComputed(relay: string, id: string, events: RemoteEventInput[], now: Date): Promise<number>;
  /** Drops events at or before `after` (acknowledged), then reads the rest: undefined when there is no such watch. */
  fetch(relay: string, id: string, after: number, now: Date): Promise<{ events: KeptEvent[]; cursor: number; dropped: number; userId: string } | undefined>;
}

/** The relay clock's reading (the loops' @relay/clock Clock): a use case that waits on another relay reads it when it stores. */
export interface Clock {
  now(): Date;
}

/** A watch with when it was registered (nothing from before it is computed). */
export type RegisteredWatch = RemoteWatch & { createdAt: Date };

/** Our subscription service, which computes a watch's stalled, all_idle and heartbeat from this relay's activity. */
export interface WatchEventComputer {
  /** What is due now, under deterministic ids, in this relay's words. */
  compute(watch: RegisteredWatch): Promise<RemoteEventInput[]>;
}

/** One of this relay's subscriptions to a paired relay, as its fetch loop keeps it. */
export interface RemoteSubscription {
  subscriptionId: string;
  relay: string;
  cursor: number;
  online: boolean;
  /** When this fetch was due (the last one settled a fetch interval before): a fetch long past it finds this relay was away. */
  dueAt?: Date;
}

/** This relay's cursors on paired relays. */
export interface RemoteSubscriptionStore {
  open(subscriptionId: string, relay: string, now: Date): Promise<void>;
  /** Stops fetching one; returns it, or undefined when it was not being fetched. */
  close(subscriptionId: string): Promise<RemoteSubscription | undefined>;
  /** Stops fetching every subscription to `relay`; returns their ids. */
  closeRelay(relay: string): Promise<string[]>;
  /** Takes up to `limit` subscriptions due for a fetch, each leased to the caller until `leaseUntil`. */
  claimDue(now: Date, leaseUntil: Date, limit: number): Promise<RemoteSubscription[]>;
  /** When the next subscription is due for a fetch; undefined while none is fetched. */
  nextDueAt(): Promise<Date | undefined>;
  /** Stores the outcome of a fetch and frees the lease; the next fetch is due at `nextFetchAt`. */
  settle(subscriptionId: string, state: { cursor: number; online: boolean }, nextFetchAt: Date): Promise<void>;
}

/** What this relay registers on a paired relay for one of its subscriptions. */
export interface RemoteWatchSpec {
  /** Our subscription id ("" on a dry run): the watch's id there. */
  id: string;
  /** ids, or ["all"]. */
  sessions: string[];
  exclude: string[];
  events: string[];
  stalledMinutes: number;
  heartbeatMinutes: number;
  dryRun: boolean;
}

/** The /relay/v1 routes of a paired relay that carry remote events, called with this relay's token for it. */
export interface RemoteEventsLine {
  /** Registers (or on a dry run checks) a watch there; throws an AppError with that relay's refusal, or OFFLINE. */
  register(relay: string, spec: RemoteWatchSpec): Promise<{ sessions: { id: string; title: string }[] }>;
  /** The events kept there after `after`; { ok: false } when that relay does not answer. */
  fetch(relay: string, id: string, after: number): Promise<FetchOutcome<IngestEvent>>;
  /** Ends the watch there; throws when that relay does not answer. */
  end(relay: string, id: string): Promise<void>;
}

/** A fetched event as our subscription service takes it. */
export interface IngestEvent {
  id: string;
  kind: string;
  sessionId: string;
  sessionTitle: string;
  text: string;
  status: string;
  refId: string;
  occurredAt: Date;
}

/** Our subscription service's side of remote events. */
export interface RemoteIngest {
  /**
   * Answers ended when the batch ended the subscription (its last listed session was archived there); throws an
   * AppError REMOTE_RELAY_NOT_FOUND when it had ended here before.
   */
  ingest(input: { subscriptionId: string; relay: string; events: IngestEvent[]; replayed: boolean; dropped: number }): Promise<{ ended: boolean }>;
  reportLink(input: { subscriptionId: string; relay: string; online: boolean; at: Date }): Promise<void>;
  endRelay(relay: string): Promise<string[]>;
}

/** A paired relay's /relay/v1/asks routes. */
export interface RemoteAsksLine {
  /** Throws that relay's refusal, or REMOTE_RELAY_OFFLINE / REMOTE_RELAY_AUTH. */
  open(relay: string, ask: NewRemoteAsk): Promise<RemoteAskView>;
  list(relay: string, askingSessionId: string): Promise<RemoteAskView[]>;
  withdraw(relay: string, askingSessionId: string, id: string): Promise<RemoteAskView>;
  /** The ask as it stands there; undefined when that relay did not answer. Throws NOT_FOUND when it has no such ask. */
  poll(relay: string, askingSessionId: string, id: string): Promise<RemoteAskView | undefined>;
}

/** This relay's asks on paired relays, polled by lease. */
export interface RemoteAskStore {
  keep(ask: PolledAsk, now: Date): Promise<void>;
  drop(relay: string, id: string): Promise<void>;
  /** Stops polling every ask kept on `relay`; returns how many. */
  dropRelay(relay: string): Promise<number>;
  claimDue(now: Date, leaseUntil: Date, limit: number): Promise<PolledAsk[]>;
  /** When the next ask is due for a poll; undefined while none is kept. */
  nextDueAt(): Promise<Date | undefined>;
  settle(relay: string, id: string, online: boolean, nextPollAt: Date): Promise<void>;
}

/** The question service: tells the asking conversation the answer. */
export interface RemoteAnswerSink {
  publish(answer: { userId: string; askingSessionId: string; askId: string; answer: string; choice: string; dismissed: boolean; via: string }): Promise<void>;
}
