import type { Bus } from './connect-bus.ts';

const POLL_MS = 100;

/**
 * Resolves true once the durable consumer has handled every message the stream held for it when this was
 * called: first everything is delivered (nothing pending), then everything delivered up to that point is
 * acknowledged (or given up on), so messages that keep arriving cannot hold it back. False if `signal` aborts.
 * It reads the consumer's info every 100 ms of real time, again after a failed read.
 */
export async function caughtUp(bus: Bus, stream: string, durable: string, signal: AbortSignal): Promise<boolean> {
  let delivered: number | undefined;
  while (!signal.aborted) {
    // A failed read (NATS reconnecting, say) is read again; the consumer logs what is wrong with the bus.
    const info = await bus.jsm.consumers.info(stream, durable).catch(() => undefined);
    if (info !== undefined && delivered === undefined && info.num_pending === 0) delivered = info.delivered.stream_seq;
    // Nothing unacknowledged, or the ack floor past that point while later messages are still being handled.
    if (info !== undefined && delivered !== undefined && (info.num_ack_pending === 0 || info.ack_floor.stream_seq >= delivered)) return true;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return false;
}
