/**
 * The relay's span and metric attribute names, declared once so every service spells them the same way
 * (`relay.<area>.<name>`). Standard attributes (rpc.*, messaging.*, http.*) come from the semantic
 * conventions and are set by the instrumentations.
 */
export const Attr = {
  SESSION_ID: 'relay.session.id',
  USER_ID: 'relay.user.id',
  GROUP_ID: 'relay.group.id',
  TURN_ID: 'relay.turn.id',
  /** How a turn ended: done, error or stopped. */
  TURN_STATUS: 'relay.turn.status',
  PROVIDER: 'relay.session.provider',
  TASK_ID: 'relay.task.id',
  QUESTION_ID: 'relay.question.id',
  SCHEDULE_ID: 'relay.schedule.id',
  FIRING_ID: 'relay.schedule.firing_id',
  SUBSCRIPTION_ID: 'relay.subscription.id',
  /** A wake-up's id (`<watcher>:<seq>`) and how many events it carries. */
  WAKEUP_ID: 'relay.wakeup.id',
  WAKEUP_EVENTS: 'relay.wakeup.events',
  /** A held event's status in the subscription service: held, waiting or released. */
  SUBSCRIPTION_EVENT_STATUS: 'relay.subscription.event_status',
  /** The paired relay a call was forwarded to or came from. */
  PEER_RELAY: 'relay.pairing.peer',
  TOOL_ACTION: 'relay.tool.action',
  /** The `code` of a relay_tool result (e.g. REMOTE_RELAY_UNKNOWN_GROUP); absent on success. */
  TOOL_CODE: 'relay.tool.code',
  /** ok, refused (a result with a code) or failed (REMOTE_RELAY_INTERNAL: a fault, not the caller's doing). */
  TOOL_OUTCOME: 'relay.tool.outcome',
  /** The AppError code an RPC or handler failed with. */
  ERROR_CODE: 'relay.error.code',
  BUS_STREAM: 'relay.bus.stream',
  BUS_SUBJECT: 'relay.bus.subject',
  BUS_MESSAGE_ID: 'relay.bus.message_id',
  BUS_CONSUMER: 'relay.bus.consumer',
  BUS_DELIVERY_COUNT: 'relay.bus.delivery_count',
  /** How a consumer settled a message: ack (done), nak (redelivered later) or term (given up: its effect is lost). */
  BUS_OUTCOME: 'relay.bus.outcome',
} as const;

export type AttrName = (typeof Attr)[keyof typeof Attr];
