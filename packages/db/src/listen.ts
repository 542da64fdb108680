import pg from 'pg';

/** Where a listener says that it lost its connection and listens again. */
export interface ListenLogger {
  warn(details: object, message: string): void;
  info(message: string): void;
}

export interface ListenOptions {
  connectionString: string;
  /** The channel to LISTEN on (an identifier; it is quoted). */
  channel: string;
  /** Called for each notification, and once after listening again (what was announced meanwhile is lost). */
  onNotify: () => void;
  logger: ListenLogger;
  /** How long to wait before listening again after the connection drops; default 1000. */
  reconnectDelayMs?: number;
}

/**
 * LISTENs on a channel over one connection of its own. PostgreSQL delivers a NOTIFY when the transaction that sent
 * it commits, so a process hears of a committed change at once, whichever replica made it, instead of polling
 * for it. Rejects when the database cannot be reached; afterwards a lost connection is retried until stop().
 */
export async function listen(options: ListenOptions): Promise<{ stop(): Promise<void> }> {
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let stopped = false;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: options.connectionString });
    next.on('notification', (message) => {
      if (message.channel === options.channel) options.onNotify();
    });
    next.on('error', (error) => {
      options.logger.warn({ err: error, channel: options.channel }, 'listener lost its database connection');
      lost(next);
    });
    next.on('end', () => lost(next));
    try {
      await next.connect();
      await next.query(`LISTEN ${pg.escapeIdentifier(options.channel)}`);
    } catch (error) {
      await next.end().catch(() => undefined);
      throw error;
    }
    client = next;
  };

  const lost = (which: pg.Client): void => {
    if (client !== which) return;
    client = undefined;
    which.end().catch(() => undefined);
    reconnect();
  };

  const reconnect = (): void => {
    if (stopped || retry !== undefined) return;
    retry = setTimeout(() => {
      retry = undefined;
      connect().then(
        () => {
          if (stopped) return void stop();
          options.logger.info(`listening on ${options.channel} again`);
          options.onNotify();
        },
        (error: unknown) => {
          options.logger.warn({ err: error, channel: options.channel }, 'listener could not reconnect');
          reconnect();
        },
      );
    }, options.reconnectDelayMs ?? 1000);
    retry.unref();
  };

  const stop = async (): Promise<void> => {
    stopped = true;
    clearTimeout(retry);
    const current = client;
    client = undefined;
    await current?.end();
  };

  await connect();
  return { stop };
}
