/**
 * What the gateway needs from the pairing service for events across relays (spec, On a paired relay) and asks
 * kept on a paired relay (spec, ask), implemented over gRPC in src/grpc/grpc-remote-events-owner.ts. Two sides:
 * watches a paired relay keeps here (its /relay/v1/subscriptions calls), and this relay's subscriptions and asks
 * registered on a paired relay.
 */

/** A paired relay's subscription to our sessions. */
export interface WatchToKeep {
  /** The watching relay, as paired here. */
  relay: string;
  /** Its subscription id. */
  id: string;
  userId: string;
  scope: 'sessions' | 'all';
  sessions: { id: string; title: string }[];
  exclude: string[];
  events: string[];
  stalledMinutes: number;
  heartbeatMinutes: number;
}

/** An event kept for a watch. */
export interface KeptEvent {
  seq: number;
  id: string;
  kind: string;
  sessionId: string;
  /** "" where the watch does not name the session. */
  sessionTitle: string;
  text: string;
  status: string;
  /** question_asked: the question's id; task events: the task's id; "" otherwise. */
  refId: string;
  occurredAt: Date;
}

/** This relay's subscription as it is registered on a paired relay. */
export interface RemoteSubscriptionSpec {
  relay: string;
  /** "" on a dry run. */
  subscriptionId: string;
  userId: string;
  watcherSessionId: string;
  sessions: string[];
  exclude: string[];
  events: string[];
  stalledMinutes: number;
  heartbeatMinutes: number;
  dryRun: boolean;
}

/** An ask kept on a paired relay, as that relay shows it. */
export interface RemoteAsk {
  id: string;
  aboutSessionId: string;
  question: string;
  options: string[];
  status: string;
  answer: string;
  choice: string;
  via: string;
  createdAt: Date | undefined;
  endedAt: Date | undefined;
}

/** An ask to keep on a paired relay, about one of its sessions. */
export interface RemoteAskRequest {
  relay: string;
  userId: string;
  askingSessionId: string;
  aboutSessionId: string;
  question: string;
  options: string[];
  recommendation: string;
  detail: string;
  dryRun: boolean;
}

export interface RemoteEventsOwner {
  keepWatch(watch: WatchToKeep): Promise<void>;
  endWatch(relay: string, id: string): Promise<boolean>;
  /** Throws REMOTE_RELAY_NOT_FOUND for an unknown watch. */
  fetchWatchEvents(relay: string, id: string, after: number): Promise<{ events: KeptEvent[]; cursor: number; dropped: number; userId: string }>;
  /** Registers (or checks, on a dry run) the subscription on the paired relay; answers its sessions as that relay knows them. */
  openRemoteSubscription(spec: RemoteSubscriptionSpec): Promise<{ id: string; title: string }[]>;
  closeRemoteSubscription(subscriptionId: string): Promise<boolean>;
  /** Keeps the ask there (checks only, on a dry run) and polls it for the answer. */
  openRemoteAsk(request: RemoteAskRequest): Promise<RemoteAsk>;
  listRemoteAsks(relay: string, askingSessionId: string): Promise<RemoteAsk[]>;
  withdrawRemoteAsk(relay: string, askingSessionId: string, askId: string): Promise<RemoteAsk>;
}
