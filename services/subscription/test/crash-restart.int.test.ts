// The foundation's crash requirement: the subscription service, as a real process, is SIGKILLed while session events
// are being published and consumed; once started again, every event is in the projection exactly once.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { connectBus, ensureStream, type Bus } from '@relay/bus';
import { checkHealth } from '@relay/rpc';
import { createLogger } from '@relay/telemetry';
import { createTestDatabase, freePort, makeTestCredentials, startNats, TEST_NATS_USER, type NatsServer, type TestDatabase } from '@relay/testing';
import { SESSION_CREATED_SUBJECT, SESSION_EVENTS_STREAM, sessionCreatedPayload } from './fixtures/session-created.ts';

const serviceDir = fileURLToPath(new URL('..', import.meta.url));
const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const DURABLE = 'subscription-session-events';
// Enough that the service is still working through the first batch when it is killed.
const FIRST_BATCH = 200;
const WHILE_DEAD = 100;
const AFTER_RESTART = 100;
const TOTAL = FIRST_BATCH + WHILE_DEAD + AFTER_RESTART;
// Messages the killed process held unacked come back after the consumer's 30 s ack wait.
const RECOVERY_TIMEOUT_MS = 90_000;

let nats: NatsServer;
let database: TestDatabase;
let bus: Bus;
let db: pg.Client;
let port: number;
const children: ChildProcess[] = [];
let output = '';
const credentials = makeTestCredentials();

beforeAll(async () => {
  [nats, database, port] = await Promise.all([startNats(), createTestDatabase({ migrationsDir }), freePort()]);
  bus = await connectBus({
    url: nats.url,
    name: 'crash-test-publisher',
    ...nats.credentials(TEST_NATS_USER),
    logger: createLogger({ name: 'crash-test', level: 'silent' }),
  });
  await ensureStream(bus, SESSION_EVENTS_STREAM);
  db = new pg.Client({ connectionString: database.url });
  await db.connect();
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await db?.end();
  await bus?.close();
  await nats?.stop();
  await database?.drop();
});

/** The service's prebuilt dist/main.js, ready once its gRPC health check answers SERVING. */
async function startService(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--enable-source-maps', '--import', './dist/register.js', 'dist/main.js'], {
    cwd: serviceDir,
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: database.url,
      ...nats.env('subscription'),
      ...credentials.env('subscription'),
      GRPC_PORT: String(port),
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  await vi.waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}):\n${output}`);
      expect(await checkHealth(`127.0.0.1:${port}`)).toBe(true);
    },
    { timeout: 30_000, interval: 100 },
  );
  return child;
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

async function publish(from: number, to: number): Promise<void> {
  for (let i = from; i < to; i++) {
    const payload = sessionCreatedPayload({
      eventId: `evt-${i}`,
      sessionId: `sess-${i}`,
      title: `Session ${i}`,
      occurredAt: new Date(Date.UTC(2026, 10, 30, 10, 0, i)),
    });
    await bus.js.publish(SESSION_CREATED_SUBJECT, JSON.stringify(payload), { msgID: `evt-${i}` });
  }
}

async function processedCount(): Promise<number> {
  const { rows } = await db.query<{ count: string }>('SELECT count(*) FROM processed_messages WHERE consumer = $1', [DURABLE]);
  return Number(rows[0]?.count);
}

it('loses no event and applies none twice across a SIGKILL', { timeout: 180_000 }, async () => {
  const first = await startService();
  await publish(0, FIRST_BATCH);
  await vi.waitFor(async () => expect(await processedCount()).toBeGreaterThanOrEqual(10), { timeout: 30_000, interval: 10 });

  // Kill it mid-stream: events are still being published and the first batch is not yet through.
  const publishing = publish(FIRST_BATCH, FIRST_BATCH + WHILE_DEAD);
  first.kill('SIGKILL');
  expect(await exited(first)).toEqual({ code: null, signal: 'SIGKILL' });
  const processedAtKill = await processedCount();
  await publishing;
  expect(processedAtKill).toBeLessThan(FIRST_BATCH + WHILE_DEAD);

  const second = await startService();
  await publish(FIRST_BATCH + WHILE_DEAD, TOTAL);

  // Settled: every message processed, and every delivery the killed process held has come back and been acked.
  await vi.waitFor(
    async () => {
      expect(await processedCount()).toBe(TOTAL);
      const info = await bus.jsm.consumers.info(SESSION_EVENTS_STREAM.name, DURABLE);
      expect(info.num_pending + info.num_ack_pending).toBe(0);
    },
    { timeout: RECOVERY_TIMEOUT_MS, interval: 200 },
  );

  const ids = Array.from({ length: TOTAL }, (_, i) => `evt-${i}`).sort();
  const processed = await db.query<{ message_id: string }>('SELECT message_id FROM processed_messages WHERE consumer = $1 ORDER BY message_id', [DURABLE]);
  expect(processed.rows.map((row) => row.message_id)).toEqual(ids);
  const activity = await db.query<{ session_id: string; last_event_id: string }>('SELECT session_id, last_event_id FROM session_activity');
  expect(activity.rows).toHaveLength(TOTAL);
  expect(activity.rows.every((row) => row.session_id === row.last_event_id.replace('evt-', 'sess-'))).toBe(true);
  expect(activity.rows.map((row) => row.last_event_id).sort()).toEqual(ids);

  // And it still shuts down cleanly.
  second.kill('SIGTERM');
  expect(await exited(second)).toEqual({ code: 0, signal: null });
});
