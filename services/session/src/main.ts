/**
 * The session service process: the only place its parts are wired together (config, bus, outbox, gRPC server and
 * shutdown order: @relay/service).
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { PrismaPg } from '@prisma/adapter-pg';
import { lanedServicePool } from '@relay/db/service-pool';
import { gatedTransactions, TransactionGate, transactionBounds } from '@relay/db/transaction-gate';
import { QuestionServiceClient } from '@relay/proto/relay/question/v1/question_service';
import { RunnerServiceClient } from '@relay/proto/relay/runner/v1/runner_service';
import { SessionServiceService } from '@relay/proto/relay/session/v1/session_service';
import { OAuthServiceService } from '@relay/proto/relay/session/v1/oauth_service';
import { McpTaskServiceService } from '@relay/proto/relay/session/v1/mcp_task_service';
import { callDeadline, createClient } from '@relay/rpc';
import { startService } from '@relay/service';
import { BusStreams } from '@relay/proto/relay/bus-contracts';
import { startScheduledPromptConsumer } from './adapters/bus/scheduled-prompt-consumer.ts';
import { startWakeupConsumer } from './adapters/bus/wakeup-consumer.ts';
import { startBudgetCardConsumer } from './adapters/bus/budget-card-consumer.ts';
import { budgetGrpc } from './adapters/grpc/budget-grpc.ts';
import { GrpcBudgetCards } from './adapters/grpc/grpc-budget-cards.ts';
import { PrismaBudgetStore } from './adapters/store/prisma-budget-store.ts';
import { BudgetCheckedLedger } from './app/budgets/budget-checked-ledger.ts';
import { checkRunOutMinutes, type BudgetDeps } from './app/budgets/check-budgets.ts';
import { ConfiguredCatalogue, providerListings } from './adapters/providers/configured-catalogue.ts';
import { childProcessEnv, commandEnv, loadConfig } from './config.ts';
import { nodeCrypto } from './adapters/crypto/node-crypto.ts';
import { getRelaySettings, seedRelaySettings } from './app/settings/relay-settings.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import { SESSION_CALLERS } from './adapters/grpc/session-callers.ts';
import { sessionGrpc } from './adapters/grpc/session-grpc.ts';
import { turnGrpc } from './adapters/grpc/turn-grpc.ts';
import { writtenGrpc } from './adapters/grpc/written-grpc.ts';
import { loopGuardGrpc } from './adapters/grpc/loop-guard-grpc.ts';
import { configuredProviders, discoverModelLists, providerPrices } from './adapters/providers/configured-providers.ts';
import { ProviderRegistry } from './app/turns/provider-registry.ts';
import { prismaConversationHistory } from './adapters/store/prisma-conversation-history.ts';
import { API_MESSAGES } from './adapters/grpc/wire/api-messages.ts';
import { PrismaDeliveries } from './adapters/store/prisma-deliveries.ts';
import { PrismaExternalCalls } from './adapters/store/prisma-external-calls.ts';
import { PrismaExternalInbox } from './adapters/store/prisma-external-inbox.ts';
import { PrismaClaudeSessionStates } from './adapters/store/prisma-claude-session-states.ts';
import { PrismaCodexThreads } from './adapters/store/prisma-codex-threads.ts';
import { PrismaUsageLedger } from './adapters/store/prisma-usage-ledger.ts';
import { busSteering } from './adapters/bus/bus-steering.ts';
import { listenForTurnSignals, publishBudgetChanged } from './adapters/bus/bus-turn-signals.ts';
import { listenForWrittenSignals } from './adapters/bus/bus-written-signals.ts';
import { GrpcQuestionCards } from './adapters/grpc/grpc-question-cards.ts';
import { SessionWorkers } from './app/turns/session-workers.ts';
import { TurnRunner } from './app/turns/turn-runner.ts';
import { TurnSignals } from './app/turns/turn-signals.ts';
import { WrittenSignals } from './app/external/messages-written.ts';
import { nodeRealFolders } from './adapters/fs/real-folders.ts';
import { BackgroundTasks } from './adapters/tasks/background-tasks.ts';
import { bubblewrapSandbox, stateFoldersAbove } from './adapters/tasks/bubblewrap-sandbox.ts';
import { RunnerSandbox } from './adapters/runner/runner-sandbox.ts';
import { PrismaTaskStore } from './adapters/store/prisma-task-store.ts';
import { prismaSandboxUids } from './adapters/store/prisma-sandbox-users.ts';
import { taskGrpc } from './adapters/grpc/task-grpc.ts';
import { OAUTH_CALLERS, oauthGrpc } from './adapters/grpc/oauth-grpc.ts';
import { MCP_TASK_CALLERS, mcpTaskGrpc } from './adapters/grpc/mcp-task-grpc.ts';
import { PrismaMcpTaskStore } from './adapters/store/prisma-mcp-task-store.ts';
import { PrismaOAuthStore } from './adapters/store/prisma-oauth-store.ts';
import { PrismaSessionStore } from './adapters/store/prisma-session-store.ts';
import { PgSessionReads } from './adapters/store/pg-session-reads.ts';
import { PgTokenReads } from './adapters/store/pg-token-reads.ts';
import { PrismaLoopGuardStore } from './adapters/store/prisma-loop-guard-store.ts';
import { PrismaTurnStore } from './adapters/store/prisma-turn-store.ts';

await startService({
  name: 'session',
  loadConfig,
  // One pool for Prisma's client and the reads in plain SQL (PgSessionReads, PgTokenReads); $disconnect() ends it.
  // Its interactive transactions queue at a gate that leaves reads connections of their own, and those it lets through
  // go before the reads waiting for a connection (transaction-gate.ts, service-pool.ts).
  // A call's reads and transactions wait at most up to a margin before its deadline (call-deadline.ts).
  pool: (url) => lanedServicePool(url, callDeadline),
  database: (pool) =>
    gatedTransactions(
      new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) }),
      new TransactionGate({ ...transactionBounds(pool), deadline: callDeadline }),
    ),
  stream: BusStreams.SESSION_EVENTS,
  outbox: { wakeOnCommit: true },
  async start({ config, logger, clock, pool, db: prisma, bus, grpc, serve }) {
    // The roots as the machine resolves them: sessions' folders are checked by their real paths.
    const allowedRoots = await Promise.all(config.RELAY_ALLOWED_ROOTS.map((root) => nodeRealFolders.realPath(root)));
    // The stores write the events; those that carry the API's messages are encoded as the API encodes them.
    const store = new PrismaSessionStore(prisma, API_MESSAGES);
    const turns = new PrismaTurnStore(prisma, API_MESSAGES);
    const signals = new TurnSignals();
    const questions = createClient(QuestionServiceClient, config.QUESTION_GRPC_ADDR, grpc);
    const taskStore = new PrismaTaskStore(prisma, API_MESSAGES);
    // Every allowed command (and every agent CLI) runs in the sandbox; where none can be had, none runs, and the log says so.
    const sandbox = bubblewrapSandbox({ path: commandEnv().PATH, stateFolders: stateFoldersAbove(process.cwd()) });
    // On Kubernetes (RELAY_COMMAND_RUNNER_ADDR) commands run in the command runner instead, over mutual TLS.
    const commandRunner =
      config.RELAY_COMMAND_RUNNER_ADDR === undefined ? undefined : createClient(RunnerServiceClient, config.RELAY_COMMAND_RUNNER_ADDR, grpc);
    // There each command and CLI runs as its session's user's own sandbox user (users.sandbox_uid).
    const runnerSandbox = commandRunner === undefined ? undefined : new RunnerSandbox(commandRunner, prismaSandboxUids(prisma));
    if (commandRunner !== undefined) logger.info({ runner: config.RELAY_COMMAND_RUNNER_ADDR }, 'commands run in the command runner');
    else if (sandbox.unavailable === undefined) logger.info('commands run in a bubblewrap sandbox');
    else logger.error(`${sandbox.unavailable}: every command an agent asks for is refused`);
    const backgroundTasks = new BackgroundTasks({
      store: taskStore,
      clock,
      logger,
      // The machine and this replica's port: `relay up --replicas` runs several on one machine, and a replica that
      // starts fails only the tasks its own predecessor left (recover()), never a running sibling's.
      host: `${hostname()}:${config.GRPC_PORT}`,
      runnerId: `tasks-${randomUUID()}`,
      env: commandEnv(),
      allowedRoots,
      folders: nodeRealFolders,
      sandbox: runnerSandbox ?? sandbox,
    });
    const usageLedger = new PrismaUsageLedger(prisma);
    // Budgets over delegation trees: checked as the providers' usage lands and, for their minutes, at each look of the
    // runner; decided on their cards.
    const budgets: BudgetDeps = {
      budgets: new PrismaBudgetStore(prisma, config.RELAY_NAME),
      cards: new GrpcBudgetCards(questions),
      sessions: store,
      relay: { name: config.RELAY_NAME },
      // This replica's runner at once, and every other replica's (budget_changed): a stop or a raise is not left to
      // their next poll.
      turnsMayRun: () => {
        signals.work();
        publishBudgetChanged(bus);
      },
      logger,
    };
    const cards = new GrpcQuestionCards(questions);
    // The Claude Agent SDK loads at a Claude session's first turn: a relay that runs none never pays for it (about a
    // fifth of the service's CPU at start, and ~30 MB at rest).
    const claudeAgentSdk = () => import('@anthropic-ai/claude-agent-sdk');
    // The agents' CLIs are located where they run: on Kubernetes the command runner is asked (waiting for it to be up).
    const providers = new ProviderRegistry(
      await configuredProviders(config, {
        cards,
        tasks: backgroundTasks,
        cli: runnerSandbox ?? sandbox,
        history: prismaConversationHistory(prisma),
        usage: new BudgetCheckedLedger(usageLedger, budgets),
        claudeStates: new PrismaClaudeSessionStates(prisma, clock),
        codexThreads: new PrismaCodexThreads(prisma, clock),
        claudeQuery: async function* (params) {
          yield* (await claudeAgentSdk()).query(params);
        },
        claudeTranscripts: async (resumeId, cwd) => (await (await claudeAgentSdk()).getSessionInfo(resumeId, { dir: cwd })) !== undefined,
        childEnv: childProcessEnv(),
        commandEnv: commandEnv(),
        logger,
      }),
    );
    // Model lists: configured, else discovered once at start (unknown when a provider cannot say).
    const unlisted = providerListings(config).filter((row) => row.models === undefined);
    const modelLists = await discoverModelLists(
      unlisted.map((row) => providers.get(row.id)).filter((p) => p !== undefined),
      logger,
    );
    const usageAllowances = {
      ...config.RELAY_USAGE_ALLOWANCES,
      ...(config.RELAY_CLAUDE_API_MONTHLY_CAP_USD === undefined
        ? {}
        : { 'claude-api': { ...config.RELAY_USAGE_ALLOWANCES['claude-api'], monthlyUsd: config.RELAY_CLAUDE_API_MONTHLY_CAP_USD } }),
    };
    // A provider is offered as available only when its plug-in can run here and its plan lets it.
    const catalogue = new ConfiguredCatalogue(config, {
      availability: (providerId) => providers.availability(providerId),
      usage: { ledger: usageLedger, allowances: usageAllowances, now: () => clock.now() },
      discovered: modelLists,
    });

    const settings = await seedRelaySettings(store, {
      agentSessionsEnabled: config.RELAY_AGENT_SESSIONS === 'on',
      maxWaitSeconds: config.RELAY_MAX_WAIT_SECONDS,
      maxTurnMinutes: config.RELAY_MAX_TURN_MINUTES,
      taskQuietMinutes: config.RELAY_TASK_QUIET_MINUTES,
    });
    logger.info({ settings }, 'relay settings loaded');

    const listening = listenForTurnSignals(bus, signals, logger);
    const written = new WrittenSignals();
    const hearingWritten = listenForWrittenSignals(bus, written, logger);
    const unfollow = new AbortController();
    // A task's process does not survive a restart: the ones the last run of this host left are failed at once
    // (another replica's are failed by the sweep once their lease runs out).
    await backgroundTasks.recover();
    const taskUpkeep = backgroundTasks.keepUp();
    // Not awaited: the scheduler declares its stream, and may start after this service.
    const stopping = new AbortController();
    const deliveries = new PrismaDeliveries(prisma, API_MESSAGES);
    const scheduledPrompts = startScheduledPromptConsumer(bus, { deliveries, ids: nodeCrypto, clock, logger, signal: stopping.signal });
    // Not awaited: the subscription service declares its stream, and may start after this service.
    // An event row for a watcher mid-turn on a provider that steers goes into that turn, on whichever replica runs it.
    const steering = busSteering(bus, providers, logger);
    const wakeups = startWakeupConsumer(bus, { deliveries, ids: nodeCrypto, clock, logger, steer: steering.steer });

    const budgetCards = startBudgetCardConsumer(bus, { ...budgets, clock, logger }, stopping.signal);

    const workers = new SessionWorkers({ store: turns, secrets: nodeCrypto, hasher: nodeCrypto, clock, logger });
    const runner = new TurnRunner({
      store: turns,
      ids: nodeCrypto,
      providers,
      cards,
      workers,
      signals,
      clock,
      logger,
      maxTurnMinutes: async () => (await getRelaySettings(store)).maxTurnMinutes,
      // A usage-limit pause any replica recorded holds the provider's queued turns here too.
      pauses: usageLedger,
      budgets: { look: (now) => checkRunOutMinutes(budgets, now) },
    });
    const taskQuietMinutes = async () => (await getRelaySettings(store)).taskQuietMinutes;
    runner.start();
    logger.info({ runnerId: runner.runnerId }, 'turn runner started');

    const server = await serve([
      {
        definition: SessionServiceService,
        callers: SESSION_CALLERS,
        implementation: {
          ...sessionGrpc({
            store,
            reads: new PgSessionReads(pool),
            tokens: new PgTokenReads(pool),
            clock,
            logger,
            ids: nodeCrypto,
            secrets: nodeCrypto,
            hasher: nodeCrypto,
            catalogue,
            relay: { name: config.RELAY_NAME, defaultCwd: config.RELAY_DEFAULT_CWD, allowedRoots },
            folders: nodeRealFolders,
            tasks: { store: taskStore, output: taskStore, now: () => clock.now(), quietAfterMinutes: taskQuietMinutes },
            usage: {
              ledger: usageLedger,
              allowances: usageAllowances,
              priced: Object.entries(providerPrices(config)).flatMap(([provider, prices]) => (prices === undefined ? [] : [provider])),
            },
            inbox: new PrismaExternalInbox(prisma),
            calls: new PrismaExternalCalls(prisma),
            budgets,
          }),
          ...budgetGrpc({ ...budgets, clock, logger }),
          ...turnGrpc({ sessions: store, turns, signals, clock, logger }),
          ...writtenGrpc({ signals: written, stopping: unfollow.signal, logger }),
          ...taskGrpc({
            tasks: taskStore,
            output: taskStore,
            relay: { name: config.RELAY_NAME },
            quietAfterMinutes: taskQuietMinutes,
            clock,
            logger,
          }),
          ...loopGuardGrpc({ loopGuards: new PrismaLoopGuardStore(prisma), clock, logger }),
        },
      },
      {
        definition: OAuthServiceService,
        callers: OAUTH_CALLERS,
        implementation: oauthGrpc({
          store,
          oauth: new PrismaOAuthStore(prisma, API_MESSAGES),
          ids: nodeCrypto,
          secrets: nodeCrypto,
          hasher: nodeCrypto,
          pkce: nodeCrypto,
          clock,
          logger,
        }),
      },
      {
        definition: McpTaskServiceService,
        callers: MCP_TASK_CALLERS,
        implementation: mcpTaskGrpc({ mcpTasks: new PrismaMcpTaskStore(prisma), sessions: store, ids: nodeCrypto, clock, logger }),
      },
    ]);

    return {
      // Unready at once (callers and new turns go to other replicas); the turns running here may end by themselves
      // within the grace, still served (their agents call relay_tool back) and still stoppable. Those still running
      // then end as "the relay stopped"; their events go out with the last flush.
      beforeShutdown: async () => {
        server.drain();
        // The gateways following here follow another replica; their streams would hold the server's shutdown.
        unfollow.abort();
        await runner.drain(config.RELAY_SHUTDOWN_GRACE_SECONDS * 1000);
      },
      drain: async () => {
        taskUpkeep.stop();
        await backgroundTasks.stopAll();
        commandRunner?.close();
        listening.stop();
        hearingWritten.stop();
        steering.stop();
        stopping.abort();
        await (await scheduledPrompts)?.stop();
        await (await wakeups).stop();
        await (await budgetCards)?.stop();
        await workers.stopAll();
        questions.close();
      },
    };
  },
});
