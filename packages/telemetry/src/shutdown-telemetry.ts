/** What shutdownTelemetry needs of the SDK startTelemetry started. */
interface RunningSdk {
  shutdown(): Promise<void>;
}

// The OpenTelemetry API is process-global, so the SDK behind it is too. This module holds it without loading the SDK:
// a service that exports nothing never loads it (see register.ts), yet calls shutdownTelemetry all the same.
let running: RunningSdk | undefined;

/** Whether startTelemetry has started an SDK in this process. */
export function telemetryRunning(): boolean {
  return running !== undefined;
}

/** Records the SDK startTelemetry started, for shutdownTelemetry to flush. */
export function runningTelemetry(sdk: RunningSdk): void {
  running = sdk;
}

/** How long shutdownTelemetry waits for the last export; a Collector that is away must not hold up a shutdown. */
const SHUTDOWN_TIMEOUT_MS = 2000;

/**
 * Flushes and stops the SDK, waiting at most SHUTDOWN_TIMEOUT_MS: an exporter retrying an unreachable
 * endpoint would otherwise hold the process for its whole back-off. Call it last in a service's
 * shutdown. Safe to call when not started.
 */
export async function shutdownTelemetry(): Promise<void> {
  const sdk = running;
  running = undefined;
  if (!sdk) return;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, SHUTDOWN_TIMEOUT_MS);
  });
  try {
    await Promise.race([sdk.shutdown(), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
