export { connectBus, type Bus, type ConnectBusOptions } from './connect-bus.ts';
export { DUPLICATE_WINDOW_MS, ensureStream, type StreamOptions } from './ensure-stream.ts';
export type { Sql } from './sql.ts';
export { enqueue, enqueueAll, type OutboxEntry } from './enqueue.ts';
export { OutboxRelay, OUTBOX_CHANNEL, OUTBOX_SAFETY_POLL_MS } from './outbox-relay.ts';
export { consume, nakDelayMs, DEFAULT_MAX_DELIVER, type BusMessage, type Consumer, type ConsumeOptions } from './consume.ts';
export { processEachOnce, processOnce } from './process-once.ts';
export { waitForStream } from './wait-for-stream.ts';
export { caughtUp } from './caught-up.ts';
