/**
 * What every process of the relay does first and last, the gateway's included: read its environment (a bad one is
 * logged whole and the process exits 1), make its logger and the relay's clock; on SIGTERM/SIGINT stop in the
 * order the process gives, then shut telemetry down last.
 */
import { createClock, type Clock, type ClockSpec } from '@relay/clock';
import { ConfigError } from '@relay/config';
import { createLogger, onShutdownSignal, shutdownTelemetry, type Logger } from '@relay/telemetry';

/** The variables every process reads the same way (@relay/config's baseEnv). */
export interface ServiceBaseConfig {
  LOG_LEVEL: string;
  RELAY_CLOCK: ClockSpec;
  RELAY_CLOCK_EPOCH?: number | undefined;
  RELAY_CLOCK_CONTROL?: string | undefined;
}

export interface OpenedService<C> {
  config: C;
  logger: Logger;
  clock: Clock;
}

/** Reads the config with the service's own `loadConfig`; a ConfigError names every bad variable, then exits 1. */
export function openService<C extends ServiceBaseConfig>(name: string, loadConfig: () => C): OpenedService<C> {
  const logger = createLogger({ name });
  let config: C;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    logger.fatal({ problems: error.problems }, error.message);
    process.exit(1);
  }
  logger.level = config.LOG_LEVEL;
  const clock = createClock(config.RELAY_CLOCK, config.RELAY_CLOCK_EPOCH, { file: config.RELAY_CLOCK_CONTROL, name });
  return { config, logger, clock };
}

/** On SIGTERM/SIGINT runs `stop` (the process's own order), then shuts telemetry down last. */
export function stopOnSignal(logger: Logger, stop: () => Promise<void>): void {
  onShutdownSignal(logger, async () => {
    await stop();
    await shutdownTelemetry();
  });
}
