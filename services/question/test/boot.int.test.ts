// The question service as a real process against a real PostgreSQL and nats-server: it boots, declares its stream,
// answers its health check, and shuts down cleanly on SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { connectBus, type Bus } from '@relay/bus';
import { checkHealth } from '@relay/rpc';
import { createLogger } from '@relay/telemetry';
import { createTestDatabase, freePort, startNats, type NatsServer, type TestDatabase } from '@relay/testing';

const serviceDir = fileURLToPath(new URL('..', import.meta.url));
const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

let nats: NatsServer;
let database: TestDatabase;
let bus: Bus;
let address: string;
let child: ChildProcess;
let output = '';

beforeAll(async () => {
  let port: number;
  [nats, database, port] = await Promise.all([startNats(), createTestDatabase({ migrationsDir }), freePort()]);
  address = `127.0.0.1:${port}`;
  bus = await connectBus({ url: nats.url, name: 'question-boot-test', logger: createLogger({ name: 'question-boot-test', level: 'silent' }) });
  child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: serviceDir,
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: database.url, NATS_URL: nats.url, GRPC_PORT: String(port), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  await vi.waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}):\n${output}`);
      expect(await checkHealth(address)).toBe(true);
    },
    { timeout: 30_000, interval: 100 },
  );
});

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await bus?.close();
  await nats?.stop();
  await database?.drop();
});

it('declares QUESTION_EVENTS for relay.question.v1.>', async () => {
  const info = await bus.jsm.streams.info('QUESTION_EVENTS');
  expect(info.config.subjects).toEqual(['relay.question.v1.>']);
});

it('serves relay.question.v1.QuestionService', async () => {
  expect(await checkHealth(address, 'relay.question.v1.QuestionService')).toBe(true);
});

it('shuts down cleanly on SIGTERM', async () => {
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
});
