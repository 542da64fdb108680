/**
 * The gateway process: reads its environment, connects to the owners over gRPC, serves HTTP, and
 * shuts down in order on SIGTERM/SIGINT (config, logger, clock and telemetry last: @relay/service). Telemetry is
 * started by `--import @relay/telemetry/register`.
 */
import { grpcAuth } from '@relay/rpc';
import { openService, stopOnSignal } from '@relay/service';
import { cachedPairingOwner, cachedSessionOwner } from './adapters/grpc/cached-owners.ts';
import { refusingRemovedUsers } from './adapters/grpc/removed-users.ts';
import { createServiceClients } from './adapters/grpc/service-clients.ts';
import { buildApp } from './adapters/http/build-app.ts';
import { loadConfig } from './config.ts';

const { config, logger, clock } = openService('gateway', loadConfig);

const { close: closeClients, ...clients } = createServiceClients(
  {
    session: config.SESSION_GRPC_ADDR,
    pairing: config.PAIRING_GRPC_ADDR,
    question: config.QUESTION_GRPC_ADDR,
    subscription: config.SUBSCRIPTION_GRPC_ADDR,
    scheduler: config.SCHEDULER_GRPC_ADDR,
    remoteEvents: config.PAIRING_GRPC_ADDR,
  },
  grpcAuth('gateway', config),
);

const app = buildApp({
  relayName: config.RELAY_NAME,
  clock,
  publicUrl: config.RELAY_PUBLIC_URL,
  openUrlBase: config.OPEN_URL_BASE,
  externalCallSeconds: config.RELAY_EXTERNAL_CALL_SECONDS,
  oauthInsecureClientIds: config.RELAY_OAUTH_INSECURE_CLIENT_IDS,
  ...clients,
  sessions: cachedSessionOwner(clients.sessions),
  // A paired relay's calls are refused the moment the user who paired it is removed (removed-users.ts).
  pairing: refusingRemovedUsers(cachedPairingOwner(clients.pairing), clients.sessions),
  logger,
  edges: {
    allowedHosts: config.RELAY_ALLOWED_HOSTS,
    listenHost: config.HOST,
    trustedProxies: config.RELAY_TRUSTED_PROXIES,
    authFailuresPerMinute: config.RELAY_AUTH_FAILURES_PER_MINUTE,
    pairingTriesPerMinute: config.RELAY_PAIRING_TRIES_PER_MINUTE,
    callsPerUser: config.RELAY_CALLS_PER_USER,
    callsPerUserShared: config.RELAY_CALLS_PER_USER_SHARED,
    callsQueuedPerUser: config.RELAY_CALLS_QUEUED_PER_USER,
    callsAtWork: config.RELAY_CALLS_AT_WORK,
  },
});

// Tool calls may wait for an hour. On shutdown they get a grace period, then their connections are closed: the
// turns go on in the session service and the agent's `wait` picks them up on another replica.
const SHUTDOWN_GRACE_MS = 10_000;

stopOnSignal(logger, async () => {
  const closed = app.close();
  const grace = setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
  await closed;
  clearTimeout(grace);
  closeClients();
});

await app.listen({ port: config.PORT, host: config.HOST });
logger.info({ relay: config.RELAY_NAME, publicUrl: config.RELAY_PUBLIC_URL }, 'gateway listening');
