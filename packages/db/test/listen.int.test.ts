import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { listen } from '../src/listen.ts';
import { scratchDatabase } from './scratch-database.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const logger = { warn: () => undefined, info: () => undefined };

async function connected(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  cleanups.push(() => client.end());
  return client;
}

/** Resolves once `count()` reaches `wanted` (notifications arrive asynchronously). */
async function until(count: () => number, wanted: number): Promise<void> {
  while (count() < wanted) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('listen', () => {
  it('hears a NOTIFY when its transaction commits, and nothing of one rolled back', async () => {
    const database = await scratchDatabase();
    cleanups.push(() => database.drop());
    let heard = 0;
    const listener = await listen({ connectionString: database.url, channel: 'relay_test', onNotify: () => (heard += 1), logger });
    cleanups.push(() => listener.stop());
    const writer = await connected(database.url);

    await writer.query('BEGIN');
    await writer.query("SELECT pg_notify('relay_test', '')");
    await writer.query('ROLLBACK');
    await writer.query('BEGIN');
    await writer.query("SELECT pg_notify('relay_test', '')");
    await writer.query("SELECT pg_notify('another_channel', '')");
    expect(heard).toBe(0);
    await writer.query('COMMIT');
    await until(() => heard, 1);
    // A later notification proves nothing else came in between.
    await writer.query("SELECT pg_notify('relay_test', '')");
    await until(() => heard, 2);
    expect(heard).toBe(2);
  });

  it('listens again after its connection is cut, and says so once (what was sent meanwhile is lost)', async () => {
    const database = await scratchDatabase();
    cleanups.push(() => database.drop());
    let heard = 0;
    const listener = await listen({ connectionString: database.url, channel: 'relay_test', onNotify: () => (heard += 1), logger, reconnectDelayMs: 10 });
    cleanups.push(() => listener.stop());
    const admin = await connected(database.url);

    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'");
    await until(() => heard, 1);
    await admin.query("SELECT pg_notify('relay_test', '')");
    await until(() => heard, 2);
  });
});
