// The question service as a real process against a real PostgreSQL and nats-server: it boots, declares its stream,
// answers its health check, and shuts down cleanly on SIGTERM. Its NATS is TLS only, as on Kubernetes: it connects
// with NATS_TLS_CA/CERT/KEY (the other services' boot tests use plaintext NATS on loopback, as `relay up` does).
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectBus, type Bus } from '@relay/bus';
import { checkHealth } from '@relay/rpc';
import { createLogger } from '@relay/telemetry';
import { natsClientOptions } from '@relay/config';
import {
  createTestCa,
  createTestDatabase,
  freePort,
  makeTestCredentials,
  startNats,
  startServiceProcess,
  type NatsServer,
  type ServiceProcess,
  type TestCa,
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
let ca: TestCa;

beforeAll(async () => {
  ca = createTestCa();
  const server = ca.issue('nats', ['localhost']);
  const client = ca.issue('question', ['question']);
  let port: number;
  [nats, database, port] = await Promise.all([startNats({ tls: server }), createTestDatabase({ migrationsDir }), freePort()]);
  address = `127.0.0.1:${port}`;
  // By name: the client checks the server's certificate names the host it dials.
  const natsEnv = {
    ...nats.env('question'),
    NATS_URL: nats.url.replace('127.0.0.1', 'localhost'),
    NATS_TLS_CA: client.ca,
    NATS_TLS_CERT: client.cert,
    NATS_TLS_KEY: client.key,
  };
  bus = await connectBus({ ...natsClientOptions(natsEnv), name: 'question-boot-test', logger: createLogger({ name: 'question-boot-test', level: 'silent' }) });
  service = await startServiceProcess({
    serviceDir,
    env: { DATABASE_URL: database.url, ...natsEnv, ...credentials.env('question'), GRPC_PORT: String(port), LOG_LEVEL: 'info' },
    ready: () => checkHealth(address),
  });
});

afterAll(async () => {
  service?.kill();
  await bus?.close();
  await nats?.stop();
  await database?.drop();
  ca?.remove();
});

it('declares QUESTION_EVENTS for relay.question.v1.>', async () => {
  const info = await bus.jsm.streams.info('QUESTION_EVENTS');
  expect(info.config.subjects).toEqual(['relay.question.v1.>']);
});

it('serves relay.question.v1.QuestionService', async () => {
  expect(await checkHealth(address, 'relay.question.v1.QuestionService')).toBe(true);
});

it('shuts down cleanly on SIGTERM', async () => {
  expect(await service.terminate()).toBe(0);
});
