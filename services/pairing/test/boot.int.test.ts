// The pairing service as a real process against a real PostgreSQL and nats-server: it boots, declares its stream,
// answers its health check and ListPairedRelays, and shuts down cleanly on SIGTERM.
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectBus, type Bus } from '@relay/bus';
import { AgentLevel, PairingServiceClient } from '@relay/proto/relay/pairing/v1/pairing_service';
import { callUnary, checkHealth, createClient } from '@relay/rpc';
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
    name: 'pairing-boot-test',
    ...nats.credentials('pairing'),
    logger: createLogger({ name: 'pairing-boot-test', level: 'silent' }),
  });
  service = await startServiceProcess({
    serviceDir,
    env: { DATABASE_URL: database.url, ...nats.env('pairing'), ...credentials.env('pairing'), GRPC_PORT: String(port), LOG_LEVEL: 'info' },
    ready: () => checkHealth(address),
  });
});

afterAll(async () => {
  service?.kill();
  await bus?.close();
  await nats?.stop();
  await database?.drop();
});

it('declares PAIRING_EVENTS for relay.pairing.v1.>', async () => {
  const info = await bus.jsm.streams.info('PAIRING_EVENTS');
  expect(info.config.subjects).toEqual(['relay.pairing.v1.>']);
});

it('answers ListPairedRelays over gRPC with the rows of paired_relays, by name, never their tokens', async () => {
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  try {
    await db.query(
      "INSERT INTO paired_relays (name, name_key, url, level, owner_user_id, inbound_token_hash, outbound_token, version, online, created_at) VALUES ('lab', 'lab', 'https://lab.example:8443', 'read', 'u1', 'h1', 't1', '0.9.19', false, '2026-11-30T08:00:00Z')",
    );
    // Both offline: the service's link probe, which may run at any moment, cannot reach either and would set that.
    await db.query(
      "INSERT INTO paired_relays (name, name_key, url, owner_user_id, inbound_token_hash, outbound_token, online, created_at) VALUES ('desk', 'desk', 'https://desk.example', 'u1', 'h2', 't2', false, '2026-11-30T08:00:00Z')",
    );
  } finally {
    await db.end();
  }
  expect(await checkHealth(address, 'relay.pairing.v1.PairingService')).toBe(true);
  const client = createClient(PairingServiceClient, address, credentials.auth('gateway'));
  try {
    expect(await callUnary(client, 'listPairedRelays', {})).toEqual({
      relays: [
        {
          name: 'desk',
          url: 'https://desk.example',
          online: false,
          version: '',
          level: AgentLevel.AGENT_LEVEL_FULL,
          ownerUserId: 'u1',
          pairedAt: new Date('2026-11-30T08:00:00Z'),
        },
        {
          name: 'lab',
          url: 'https://lab.example:8443',
          online: false,
          version: '0.9.19',
          level: AgentLevel.AGENT_LEVEL_READ,
          ownerUserId: 'u1',
          pairedAt: new Date('2026-11-30T08:00:00Z'),
        },
      ],
    });
  } finally {
    client.close();
  }
});

it('refuses a gateway token it was not started with (UNAUTHENTICATED) and a service its callers table does not list (PERMISSION_DENIED)', async () => {
  const otherRelays = createClient(PairingServiceClient, address, makeTestCredentials().auth('gateway'));
  const asSession = createClient(PairingServiceClient, address, credentials.auth('session'));
  try {
    await expect(callUnary(otherRelays, 'listPairedRelays', {})).rejects.toMatchObject({ code: 'REMOTE_RELAY_AUTH', kind: 'unauthenticated' });
    await expect(callUnary(asSession, 'listPairedRelays', {})).rejects.toMatchObject({ code: 'REMOTE_RELAY_FORBIDDEN', kind: 'permission_denied' });
  } finally {
    otherRelays.close();
    asSession.close();
  }
});

it('shuts down cleanly on SIGTERM', async () => {
  expect(await service.terminate()).toBe(0);
});
