// The scheduler service as a real process against a real PostgreSQL and nats-server: it boots, declares its stream,
// answers its health check, and shuts down cleanly on SIGTERM.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectBus, type Bus } from '@relay/bus';
import { checkHealth } from '@relay/rpc';
import { createLogger } from '@relay/telemetry';
import {
  createTestDatabase,
  freePort,
  makeTestCredentials,
  startNats,
  startServiceProcess,
  type NatsServer,
  type ServiceProcess,
  type TestDatabase,
} from '@relay/testing';

const serviceDir = fileURLToPath(new URL('..', import.meta.url));
const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

let nats: NatsServer;
let database: TestDatabase;
let bus: Bus;
let address: string;
let service: ServiceProcess;
const credentials = makeTestCredentials();

beforeAll(async () => {
  let port: number;
  [nats, database, port] = await Promise.all([startNats(), createTestDatabase({ migrationsDir }), freePort()]);
  address = `127.0.0.1:${port}`;
  bus = await connectBus({
    url: nats.url,
    name: 'scheduler-boot-test',
    ...nats.credentials('scheduler'),
    logger: createLogger({ name: 'scheduler-boot-test', level: 'silent' }),
  });
  service = await startServiceProcess({
    serviceDir,
    env: { DATABASE_URL: database.url, ...nats.env('scheduler'), ...credentials.env('scheduler'), GRPC_PORT: String(port), LOG_LEVEL: 'info' },
    ready: () => checkHealth(address),
  });
});

afterAll(async () => {
  service?.kill();
  await bus?.close();
  await nats?.stop();
  await database?.drop();
});

it('declares SCHEDULER_COMMANDS for relay.scheduler.v1.>', async () => {
  const info = await bus.jsm.streams.info('SCHEDULER_COMMANDS');
  expect(info.config.subjects).toEqual(['relay.scheduler.v1.>']);
});

it('shuts down cleanly on SIGTERM', async () => {
  expect(await service.terminate()).toBe(0);
});
