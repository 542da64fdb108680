// Every service whose OutboxRelay LISTENs on relay_outbox (OUTBOX_CHANNEL in @relay/bus) must have the trigger that
// NOTIFYs it: without it, events would still go out, but only at the slow safety poll.
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from '@relay/testing';
import pg from 'pg';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe.each(['session', 'question', 'pairing'])('the %s outbox', (service) => {
  it('notifies relay_outbox when a transaction that wrote rows commits', async () => {
    const database = await createTestDatabase({ migrationsDir: `${root}/services/${service}/prisma/migrations` });
    const listener = new pg.Client({ connectionString: database.url });
    const writer = new pg.Client({ connectionString: database.url });
    try {
      await Promise.all([listener.connect(), writer.connect()]);
      const heard: string[] = [];
      listener.on('notification', (message) => heard.push(message.channel));
      await listener.query('LISTEN relay_outbox');
      await listener.query('LISTEN probe');
      const heardSoFar = async (count: number) => {
        while (heard.length < count) await new Promise((resolve) => setTimeout(resolve, 10));
        return [...heard];
      };

      await writer.query('BEGIN');
      await writer.query(`INSERT INTO outbox (id, subject, payload) VALUES ('a', 'relay.test', '{}'), ('b', 'relay.test', '{}')`);
      // A probe sent now from outside the open transaction comes at once: nothing came before it.
      await listener.query(`SELECT pg_notify('probe', '')`);
      expect(await heardSoFar(1)).toEqual(['probe']);
      await writer.query('COMMIT');
      // A second notification, sent after, shows that the commit gave exactly one.
      await writer.query(`SELECT pg_notify('relay_outbox', 'marker')`);
      expect(await heardSoFar(3)).toEqual(['probe', 'relay_outbox', 'relay_outbox']);
    } finally {
      await Promise.all([listener.end(), writer.end()]);
      await database.drop();
    }
  });
});
