/**
 * The relay's metrics, declared once: name, UCUM unit, what it measures and, for histograms, bucket
 * boundaries in the metric's unit. docs/operations.md says what each one means and what to do about it.
 */
export interface MetricDefinition {
  name: string;
  /** UCUM (`s`, `ms`) or an annotation in braces (`{call}`) for plain counts. */
  unit: string;
  description: string;
  /** Histogram bucket boundaries; the SDK's defaults are tuned for milliseconds. */
  buckets?: number[];
}

// Calls last from milliseconds (a read) to the relay's longest wait (up to 3600 s for send, wait, create_session).
const CALL_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

export const Metric = {
  /** Semantic conventions' RPC server metric: its count per method and status gives rate and errors. */
  RPC_SERVER_CALL_DURATION: {
    name: 'rpc.server.call.duration',
    unit: 's',
    description: 'Duration of gRPC calls this service served, by method and status code.',
    buckets: CALL_SECONDS,
  },
  TOOL_CALLS: {
    name: 'relay.tool.calls',
    unit: '{call}',
    description: 'relay_tool calls answered by the gateway, by action, outcome and refusal code.',
  },
  TOOL_DURATION: {
    name: 'relay.tool.duration',
    unit: 's',
    description: 'Time from a relay_tool call arriving to its result, by action and outcome.',
    buckets: CALL_SECONDS,
  },
  SUBSCRIPTION_HELD_EVENTS: {
    name: 'relay.subscription.held_events',
    unit: '{event}',
    description: 'Events taken by subscriptions and not delivered yet, by status (held, waiting, released).',
  },
  SUBSCRIPTION_DUE_DELIVERIES: {
    name: 'relay.subscription.due_deliveries',
    unit: '{delivery}',
    description: 'Held or released events whose release or delivery time has passed (due now or overdue).',
  },
  SUBSCRIPTION_CONSUMER_LAG: {
    name: 'relay.subscription.consumer.lag',
    unit: '{message}',
    description: "Messages in the stream not yet delivered to the subscription service's durable consumer (num_pending).",
  },
  /** Semantic conventions' messaging metric: its count per consumer and outcome gives rate, redeliveries (nak) and losses (term). */
  MESSAGING_PROCESS_DURATION: {
    name: 'messaging.process.duration',
    unit: 's',
    description: 'Time a durable consumer took to handle a JetStream message, by consumer, subject and outcome (ack, nak, term).',
    buckets: CALL_SECONDS,
  },
  OUTBOX_PENDING: {
    name: 'relay.outbox.pending',
    unit: '{row}',
    description: "Rows of this service's outbox written and not published to JetStream yet.",
  },
  OUTBOX_OLDEST_AGE: {
    name: 'relay.outbox.oldest.age',
    unit: 's',
    description: "How long the oldest row of this service's outbox has waited to be published; 0 when none waits.",
  },
  SCHEDULER_FIRING_LATENESS: {
    name: 'relay.scheduler.firing.lateness',
    unit: 's',
    description: 'How long after its due instant (relay clock) a schedule fired.',
    buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900, 3600],
  },
} as const satisfies Record<string, MetricDefinition>;

/** Semantic-convention attribute names the relay's own metrics set (the incubating ones are copied, as the conventions advise). */
export const RpcAttr = {
  SYSTEM_NAME: 'rpc.system.name',
  /** The fully-qualified method: `relay.session.v1.SessionService/ListSessions`. */
  METHOD: 'rpc.method',
  /** The gRPC status code's name: `OK`, `NOT_FOUND`… */
  RESPONSE_STATUS_CODE: 'rpc.response.status_code',
} as const;
