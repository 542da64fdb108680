import type { Logger } from 'pino';

/**
 * On the first SIGTERM or SIGINT runs `shutdown` and exits 0 (1 if it throws); a second signal
 * while shutting down exits 1 at once, for an operator who does not want to wait.
 */
export function onShutdownSignal(logger: Logger, shutdown: () => Promise<void>): void {
  let shuttingDown = false;
  const handle = (signal: NodeJS.Signals): void => {
    if (shuttingDown) {
      logger.warn({ signal }, 'second signal, exiting now');
      process.exit(1);
    }
    shuttingDown = true;
    logger.info({ signal }, 'shutting down');
    shutdown().then(
      () => {
        logger.info('shut down');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
}
