import type { DeliveryTimings, RelayEvent, WatcherState } from '../domain/delivery/index.ts';
import type { SessionActivity } from '../domain/session-activity.ts';
import type { PlannedWakeUp, WatcherEvent } from '../domain/subscriptions/plan-watcher.ts';
import type { WatchedSession } from '../domain/subscriptions/subscribe-rules.ts';
import type { EndReason, Subscription } from '../domain/subscriptions/subscription.ts';

/** The session-activity projection's statements, inside `SessionActivityStore.transaction`. */
export interface SessionActivityTransaction {
  /** The message ids the projection's consumer has not processed before, now recorded as processed. */
  processEachOnce(messageIds: readonly string[]): Promise<Set<string>>;
  /** The sessions' rows, each session locked (one not written yet too), in one order so that two batches never wait on each other in a circle. */
  lockSessions(sessionIds: readonly string[]): Promise<Map<string, SessionActivity>>;
  saveSessions(rows: readonly SessionActivity[]): Promise<void>;
  /**
   * Makes due, at the session's instant at the latest, every watcher with an active subscription here that watches
   * one of the sessions (not its own); answers how many watchers it touched. After the commit, the store tells the
   * planner.
   */
  makeWatchersDue(sessions: ReadonlyMap<string, { userId: string; at: Date }>): Promise<number>;
}

/** The session-activity projection, written once per delivered message. */
export interface SessionActivityStore {
  /** Runs `work` in one transaction: all its writes commit or none. */
  transaction<T>(work: (tx: SessionActivityTransaction) => Promise<T>): Promise<T>;
}

/** A watcher held by the transaction that read it (its row locked to the commit). */
export type DueWatcher = { sessionId: string; userId: string; state: WatcherState; seq: number };

/** An event to store for a watcher, with the trace it came in with. */
export type NewWatcherEvent = {
  watcherSessionId: string;
  userId: string;
  sourceEventId: string;
  event: RelayEvent;
  subscriptionIds: string[];
  traceParent: string | null;
};

/** A held or released event as list_subscriptions shows it: when it comes, and what holds it. */
export type HeldEvent = Pick<WatcherEvent, 'status' | 'releaseAt' | 'deliverAt' | 'heldBy'>;

/** A watcher's subscriptions with what list_subscriptions shows beside them; held and state are empty without subscriptions. */
export type SubscriptionListing = { subscriptions: Subscription[]; held: HeldEvent[]; state: WatcherState | undefined };

/** A stored event still to plan, with the trace it came in with. */
export type WatchedEvent = { watcherSessionId: string; traceParent: string | null; event: WatcherEvent };

/**
 * What one evaluation of watchers writes: the stored events it planned, the events that arrived with it (written once,
 * as planned), the subscriptions it ended or delivered, the watchers.
 */
export type PlanningWrites = {
  events: readonly WatcherEvent[];
  arrived: readonly WatchedEvent[];
  /** Once subscriptions that fired (ended `once_fired` unless already ended). */
  endedIds: readonly string[];
  /** Subscriptions a wake-up reached (their digest restarts now). */
  deliveredIds: readonly string[];
  watchers: readonly { sessionId: string; state: WatcherState; seq: number; nextEvaluationAt: Date | null }[];
};

/** A planned wake-up and the watcher it goes to. */
export type WatcherWakeUp = { watcher: DueWatcher; wakeUp: PlannedWakeUp };

/**
 * The statements of the pipeline's batches — ingesting events, planning watchers — in one transaction of
 * `WatchStore.pipelineTransaction` (or of `WatchStore.transaction`, which has them too).
 */
export interface PipelineTransaction {
  /** The message ids not processed before by `consumer`, now recorded as processed. */
  processEachOnce(consumer: string, messageIds: readonly string[]): Promise<Set<string>>;
  /** Up to `limit` watchers due at `now` that no other transaction holds, locked, the longest due first. */
  lockDueWatchers(now: Date, limit: number): Promise<DueWatcher[]>;
  /** The active subscriptions here (not a paired relay's) of these users that take all their sessions or list one of these sessions, and the sessions' titles. */
  subscriptionsWatching(userIds: readonly string[], sessionIds: readonly string[]): Promise<{ subscriptions: Subscription[]; titles: Map<string, string> }>;
  /** The active subscriptions whose list names the session. */
  listsNaming(sessionId: string): Promise<Subscription[]>;
  subscriptionsById(ids: readonly string[]): Promise<Subscription[]>;
  /** Ends the subscriptions (those still active) at `at`. */
  endSubscriptions(ids: readonly string[], at: Date, reason: EndReason): Promise<void>;
  /** Ends the watcher's active subscriptions at `at`. */
  endWatcherSubscriptions(watcherSessionId: string, at: Date, reason: EndReason): Promise<void>;
  setSubscriptionSessions(id: string, sessions: readonly WatchedSession[]): Promise<void>;
  /**
   * The watchers' events still to plan, oldest first, (unless `withSubscriptions` is false) their active subscriptions,
   * and which of the event rows `storedOf` names are stored already, whatever their status.
   */
  readWatched(
    watcherSessionIds: readonly string[],
    withSubscriptions: boolean,
    storedOf?: readonly string[],
  ): Promise<{ subscriptions: Subscription[]; events: WatchedEvent[]; stored: Set<string> }>;
  /**
   * Creates the events' watchers where missing and locks them, in one statement; answers them for the caller to
   * evaluate in the same transaction (their due time is left as it was).
   */
  lockWatchersOf(events: readonly NewWatcherEvent[], now: Date): Promise<DueWatcher[]>;
  /** Stores events of watchers that exist (held by this transaction); answers how many were new. */
  insertEvents(events: readonly NewWatcherEvent[], now: Date): Promise<number>;
  /** Writes what an evaluation at `now` decided. */
  savePlanning(writes: PlanningWrites, now: Date): Promise<void>;
  /** The wake-ups' deliver_wakeup commands, into the outbox; `traceParents`: each event's trace, by event row id. */
  enqueueWakeUps(wakeUps: readonly WatcherWakeUp[], traceParents: ReadonlyMap<string, string | null>): Promise<void>;
  /** The session-activity rows of these users' sessions and of these sessions. */
  sessionActivity(where: { userIds: readonly string[]; sessionIds: readonly string[] }): Promise<SessionActivity[]>;
}

/**
 * Subscriptions, watchers and their events, statement by statement. Used inside `WatchStore.transaction`, every
 * write of a use case commits together; the locking reads hold their rows to the commit.
 */
export interface WatchTransaction extends PipelineTransaction {
  /** The watcher's row exists and is locked. */
  lockWatcher(sessionId: string, userId: string): Promise<void>;
  /** The watcher's state, its row locked; undefined when it has none. */
  lockWatcherState(sessionId: string): Promise<WatcherState | undefined>;
  /** Saves the watcher's state and makes it due at `dueAt`. */
  saveWatcherState(sessionId: string, state: WatcherState, dueAt: Date): Promise<void>;
  /** Makes the watcher due at `at`. */
  makeWatcherDue(sessionId: string, at: Date): Promise<void>;
  /** When the next watcher is due; null when none waits on time. */
  nextDueAt(): Promise<Date | null>;

  countActiveSubscriptions(watcherSessionId: string): Promise<number>;
  /** Stores a new subscription. */
  createSubscription(subscription: Subscription): Promise<void>;
  /** The active subscriptions of the watcher (of `userId` when given), oldest first. */
  activeSubscriptions(watcherSessionId: string, userId?: string): Promise<Subscription[]>;
  /** The ids of the watcher's active subscriptions (only `subscriptionId`, when given). */
  activeSubscriptionIds(watcherSessionId: string, subscriptionId: string | null): Promise<string[]>;
  /** Every active subscription of the user's conversations, oldest first. */
  activeSubscriptionsOfUser(userId: string): Promise<Subscription[]>;
  /** The ids of the active subscriptions watching the paired relay (of one user, or of all when userId is null). */
  activeRelaySubscriptionIds(relay: string, userId: string | null): Promise<string[]>;
  /** The subscription, its row locked; undefined when there is none. */
  lockSubscription(id: string): Promise<Subscription | undefined>;
  /** Moves the subscriptions from one watcher to another, with their events not delivered yet the other has not. */
  moveSubscriptions(ids: readonly string[], from: string, to: string): Promise<void>;
  /** A paired relay's subscription's link: whether it is up, and the replayed events taken since it went down. */
  linkState(subscriptionId: string): Promise<{ online: boolean; replayedPending: number }>;
  /** Records the link's change at `at`; back online, the replayed count starts again. */
  setLinkState(subscriptionId: string, online: boolean, at: Date): Promise<void>;
  addReplayed(subscriptionId: string, count: number): Promise<void>;

  /** Makes the waiting events of the watcher new again (planned at its next evaluation). */
  releaseWaitingEvents(watcherSessionId: string): Promise<void>;
  /** Stores events for watchers that may not exist yet and makes them due at `now`; answers how many events were new. */
  addEvents(events: readonly NewWatcherEvent[], now: Date): Promise<number>;
}

/** WatchTransaction's statements on their own, or together in one transaction. */
export interface WatchStore extends WatchTransaction {
  /**
   * list_subscriptions' reading, as of one instant: the watcher's subscriptions, active or ended at `endedSince` or
   * later, oldest first, and, when it has any, its held events and its state.
   */
  subscriptionListing(watcherSessionId: string, endedSince: Date): Promise<SubscriptionListing>;
  /** Runs `work` in one transaction: all its writes commit or none. */
  transaction<T>(work: (tx: WatchTransaction) => Promise<T>): Promise<T>;
  /**
   * Runs `work` in one transaction with the pipeline's statements only, which take less work per statement; the
   * wake-ups it enqueued are published right after it commits (the outbox keeps them until they are).
   */
  pipelineTransaction<T>(work: (tx: PipelineTransaction) => Promise<T>): Promise<T>;
}

/** What the watching use cases need: the store, and the spec's durations and counts unless a test or benchmark shortens them. */
export type WatchDeps = { store: WatchStore; timings?: DeliveryTimings; random?: () => number };
