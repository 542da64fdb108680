/**
 * The pairing service process: the only place its parts are wired together (config, bus, outbox, gRPC server and
 * shutdown order: @relay/service).
 */
import { PrismaPg } from '@prisma/adapter-pg';
import { createClient } from '@relay/rpc';
import { startService } from '@relay/service';
import { servicePool } from '@relay/db/service-pool';
import { BusStreams } from '@relay/proto/relay/bus-contracts';
import { PairingServiceService } from '@relay/proto/relay/pairing/v1/pairing_service';
import { RemoteEventsServiceService } from '@relay/proto/relay/pairing/v1/remote_events';
import { QuestionServiceClient } from '@relay/proto/relay/question/v1/question_service';
import { SubscriptionServiceClient } from '@relay/proto/relay/subscription/v1/subscription_service';
import { startRemoteSessionEventsConsumer } from './adapters/bus/remote-session-events.ts';
import { startRemoteUnpairedConsumer } from './adapters/bus/remote-unpaired-consumer.ts';
import { loadConfig } from './config.ts';
import { nodeSecrets } from './adapters/crypto/node-secrets.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import { REMOTE_BUFFER_MAX_AGE_MS } from './domain/remote-buffer.ts';
import { PAIRING_CALLERS, REMOTE_EVENTS_CALLERS } from './adapters/grpc/pairing-callers.ts';
import { pairingGrpc } from './adapters/grpc/pairing-grpc.ts';
import { RemoteAnswerClient } from './adapters/grpc/remote-answer-client.ts';
import { remoteEventsGrpc } from './adapters/grpc/remote-events-grpc.ts';
import { RemoteComputeClient } from './adapters/grpc/remote-compute-client.ts';
import { RemoteIngestClient } from './adapters/grpc/remote-ingest-client.ts';
import { httpRelayLink } from './adapters/http/relay-client.ts';
import { RemoteAsksClient } from './adapters/http/remote-asks-client.ts';
import { RemoteEventsClient } from './adapters/http/remote-events-client.ts';
import { LinkProbeLoop } from './adapters/loops/link-probe-loop.ts';
import { RemoteAskPollLoop } from './adapters/loops/remote-ask-poll-loop.ts';
import { RemoteComputeLoop } from './adapters/loops/remote-compute-loop.ts';
import { RemoteFetchLoop } from './adapters/loops/remote-fetch-loop.ts';
import { PrismaPairedRelayStore } from './adapters/store/prisma-paired-relay-store.ts';
import { PrismaPairingCodeStore } from './adapters/store/prisma-pairing-code-store.ts';
import { PrismaPairingSettingsStore } from './adapters/store/prisma-pairing-settings-store.ts';
import { PrismaRemoteAskStore } from './adapters/store/prisma-remote-ask-store.ts';
import { PrismaRemoteSubscriptionStore } from './adapters/store/prisma-remote-subscription-store.ts';
import { PrismaRemoteWatchStore } from './adapters/store/prisma-remote-watch-store.ts';

await startService({
  name: 'pairing',
  loadConfig,
  pool: servicePool,
  database: (pool) => new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) }),
  stream: BusStreams.PAIRING_EVENTS,
  outbox: { wakeOnCommit: true },
  async start({ config, logger, clock, db: prisma, bus, grpc, serve }) {
    const subscriptionClient = createClient(SubscriptionServiceClient, config.SUBSCRIPTION_GRPC_ADDR, grpc);
    const questionClient = createClient(QuestionServiceClient, config.QUESTION_GRPC_ADDR, grpc);
    const relays = new PrismaPairedRelayStore(prisma);
    // Events across relays: the watches paired relays keep here, and our subscriptions fetched from theirs.
    const watches = new PrismaRemoteWatchStore(prisma, { limit: config.REMOTE_BUFFER_LIMIT, maxAgeMs: REMOTE_BUFFER_MAX_AGE_MS });
    const remoteSubscriptions = new PrismaRemoteSubscriptionStore(prisma);
    const line = new RemoteEventsClient(relays);
    const ingest = new RemoteIngestClient(subscriptionClient);
    const fetchLoop = new RemoteFetchLoop({ subscriptions: remoteSubscriptions, line, ingest, clock, logger, intervalMs: config.REMOTE_FETCH_INTERVAL_MS });
    // stalled, all_idle and the heartbeat of the watches kept here, computed by our subscription service.
    const computeLoop = new RemoteComputeLoop({
      watches,
      computer: new RemoteComputeClient(subscriptionClient),
      clock,
      logger,
      intervalMs: config.REMOTE_COMPUTE_INTERVAL_MS,
    });
    // Asks kept on paired relays, polled here.
    const asks = new PrismaRemoteAskStore(prisma);
    const asksLine = new RemoteAsksClient(relays);
    const askPollLoop = new RemoteAskPollLoop({
      asks,
      line: asksLine,
      sink: new RemoteAnswerClient(questionClient),
      clock,
      logger,
      intervals: { onlineMs: config.REMOTE_ASK_POLL_MS, offlineMs: config.REMOTE_ASK_POLL_OFFLINE_MS },
    });
    // Also ends the pairings and unspent codes of a user removed here.
    const sessionEvents = startRemoteSessionEventsConsumer(bus, { watches, relays, codes: new PrismaPairingCodeStore(prisma), clock, logger });
    const unpaired = await startRemoteUnpairedConsumer(bus, { subscriptions: remoteSubscriptions, watches, ingest, asks, logger });

    await serve([
      {
        definition: PairingServiceService,
        callers: PAIRING_CALLERS,
        implementation: pairingGrpc({
          relays,
          codes: new PrismaPairingCodeStore(prisma),
          settings: new PrismaPairingSettingsStore(prisma),
          secrets: nodeSecrets,
          link: httpRelayLink,
          clock,
          logger,
        }),
      },
      {
        definition: RemoteEventsServiceService,
        callers: REMOTE_EVENTS_CALLERS,
        implementation: remoteEventsGrpc({
          watches,
          subscriptions: remoteSubscriptions,
          line,
          asks,
          asksLine,
          clock,
          logger,
          onOpened: () => fetchLoop.nudge(),
          onAskKept: () => askPollLoop.nudge(),
        }),
      },
    ]);
    fetchLoop.start();
    computeLoop.start();
    askPollLoop.start();
    const probeLoop = new LinkProbeLoop({ relays, link: httpRelayLink, clock, logger });
    probeLoop.start();

    return {
      drain: async () => {
        await fetchLoop.stop();
        await computeLoop.stop();
        await askPollLoop.stop();
        await probeLoop.stop();
        // The consumers drain before the outbox's last flush.
        await sessionEvents.stop();
        await unpaired.stop();
        subscriptionClient.close();
        questionClient.close();
      },
    };
  },
});
