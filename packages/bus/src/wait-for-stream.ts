import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@relay/telemetry';
import type { Bus } from './connect-bus.ts';

/** How often a consumer looks again for a stream its publisher has not declared yet. */
const STREAM_POLL_MS = 500;

/**
 * Waits until `stream` exists — its publishing service declares it and may start later than the consumer — or
 * `signal` aborts. Answers whether the stream exists. The first miss is logged once, without a stack: it is
 * expected while the relay starts.
 */
export async function waitForStream(bus: Bus, stream: string, options: { logger: Logger; signal?: AbortSignal }): Promise<boolean> {
  for (let attempt = 1; !options.signal?.aborted; attempt++) {
    try {
      await bus.jsm.streams.info(stream);
      return true;
    } catch (error) {
      if (attempt === 1)
        options.logger.info(
          { stream, reason: error instanceof Error ? error.message : String(error) },
          'waiting for the stream to be declared by its publisher',
        );
      await sleep(STREAM_POLL_MS, undefined, { signal: options.signal }).catch(() => undefined);
    }
  }
  return false;
}
