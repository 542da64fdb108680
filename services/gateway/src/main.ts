/**
 * The gateway process: reads its environment, connects to the owners over gRPC, serves HTTP, and
 * shuts down in order on SIGTERM/SIGINT. Telemetry is started by `--import @relay/telemetry/register`.
 */
import { createClock } from '@relay/clock';
import { PairingServiceClient, PairingServiceService } from '@relay/proto/relay/pairing/v1/pairing_service';
import { RemoteEventsServiceClient, RemoteEventsServiceService } from '@relay/proto/relay/pairing/v1/remote_events';
import { QuestionServiceClient, QuestionServiceService } from '@relay/proto/relay/question/v1/question_service';
import { SchedulerServiceClient, SchedulerServiceService } from '@relay/proto/relay/scheduler/v1/scheduler_service';
import { SessionServiceClient, SessionServiceService } from '@relay/proto/relay/session/v1/session_service';
import { SubscriptionServiceClient, SubscriptionServiceService } from '@relay/proto/relay/subscription/v1/subscription_service';
import { createClient, grpcAuth, promiseClient } from '@relay/rpc';
import { createLogger, onShutdownSignal, shutdownTelemetry } from '@relay/telemetry';
import { buildApp } from './adapters/http/build-app.ts';
import { cachedPairingOwner, cachedSessionOwner } from './adapters/grpc/cached-owners.ts';
import { loadConfig } from './config.ts';
import { DEADLINE_MS } from './app/ports.ts';

const config = loadConfig();
const logger = createLogger({ name: 'gateway', level: config.LOG_LEVEL });

const grpc = grpcAuth('gateway', config);
const sessionClient = createClient(SessionServiceClient, config.SESSION_GRPC_ADDR, grpc);
const pairingClient = createClient(PairingServiceClient, config.PAIRING_GRPC_ADDR, grpc);
const remoteEventsClient = createClient(RemoteEventsServiceClient, config.PAIRING_GRPC_ADDR, grpc);
const questionClient = createClient(QuestionServiceClient, config.QUESTION_GRPC_ADDR, grpc);
const subscriptionClient = createClient(SubscriptionServiceClient, config.SUBSCRIPTION_GRPC_ADDR, grpc);
const schedulerClient = createClient(SchedulerServiceClient, config.SCHEDULER_GRPC_ADDR, grpc);

const app = buildApp({
  relayName: config.RELAY_NAME,
  clock: createClock(config.RELAY_CLOCK, config.RELAY_CLOCK_EPOCH, { file: config.RELAY_CLOCK_CONTROL, name: 'gateway' }),
  publicUrl: config.RELAY_PUBLIC_URL,
  openUrlBase: config.OPEN_URL_BASE,
  sessions: cachedSessionOwner(promiseClient(SessionServiceService, sessionClient, { deadlineMs: DEADLINE_MS })),
  pairing: cachedPairingOwner(promiseClient(PairingServiceService, pairingClient, { deadlineMs: DEADLINE_MS })),
  questions: promiseClient(QuestionServiceService, questionClient, { deadlineMs: DEADLINE_MS }),
  subscriptions: promiseClient(SubscriptionServiceService, subscriptionClient, { deadlineMs: DEADLINE_MS }),
  schedules: promiseClient(SchedulerServiceService, schedulerClient, { deadlineMs: DEADLINE_MS }),
  remoteEvents: promiseClient(RemoteEventsServiceService, remoteEventsClient, { deadlineMs: DEADLINE_MS }),
  logger,
  edges: {
    allowedHosts: config.RELAY_ALLOWED_HOSTS,
    listenHost: config.HOST,
    trustedProxies: config.RELAY_TRUSTED_PROXIES,
    authFailuresPerMinute: config.RELAY_AUTH_FAILURES_PER_MINUTE,
    pairingTriesPerMinute: config.RELAY_PAIRING_TRIES_PER_MINUTE,
  },
});

// Tool calls may wait for an hour. On shutdown they get a grace period, then their connections are closed: the
// turns go on in the session service and the agent's `wait` picks them up on another replica.
const SHUTDOWN_GRACE_MS = 10_000;

onShutdownSignal(logger, async () => {
  const closed = app.close();
  const grace = setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
  await closed;
  clearTimeout(grace);
  sessionClient.close();
  pairingClient.close();
  remoteEventsClient.close();
  questionClient.close();
  subscriptionClient.close();
  schedulerClient.close();
  await shutdownTelemetry();
});

await app.listen({ port: config.PORT, host: config.HOST });
logger.info({ relay: config.RELAY_NAME, publicUrl: config.RELAY_PUBLIC_URL }, 'gateway listening');
