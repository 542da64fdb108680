import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { natsInboxPrefix } from '@relay/config';
import type { Logger } from '@relay/telemetry';

/** A NATS connection with its JetStream client and manager. */
export type Bus = {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** Drains subscriptions and pending publishes, then closes the connection. */
  close(): Promise<void>;
};

export type ConnectBusOptions = {
  url: string;
  /** The connection's name, as the server's monitoring shows it. */
  name: string;
  logger: Logger;
  /** The NATS user and its password; unset connects without credentials (a server without users). */
  user?: string | undefined;
  password?: string | undefined;
  /**
   * TLS: the CA (PEM file) the server's certificate is checked against, and this client's own certificate and
   * key for a server that verifies them. Set, a server without TLS is refused; unset, TLS only if the server
   * requires it, checked against the system's CAs.
   */
  tls?: { caFile: string; certFile?: string; keyFile?: string } | undefined;
};

/**
 * Connects to NATS (reconnecting forever once connected) and checks that JetStream is enabled. A user's
 * replies arrive under its own inbox prefix, the only inbox its permissions let it read.
 */
export async function connectBus(options: ConnectBusOptions): Promise<Bus> {
  const { logger } = options;
  const nc = await connect({
    servers: options.url,
    name: options.name,
    maxReconnectAttempts: -1,
    // Without it every request and JetStream publish builds two Errors with their stacks up front, for a timeout that
    // rarely comes (5 % of a subscription replica's CPU in the pipeline bench); our logs name the subject anyway.
    noAsyncTraces: true,
    ...(options.user !== undefined ? { user: options.user, pass: options.password ?? '', inboxPrefix: natsInboxPrefix(options.user) } : {}),
    ...(options.tls !== undefined ? { tls: options.tls } : {}),
  });
  logStatus(nc, logger).catch((error: unknown) => logger.warn({ err: error }, 'NATS status stream ended with an error'));
  let jsm: JetStreamManager;
  try {
    jsm = await jetstreamManager(nc);
  } catch (error) {
    await nc.close();
    throw error;
  }
  logger.info({ server: nc.getServer() }, 'connected to NATS');
  return {
    nc,
    js: jetstream(nc),
    jsm,
    close: async () => {
      if (nc.isClosed()) return;
      if (!nc.isDraining()) await nc.drain();
      await nc.closed();
    },
  };
}

async function logStatus(nc: NatsConnection, logger: Logger): Promise<void> {
  for await (const status of nc.status()) {
    switch (status.type) {
      case 'disconnect':
      case 'error':
      case 'staleConnection':
      case 'slowConsumer':
        logger.warn({ status }, `NATS ${status.type}`);
        break;
      case 'reconnect':
        logger.info({ status }, 'NATS reconnected');
        break;
      default:
        break;
    }
  }
}
