/**
 * The question service process: the only place its parts are wired together (config, bus, outbox, gRPC server and
 * shutdown order: @relay/service).
 */
import { PrismaPg } from '@prisma/adapter-pg';
import { SystemClock } from '@relay/clock';
import { lanedServicePool } from '@relay/db/service-pool';
import { gatedTransactions, TransactionGate, transactionBounds } from '@relay/db/transaction-gate';
import { BusStreams } from '@relay/proto/relay/bus-contracts';
import { QuestionServiceService } from '@relay/proto/relay/question/v1/question_service';
import { callDeadline } from '@relay/rpc';
import { startService } from '@relay/service';
import { loadConfig } from './config.ts';
import { startSessionArchivedConsumer } from './adapters/bus/session-archived-consumer.ts';
import { startTurnEndedConsumer, turnEndsHeard } from './adapters/bus/turn-ended-consumer.ts';
import { nodeIds } from './adapters/crypto/node-ids.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import { QUESTION_CALLERS } from './adapters/grpc/question-callers.ts';
import { questionGrpc } from './adapters/grpc/question-grpc.ts';
import { toAskCreated, toQuestionAnswered } from './adapters/grpc/wire/ask-wire.ts';
import { toCardDecided, toCardRaised } from './adapters/grpc/wire/card-wire.ts';
import { notificationSenders } from './adapters/http/notification-senders.ts';
import { startNotificationsConsumer } from './adapters/bus/notifications-consumer.ts';
import { PrismaNotificationStore } from './adapters/store/prisma-notification-store.ts';
import { PgCardDecisions } from './adapters/store/pg-card-decisions.ts';
import { PgAskReads } from './adapters/store/pg-ask-reads.ts';
import { PrismaAskStore } from './adapters/store/prisma-ask-store.ts';
import { PrismaCardStore } from './adapters/store/prisma-card-store.ts';

await startService({
  name: 'question',
  loadConfig,
  // One pool for Prisma's client and ListAsks' read in plain SQL (PgAskReads); $disconnect() ends it. Its interactive
  // transactions (a card raised, an ask kept) queue at a gate that leaves the reads connections of their own, and
  // those it lets through go before the reads waiting for a connection (transaction-gate.ts, service-pool.ts).
  // A call's reads and transactions wait at most up to a margin before its deadline (call-deadline.ts).
  pool: (url) => lanedServicePool(url, callDeadline),
  database: (pool) =>
    gatedTransactions(
      new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) }),
      new TransactionGate({ ...transactionBounds(pool), deadline: callDeadline }),
    ),
  stream: BusStreams.QUESTION_EVENTS,
  outbox: { wakeOnCommit: true },
  async start({ config, logger, clock, pool, db: prisma, bus, serve }) {
    const decisions = new PgCardDecisions({ connectionString: config.DATABASE_URL, logger });
    const stopping = new AbortController();
    await decisions.start();
    const asks = new PrismaAskStore(prisma, toQuestionAnswered, toAskCreated);
    const cards = new PrismaCardStore(prisma, toCardDecided, toCardRaised);
    const notifications = new PrismaNotificationStore(prisma);
    const senders = notificationSenders({ vapidSubject: config.NOTIFY_VAPID_SUBJECT, logger });
    // The VAPID key pair is made at the first start and kept (Web Push subscriptions are bound to its public key).
    await notifications.vapidKeys(() => senders.makeVapidKeys(), clock.now());
    const notifying = await startNotificationsConsumer(bus, { notifications, senders, relayName: config.RELAY_NAME, clock, logger });
    const archived = startSessionArchivedConsumer(bus, { asks, clock, logger }, stopping.signal).catch((error: unknown) => {
      logger.error({ err: error }, 'the session-archived consumer failed to start');
      return undefined;
    });
    const turnEnds = startTurnEndedConsumer(bus, { store: cards, ids: nodeIds, clock, logger }, stopping.signal).catch((error: unknown) => {
      logger.error({ err: error }, 'the turn-ended consumer failed to start');
      return undefined;
    });
    // Cards are decided once the turn ends missed while away are handled (app/decide-card.ts).
    const heard = turnEndsHeard(bus, turnEnds, stopping.signal);

    await serve([
      {
        definition: QuestionServiceService,
        callers: QUESTION_CALLERS,
        implementation: questionGrpc({
          store: cards,
          notifications,
          senders,
          turnEnds: heard,
          asks,
          askReads: new PgAskReads(pool),
          relayName: config.RELAY_NAME,
          ids: nodeIds,
          decisions,
          clock,
          realTime: new SystemClock(),
          progressIntervalMs: config.CARD_PROGRESS_INTERVAL_MS,
          stopping: stopping.signal,
          logger,
        }),
      },
    ]);

    return {
      // Waiting streams would hold the server open until its timeout; they end now and their callers await again.
      beforeShutdown: async () => stopping.abort(),
      drain: async () => {
        await decisions.stop();
        await (await archived)?.stop();
        await (await turnEnds)?.stop();
        await notifying.stop();
      },
    };
  },
});
