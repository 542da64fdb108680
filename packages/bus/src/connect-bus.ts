import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { Logger } from '@relay/telemetry';

/** A NATS connection with its JetStream client and manager. */
export type Bus = {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** Drains subscriptions and pending publishes, then closes the connection. */
  close(): Promise<void>;
};

/** Connects to NATS (reconnecting forever once connected) and checks that JetStream is enabled. */
export async function connectBus(options: { url: string; name: string; logger: Logger }): Promise<Bus> {
  const { logger } = options;
  const nc = await connect({ servers: options.url, name: options.name, maxReconnectAttempts: -1 });
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
