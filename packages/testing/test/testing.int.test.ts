import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { createTestDatabase, freePort, startNats, TEST_NATS_USER, testServerUrl } from '../src/index.ts';

async function databaseExists(name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: testServerUrl() });
  await client.connect();
  try {
    return (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
  } finally {
    await client.end();
  }
}

describe('createTestDatabase', () => {
  it('creates a fresh migrated database and drops it even with open connections', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'relay-testing-'));
    await mkdir(join(dir, '20260101000000_init'));
    await writeFile(join(dir, '20260101000000_init', 'migration.sql'), 'CREATE TABLE "things" ("id" TEXT PRIMARY KEY);\n');
    const [a, b] = await Promise.all([createTestDatabase({ migrationsDir: dir }), createTestDatabase({ migrationsDir: dir })]);
    await rm(dir, { recursive: true, force: true });
    expect(a.url).not.toBe(b.url);

    const client = new pg.Client({ connectionString: a.url });
    await client.connect();
    client.on('error', () => undefined); // the forced drop kills this connection
    await client.query(`INSERT INTO "things" VALUES ('x')`);
    expect((await client.query('SELECT id FROM "things"')).rows).toEqual([{ id: 'x' }]);

    await a.drop();
    await b.drop();
    expect(await databaseExists(a.name)).toBe(false);
    expect(await databaseExists(b.name)).toBe(false);
    await client.end().catch(() => undefined);
  });

  it('reads the server from TEST_DATABASE_URL, then DATABASE_URL, whatever database they name', () => {
    expect(testServerUrl({})).toBe('postgresql://postgres@127.0.0.1:5432/postgres');
    expect(testServerUrl({ DATABASE_URL: 'postgresql://u@h:1/app' })).toBe('postgresql://u@h:1/app');
    expect(testServerUrl({ DATABASE_URL: 'postgresql://u@h:1/app', TEST_DATABASE_URL: 'postgresql://t@h:2/x' })).toBe('postgresql://t@h:2/x');
  });
});

describe('freePort', () => {
  it('returns a port that can be bound on loopback', async () => {
    const port = await freePort();
    const server = createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
    await new Promise((resolve) => server.close(resolve));
  });
});

describe('startNats', () => {
  it('runs an isolated JetStream server whose data survives restart()', async () => {
    const nats = await startNats();
    try {
      const { user, password: pass } = nats.credentials(TEST_NATS_USER);
      let nc = await connect({ servers: nats.url, user, pass });
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name: 'TESTING', subjects: ['testing.>'] });
      await jetstream(nc).publish('testing.one', JSON.stringify({ n: 1 }));
      await nc.close();

      await nats.restart();

      nc = await connect({ servers: nats.url, user, pass });
      const info = await (await jetstreamManager(nc)).streams.info('TESTING');
      expect(info.state.messages).toBe(1);
      await nc.close();
    } finally {
      await nats.stop();
    }
    await expect(connect({ servers: nats.url, reconnect: false, timeout: 1000 })).rejects.toThrow();
  });

  it('refuses anonymous clients and gives each service of the relay its own user, with its own permissions', async () => {
    const nats = await startNats();
    try {
      await expect(connect({ servers: nats.url, reconnect: false })).rejects.toThrow(/Authorization Violation/i);
      const env = nats.env('scheduler');
      expect(env).toEqual({ NATS_URL: nats.url, NATS_USER: 'scheduler', NATS_PASSWORD: nats.credentials('scheduler').password });
      expect(nats.credentials('scheduler').password).not.toBe(nats.credentials('session').password);
      const nc = await connect({ servers: nats.url, user: env.NATS_USER, pass: env.NATS_PASSWORD, inboxPrefix: '_INBOX.scheduler' });
      try {
        await expect(nc.request('relay.session.v1.steer', '{}', { timeout: 1000 })).rejects.toThrow(
          /Permissions Violation for Publish to "relay.session.v1.steer"/i,
        );
      } finally {
        await nc.close();
      }
      expect(() => nats.credentials('gateway')).toThrow(/no NATS user gateway/);
    } finally {
      await nats.stop();
    }
  });

  it('gives each call its own server', async () => {
    const [a, b] = await Promise.all([startNats(), startNats()]);
    try {
      expect(a.url).not.toBe(b.url);
      expect(a.storeDir).not.toBe(b.storeDir);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});
