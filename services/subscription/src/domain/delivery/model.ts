/**
 * The data the delivery rules work on: an event a watcher's subscriptions matched, the options of
 * those subscriptions, the watcher's delivery state, and what the rules answer. Plain data only,
 * so the store can persist every field and a restart changes no decision.
 */

/** Events that are never held back: no digest, quiet hours, coalescing wait or hourly cap. */
export const URGENT_EVENT_KINDS = ['question_asked', 'question_answered', 'error'] as const;

export type UrgentEventKind = (typeof URGENT_EVENT_KINDS)[number];

/**
 * Rows about the link to a paired relay: never held either. They say what happened to the link, not in a
 * session, and a link_restored held until a digest would come after the replayed events it announces.
 */
export const LINK_EVENT_KINDS = ['link_lost', 'link_restored'] as const;

export type EventKind =
  | UrgentEventKind
  | 'turn_end'
  | 'subagent_finished'
  | 'task_started'
  | 'task_finished'
  | 'task_failed'
  | 'stalled'
  | 'all_idle'
  | 'heartbeat'
  | 'link_lost'
  | 'link_restored'
  | 'remote';

/** The session an event happened in, as the row names it. */
export type EventSession = { id: string; title: string };

type EventBase = {
  id: string;
  occurredAt: Date;
  /** The paired relay the event comes from; null for this relay. */
  relay: string | null;
  /**
   * Set on a paired relay's event that relay kept while the link was down: the rows of a message's replayed
   * events come as one row tagged replayed. dropped: older events that relay dropped (it keeps only the newest).
   */
  replayed?: { dropped: number };
};

type SessionEventBase = EventBase & { session: EventSession };

export type TurnEndEvent = SessionEventBase & {
  kind: 'turn_end';
  status: 'done' | 'error' | 'stopped';
  /** The final reply (done) or the failure (error); null when there is none. */
  text: string | null;
  /** The queued message that started the turn: how the no-echo rule finds the watcher's own prompts. */
  promptMessageId: string | null;
};

export type QuestionAskedEvent = SessionEventBase & {
  kind: 'question_asked';
  questionId: string;
  question: string;
};

export type QuestionAnsweredEvent = EventBase & {
  kind: 'question_answered';
  questionId: string;
  answer: string | null;
  choices: readonly string[];
  dismissed: boolean;
  /** The relay the user answered on. */
  via: string;
};

export type ErrorEvent = SessionEventBase & { kind: 'error'; message: string };

export type SubagentFinishedEvent = SessionEventBase & { kind: 'subagent_finished'; description: string };

export type TaskEvent = SessionEventBase & {
  kind: 'task_started' | 'task_finished' | 'task_failed';
  taskId: string;
  description: string;
  exitCode: number | null;
};

export type StalledEvent = SessionEventBase & {
  kind: 'stalled';
  minutes: number;
  /** The quiet task, when a task rather than the turn stopped writing output. */
  task: { id: string; description: string } | null;
};

export type AllIdleEvent = EventBase & { kind: 'all_idle'; subscriptionId: string; sessionCount: number };

export type HeartbeatEvent = EventBase & {
  kind: 'heartbeat';
  subscriptionId: string;
  sessions: readonly (EventSession & { state: 'running_turn' | 'background_only' | 'idle' })[];
};

export type LinkLostEvent = EventBase & { kind: 'link_lost' };

export type LinkRestoredEvent = EventBase & {
  kind: 'link_restored';
  replayedCount: number;
  /** Replayed events that a digest or quiet hours hold and that come later. */
  heldCount: number;
};

/**
 * A paired relay's computed event (stalled, all_idle, heartbeat) as that relay worded it: this relay does not
 * see the other one's sessions, so it shows the words, the session when there is one, and the relay's name.
 */
export type RemoteTextEvent = EventBase & { kind: 'remote'; remoteKind: string; session: EventSession | null; text: string };

/** An event one or more of a watcher's subscriptions took. */
export type RelayEvent =
  | TurnEndEvent
  | QuestionAskedEvent
  | QuestionAnsweredEvent
  | ErrorEvent
  | SubagentFinishedEvent
  | TaskEvent
  | StalledEvent
  | AllIdleEvent
  | HeartbeatEvent
  | LinkLostEvent
  | LinkRestoredEvent
  | RemoteTextEvent;

/** A daily window of local time; `tz` is a canonical IANA name, `from`/`to` are "HH:MM". */
export type QuietHours = { from: string; to: string; tz: string };

/** One occurrence of a quiet window: `start` is inside it, `end` is not. */
export type QuietWindow = { start: Date; end: Date };

/** What the delivery rules need to know of a subscription. */
export type DeliverySubscription = {
  id: string;
  createdAt: Date;
  once: boolean;
  digestMinutes: number | null;
  quietHours: QuietHours | null;
  /** The last message that carried this subscription's non-urgent events; null before the first. */
  lastDeliveredAt: Date | null;
};

/**
 * Where the watcher stands with a prompt it sent (send/create_session), by the prompt's message id:
 * a call or wait for it is running; a call or wait returned the finished reply; neither.
 */
export type OwnPromptState = 'waiting' | 'reply_returned' | 'not_waiting';

/** The watcher's delivery state, kept per watching conversation. */
export type WatcherState = {
  /** Instants of the last messages injected into the watcher (the cap's sliding log), oldest first. */
  wakeUps: readonly Date[];
  /** When the open coalescing window closes; a value not after `now` means no window is open. */
  windowClosesAt: Date | null;
  /** The latest cap slot, pending or past; null before the cap first blocked. */
  capSlotAt: Date | null;
  /** The watcher's own prompts, by message id. */
  ownPrompts: Readonly<Record<string, OwnPromptState>>;
};

/** The durations and counts the spec fixes; tests may shorten them. */
export type DeliveryTimings = {
  coalesceMs: number;
  capWakeUps: number;
  capWindowMs: number;
  capSlotMs: number;
};

export const DEFAULT_DELIVERY_TIMINGS: DeliveryTimings = {
  coalesceMs: 30_000,
  capWakeUps: 20,
  capWindowMs: 60 * 60_000,
  capSlotMs: 10 * 60_000,
};

/** Why an event was held: what the row's message says about it. */
export type HeldBy =
  { kind: 'digest'; subscriptionId: string; digestMinutes: number } | { kind: 'quiet_hours'; subscriptionId: string; quietHours: QuietHours };

/** Why an event is released when it is. */
export type ReleaseReason =
  /** question_asked, question_answered or error: at once, never held. */
  | 'urgent'
  /** Nothing holds it: no options, or none that applies at its instant. */
  | 'not_held'
  /** It waits for the subscription's next digest. */
  | 'digest'
  /** It happened inside quiet hours and waits for the occurrence's end. */
  | 'quiet_hours'
  /** Its digest was due inside quiet hours and moved to the window's end. */
  | 'digest_moved_to_quiet_end'
  /** A turn_end of the watcher's own prompt that it did not wait for: wakes it as before. */
  | 'own_prompt_not_waited'
  /** A turn_end of the watcher's own prompt that ends a once subscription. */
  | 'ends_once';

/** Why a released event reaches the watcher when it does. */
export type DeliveryReason =
  /** Urgent: injected at once. */
  | 'at_once'
  /** Urgent, with the events waiting in the open coalescing window. */
  | 'takes_open_window'
  /** Waits for the 30-second coalescing window to close. */
  | 'coalescing'
  /** A digest or quiet hours held it and its release came: it goes then, not 30 s later (it has waited already). */
  | 'hold_ended'
  /** The hourly cap is reached: waits for the next cap slot (every 10 min). */
  | 'hourly_cap';

/** When a released event reaches the watcher, and the watcher state that results. */
export type DeliveryPlan = {
  deliverAt: Date;
  reasons: DeliveryReason[];
  /** Set for an event that goes at once and takes the open window's events along (they go with it). */
  takesWindowClosingAt: Date | null;
  /** The coalescing window the event joined or opened (null for one that goes at once). */
  windowClosesAt: Date | null;
  /** The message goes at a cap slot: it is the hourly cap's digest. */
  capDigest: boolean;
  watcherState: WatcherState;
};

/** The decision for one matched event. */
export type ReleasePlan =
  | {
      action: 'drop';
      reason: 'echo' | 'heartbeat_in_quiet_hours';
      endsSubscriptionIds: string[];
    }
  | {
      /** Held until the watcher's call or wait for this turn returns; plan again then. */
      action: 'hold_while_waiting';
      reason: 'echo_waiting';
      endsSubscriptionIds: string[];
    }
  | {
      /** Held until `releaseAt`; plan again then (the plan will be 'release'). */
      action: 'hold';
      releaseAt: Date;
      subscriptionId: string;
      reasons: ReleaseReason[];
      heldBy: HeldBy;
      endsSubscriptionIds: string[];
    }
  | {
      action: 'release';
      releaseAt: Date;
      /** The subscription whose release time was used; null for an urgent event with none. */
      subscriptionId: string | null;
      reasons: ReleaseReason[];
      heldBy: HeldBy | null;
      delivery: DeliveryPlan;
      endsSubscriptionIds: string[];
    };

/** One event in a message to the watcher, with why it was held (null: it was not). */
export type MessageItem = { event: RelayEvent; heldBy: HeldBy | null };

/** One message injected into the watcher. */
export type WakeUpMessage = {
  items: readonly MessageItem[];
  /** Sent at a cap slot: the hourly cap's digest. */
  capDigest: boolean;
};
