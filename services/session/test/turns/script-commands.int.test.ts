/**
 * A script's `task` step with the real turn runner, real PostgreSQL, a real shell and the question cards over real
 * gRPC (the question service is a fake of our own port): the command waits on the session owner's Allow whoever
 * sent the prompt (the owner, or another session's agent) and in every mode; Deny runs nothing.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@relay/clock';
import { CardKind, QuestionServiceClient } from '@relay/proto/relay/question/v1/question_service';
import { createClient } from '@relay/rpc';
import { createLogger } from '@relay/telemetry';
import { createTestDatabase, makeTestCredentials, type TestDatabase } from '@relay/testing';
import { commandEnv } from '../../src/config.ts';
import { nodeCrypto } from '../../src/adapters/crypto/node-crypto.ts';
import { nodeRealFolders } from '../../src/adapters/fs/real-folders.ts';
import { PrismaClient } from '../../src/generated/prisma/client.ts';
import { ProviderRegistry } from '../../src/app/turns/provider-registry.ts';
import { ScriptProvider } from '../../src/adapters/providers/script/script-provider.ts';
import { GrpcQuestionCards } from '../../src/adapters/grpc/grpc-question-cards.ts';
import { SessionWorkers } from '../../src/app/turns/session-workers.ts';
import { TurnRunner } from '../../src/app/turns/turn-runner.ts';
import { TurnSignals } from '../../src/app/turns/turn-signals.ts';
import { bubblewrapSandbox } from '../../src/adapters/tasks/bubblewrap-sandbox.ts';
import { BackgroundTasks } from '../../src/adapters/tasks/background-tasks.ts';
import { PrismaTaskStore } from '../../src/adapters/store/prisma-task-store.ts';
import { PrismaTurnStore } from '../../src/adapters/store/prisma-turn-store.ts';
import { startFakeQuestionService, type FakeQuestionService } from './fake-question-service.ts';
import { API_MESSAGES } from '../../src/adapters/grpc/wire/api-messages.ts';
import { until } from '../until.ts';

const credentials = makeTestCredentials();
const migrationsDir = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));
const logger = createLogger({ name: 'script-commands-test', level: 'silent' });
const clock = new ManualClock('2026-11-30T10:00:00.000Z');

let database: TestDatabase;
let prisma: PrismaClient;
let questionService: FakeQuestionService;
let questionClient: QuestionServiceClient;
let tasks: BackgroundTasks;
let runner: TurnRunner;
let workDir: string;
let ownerId: string;

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  questionService = await startFakeQuestionService(logger, credentials);
  questionClient = createClient(QuestionServiceClient, questionService.address, credentials.auth('session'));
  workDir = await realpath(await mkdtemp(join(tmpdir(), 'relay-script-commands-')));
  tasks = new BackgroundTasks({
    store: new PrismaTaskStore(prisma, API_MESSAGES),
    clock,
    logger,
    host: hostname(),
    runnerId: 'runner-script-commands',
    env: commandEnv(),
    allowedRoots: [await realpath(tmpdir())],
    folders: nodeRealFolders,
    sandbox: bubblewrapSandbox({ path: process.env.PATH }),
  });
  const turns = new PrismaTurnStore(prisma, API_MESSAGES);
  const cards = new GrpcQuestionCards(questionClient);
  runner = new TurnRunner({
    store: turns,
    ids: nodeCrypto,
    providers: new ProviderRegistry([new ScriptProvider({ gatewayUrl: 'http://127.0.0.1:9', cards, logger, tasks })]),
    cards,
    workers: new SessionWorkers({ store: turns, secrets: nodeCrypto, hasher: nodeCrypto, clock, logger }),
    signals: new TurnSignals(),
    clock,
    logger,
    maxTurnMinutes: async () => 60,
    pollIntervalMs: 50,
    inFlightIntervalMs: 0,
  });
  runner.start();
  ownerId = randomUUID();
  await prisma.user.create({ data: { id: ownerId, name: 'Ada', createdAt: clock.now() } });
}, 60_000);

afterEach(async () => {
  await tasks.stopAll();
});

afterAll(async () => {
  await runner?.stop();
  questionClient?.close();
  await questionService?.close();
  await prisma?.$disconnect();
  await database?.drop();
  await rm(workDir, { recursive: true, force: true });
});

async function newSession(title: string): Promise<string> {
  const id = randomUUID();
  await prisma.session.create({
    data: {
      id,
      userId: ownerId,
      title,
      provider: 'script',
      model: 'script-1',
      origin: 'hosted',
      state: 'idle',
      cwd: workDir,
      createdAt: clock.now(),
      lastActivityAt: clock.now(),
    },
  });
  return id;
}

/** A prompt queued as SendMessage queues it: from the owner, or from another session's agent (with its provenance). */
async function queue(sessionId: string, text: string, options: { mode: 'agent' | 'ask' | 'plan'; fromSession?: string }): Promise<string> {
  const turnId = randomUUID();
  const messageId = randomUUID();
  const provenance =
    options.fromSession === undefined
      ? undefined
      : { originRelay: 'desk', originSessionId: options.fromSession, originSessionTitle: 'Lead', model: 'script-1', hops: 1, viaRelays: [] };
  const from = options.fromSession === undefined ? {} : { provenance, senderSessionId: options.fromSession };
  await prisma.$transaction(async (tx) => {
    await tx.message.create({
      data: { id: messageId, sessionId, role: options.fromSession === undefined ? 'user' : 'agent', text, createdAt: clock.now(), ...from },
    });
    await tx.turn.create({ data: { id: turnId, sessionId, messageId, status: 'queued', mode: options.mode, queuedAt: clock.now(), ...from } });
    await tx.session.update({ where: { id: sessionId }, data: { state: 'running_turn' } });
  });
  return turnId;
}

const turnIn = (turnId: string, ...statuses: string[]) =>
  until(
    async () => {
      const row = await prisma.turn.findUniqueOrThrow({ where: { id: turnId } });
      return statuses.includes(row.status) ? row : undefined;
    },
    `turn ${turnId} is ${statuses.join(' or ')}`,
  );

const cardOf = (sessionId: string) => until(async () => questionService.cards.find((card) => card.sessionId === sessionId), `a card shows in ${sessionId}`);

describe('a script task waits on the owner’s Allow', () => {
  it('the owner’s own prompt in plan mode: the card waits, nothing runs; Allow starts the command in the session folder', async () => {
    const sessionId = await newSession('Build');
    const turnId = await queue(sessionId, 'task echo built > out.txt\nreply started {{result.taskId}}', { mode: 'plan' });

    const waiting = await turnIn(turnId, 'waiting_for_answer');
    const card = await cardOf(sessionId);
    expect(card).toMatchObject({
      userId: ownerId,
      kind: CardKind.CARD_KIND_APPROVAL,
      title: 'script-1 wants to run a command',
      lines: [
        `Folder: ${workDir}`,
        'Command: echo built > out.txt',
        `Runs in: bubblewrap sandbox — reads and writes only ${workDir}; no relay file, process or secret`,
      ],
      options: [],
    });
    expect(waiting.pendingQuestions).toEqual([{ id: card.id, kind: 'ask_user', question: card.title, options: ['Allow', 'Deny'] }]);
    expect(await prisma.task.count({ where: { sessionId } })).toBe(0);

    questionService.allow(card.id);
    const done = await turnIn(turnId, 'done', 'error');
    expect(done.replyText).toMatch(/^started task_[0-9a-f]{16}$/);
    const task = await until(() => prisma.task.findFirst({ where: { sessionId, status: 'completed' } }).then((row) => row ?? undefined), 'the task completed');
    expect(task).toMatchObject({ cwd: workDir, exitCode: 0 });
    expect(await readFile(join(workDir, 'out.txt'), 'utf8')).toBe('built\n');
  });

  it.each(['agent', 'ask'] as const)(
    'another session’s agent prompting in %s mode: the card goes to the owner; Deny runs nothing and the script reads why',
    async (mode) => {
      const leadId = await newSession('Lead');
      const sessionId = await newSession('Worker');
      const turnId = await queue(sessionId, `task touch denied-${mode}\nreply {{result.code}}: {{result.error}}`, { mode, fromSession: leadId });

      const card = await cardOf(sessionId);
      expect(card).toMatchObject({ userId: ownerId, kind: CardKind.CARD_KIND_APPROVAL });
      questionService.deny(card.id);
      const done = await turnIn(turnId, 'done', 'error');
      expect(done).toMatchObject({ status: 'done', replyText: 'REMOTE_RELAY_PERMISSION: The user chose Deny: the command did not run.' });
      expect(await prisma.task.count({ where: { sessionId } })).toBe(0);
      await expect(readFile(join(workDir, `denied-${mode}`))).rejects.toMatchObject({ code: 'ENOENT' });
    },
  );
});
