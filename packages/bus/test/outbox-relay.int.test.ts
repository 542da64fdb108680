import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureStream, enqueue, enqueueAll, enqueueRows, outgoing, OutboxRelay, DUPLICATE_WINDOW_MS, processEachOnce } from '@relay/bus';
import { StorageType } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { startBusFixture, type BusFixture } from './fixtures/bus-fixture.ts';
import { transaction } from './fixtures/pg-sql.ts';
import { rawContract } from './fixtures/raw-contract.ts';

let f: BusFixture;
let streamCount = 0;

beforeAll(async () => {
  f = await startBusFixture();
});

afterAll(async () => {
  await f?.close();
});

/** A fresh stream and subject prefix per test, and an empty outbox. */
async function freshStream(): Promise<{ stream: string; subject: (event: string) => string }> {
  streamCount += 1;
  const stream = `RELAY_TEST_${streamCount}`;
  const prefix = `relay.test${streamCount}.v1`;
  await ensureStream(f.bus, { name: stream, subjects: [`${prefix}.>`] });
  await f.db.$executeRawUnsafe('DELETE FROM "outbox"');
  return { stream, subject: (event) => `${prefix}.${event}` };
}

async function streamMessages(stream: string): Promise<{ subject: string; msgId: string; data: unknown }[]> {
  const info = await f.bus.jsm.streams.info(stream);
  const messages = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const stored = await f.bus.jsm.streams.getMessage(stream, { seq });
    if (!stored) continue;
    messages.push({ subject: stored.subject, msgId: stored.header.get('Nats-Msg-Id'), data: stored.json() });
  }
  return messages;
}

describe('ensureStream', () => {
  it('creates a file stream with a 2-minute duplicate window, and replicas racing to declare it agree', async () => {
    await Promise.all([
      ensureStream(f.bus, { name: 'RACE', subjects: ['relay.race.v1.a'] }),
      ensureStream(f.bus, { name: 'RACE', subjects: ['relay.race.v1.a'] }),
      ensureStream(f.bus, { name: 'RACE', subjects: ['relay.race.v1.a'] }),
    ]);
    await ensureStream(f.bus, { name: 'RACE', subjects: ['relay.race.v1.b'] });
    const info = await f.bus.jsm.streams.info('RACE');
    expect(info.config.storage).toBe(StorageType.File);
    expect(info.config.duplicate_window).toBe(nanos(DUPLICATE_WINDOW_MS));
    // Subjects are only added, so an older replica never takes a newer one's subjects away.
    expect(info.config.subjects).toEqual(['relay.race.v1.a', 'relay.race.v1.b']);
  });
});

describe('enqueue and OutboxRelay', () => {
  it('leaves nothing behind when the transaction rolls back', async () => {
    const { stream, subject } = await freshStream();
    await expect(
      transaction(f.pool, async (tx) => {
        await enqueue(tx, rawContract(subject('created')), { n: 1 });
        throw new Error('business rule failed');
      }),
    ).rejects.toThrow('business rule failed');
    expect(await f.db.$queryRawUnsafe('SELECT * FROM "outbox"')).toEqual([]);
    const relay = new OutboxRelay({ db: f.db, bus: f.bus, logger: f.logger });
    expect(await relay.flush()).toBe(0);
    expect(await streamMessages(stream)).toEqual([]);
  });

  it('publishes a committed message once, with Nats-Msg-Id = its id, and marks it published', async () => {
    const { stream, subject } = await freshStream();
    const id = await transaction(f.pool, (tx) => enqueue(tx, rawContract(subject('created')), { n: 1 }));
    const relay = new OutboxRelay({ db: f.db, bus: f.bus, logger: f.logger });
    expect(await relay.flush()).toBe(1);
    expect(await relay.flush()).toBe(0);
    expect(await streamMessages(stream)).toEqual([{ subject: subject('created'), msgId: id, data: { n: 1 } }]);
    const rows = await f.db.$queryRawUnsafe<{ published_at: Date | null }[]>('SELECT "published_at" FROM "outbox" WHERE "id" = $1', id);
    expect(rows[0]?.published_at).toBeInstanceOf(Date);
  });

  it('keeps a given id', async () => {
    const { stream, subject } = await freshStream();
    await transaction(f.pool, (tx) => enqueue(tx, rawContract(subject('delivered')), 'x', { id: 'watcher-1:7' }));
    await new OutboxRelay({ db: f.db, bus: f.bus, logger: f.logger }).flush();
    expect((await streamMessages(stream)).map((m) => m.msgId)).toEqual(['watcher-1:7']);
  });

  it('publishes in the order messages were enqueued, also within one transaction', async () => {
    const { stream, subject } = await freshStream();
    const ids = await transaction(f.pool, async (tx) => {
      const enqueued = [];
      for (let n = 0; n < 20; n++) enqueued.push(await enqueue(tx, rawContract(subject('step')), { n }));
      return enqueued;
    });
    ids.push(await transaction(f.pool, (tx) => enqueue(tx, rawContract(subject('step')), { n: 20 })));
    expect(await new OutboxRelay({ db: f.db, bus: f.bus, logger: f.logger }).flush()).toBe(21);
    expect((await streamMessages(stream)).map((m) => m.msgId)).toEqual(ids);
  });

  it('a row republished after a crash between publish and mark is deduplicated by JetStream', async () => {
    const { stream, subject } = await freshStream();
    const id = await transaction(f.pool, (tx) => enqueue(tx, rawContract(subject('created')), {}));
    const relay = new OutboxRelay({ db: f.db, bus: f.bus, logger: f.logger });
    expect(await relay.flush()).toBe(1);
    await f.db.$executeRawUnsafe('UPDATE "outbox" SET "published_at" = NULL WHERE "id" = $1', id);
    expect(await relay.flush()).toBe(1);
    expect((await streamMessages(stream)).map((m) => m.msgId)).toEqual([id]);
  });

  it('two relays on one table publish each message once, in order (disjoint rows, not JetStream dropping duplicates)', async () => {
    const { stream, subject } = await freshStream();
    // Every publish that reaches nats-server, duplicates JetStream would drop included.
    const seen: string[] = [];
    const watcher = f.bus.nc.subscribe(subject('>'), { callback: (_, message) => void seen.push(message.headers?.get('Nats-Msg-Id') ?? '') });
    await f.bus.nc.flush();
    const ids: string[] = [];
    for (let round = 0; round < 4; round++) {
      ids.push(
        ...(await transaction(f.pool, (tx) =>
          enqueueAll(
            tx,
            Array.from({ length: 150 }, (_, n) => outgoing(rawContract(subject('step')), { round, n })),
          ),
        )),
      );
    }
    const a = new OutboxRelay({ db: f.db, bus: f.bus, logger: f.logger });
    const b = new OutboxRelay({ db: f.db, bus: f.bus, logger: f.logger });
    const [byA, byB] = await Promise.all([a.flush(), b.flush()]);
    await f.bus.nc.flush();
    watcher.unsubscribe();
    expect(byA + byB).toBe(ids.length);
    expect(seen).toEqual(ids);
    expect((await streamMessages(stream)).map((m) => m.msgId)).toEqual(ids);
    expect(await f.db.$queryRawUnsafe('SELECT "id" FROM "outbox" WHERE "published_at" IS NULL')).toEqual([]);
  });

  it("a relay waits for the rows another relay's round holds: then publishes none it marked, all of a round killed before its commit", async () => {
    const { stream, subject } = await freshStream();
    const relay = new OutboxRelay({ db: f.db, bus: f.bus, logger: f.logger });
    /** Another relay's round mid-publish holds the pending rows; `ending` its transaction releases them. */
    const flushBehindRound = async (ending: 'killed' | 'marked'): Promise<number> => {
      const other = await f.pool.connect();
      try {
        await other.query('BEGIN');
        await other.query('SELECT "id" FROM "outbox" WHERE "published_at" IS NULL FOR UPDATE');
        const flushed = relay.flush();
        await vi.waitFor(async () => {
          const waiting = await f.pool.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%FROM "outbox"%'`);
          expect(waiting.rowCount).toBe(1);
        });
        if (ending === 'marked') await other.query('UPDATE "outbox" SET "published_at" = CURRENT_TIMESTAMP WHERE "published_at" IS NULL');
        await other.query(ending === 'marked' ? 'COMMIT' : 'ROLLBACK');
        return await flushed;
      } finally {
        other.release();
      }
    };
    const enqueueTwo = () => transaction(f.pool, (tx) => enqueueAll(tx, [outgoing(rawContract(subject('a')), 1), outgoing(rawContract(subject('b')), 2)]));
    const lost = await enqueueTwo();
    expect(await flushBehindRound('killed')).toBe(2);
    await enqueueTwo();
    expect(await flushBehindRound('marked')).toBe(0);
    // Only the killed round's rows came from this relay (the marked ones were never published here: the test's round
    // stood in for a relay).
    expect((await streamMessages(stream)).map((m) => m.msgId)).toEqual(lost);
  });

  it('leaves a row whose publish fails for a later round, and logs it', async () => {
    const { stream } = await freshStream();
    const unrouted = 'relay.nostream.v1.created';
    const id = await transaction(f.pool, (tx) => enqueue(tx, rawContract(unrouted), {}));
    const relay = new OutboxRelay({ db: f.db, bus: f.bus, logger: f.logger });
    expect(await relay.flush()).toBe(0);
    expect(f.logs.some((line) => line.msg === 'outbox publish failed; will retry' && line['messageId'] === id)).toBe(true);
    await ensureStream(f.bus, { name: stream, subjects: [unrouted] });
    expect(await relay.flush()).toBe(1);
    expect((await streamMessages(stream)).map((m) => m.msgId)).toEqual([id]);
  });

  it('once started, publishes what is committed later; stop() ends polling', async () => {
    const { stream, subject } = await freshStream();
    const relay = new OutboxRelay({ db: f.db, bus: f.bus, logger: f.logger, pollIntervalMs: 20 });
    relay.start();
    const id = await transaction(f.pool, (tx) => enqueue(tx, rawContract(subject('created')), {}));
    await vi.waitFor(async () => expect((await streamMessages(stream)).map((m) => m.msgId)).toEqual([id]), { timeout: 5000 });
    await relay.stop();
    const later = await transaction(f.pool, (tx) => enqueue(tx, rawContract(subject('created')), {}));
    // Nothing polls any more: the row is still pending until someone flushes.
    const pending = await f.db.$queryRawUnsafe<{ id: string }[]>('SELECT "id" FROM "outbox" WHERE "published_at" IS NULL');
    expect(pending.map((row) => row.id)).toEqual([later]);
    expect(await relay.flush()).toBe(1);
  });

  it('wake() publishes at once what was committed, without waiting for the poll', async () => {
    const { stream, subject } = await freshStream();
    const relay = new OutboxRelay({ db: f.db, bus: f.bus, logger: f.logger, pollIntervalMs: 3_600_000 });
    relay.start();
    try {
      // The first round runs at start; rows committed after it wait for the hour-long poll unless woken.
      await vi.waitFor(async () => expect(await f.db.$queryRawUnsafe<unknown[]>('SELECT 1 FROM "outbox" WHERE "published_at" IS NULL')).toEqual([]), {
        timeout: 5000,
      });
      const first = await transaction(f.pool, (tx) => enqueue(tx, rawContract(subject('created')), { n: 1 }));
      relay.wake();
      const second = await transaction(f.pool, (tx) => enqueue(tx, rawContract(subject('created')), { n: 2 }));
      relay.wake();
      await vi.waitFor(async () => expect((await streamMessages(stream)).map((m) => m.msgId)).toEqual([first, second]), { timeout: 5000 });
    } finally {
      await relay.stop();
    }
  });

  it('enqueueAll writes several messages in one statement, published in their order', async () => {
    const { stream, subject } = await freshStream();
    const ids = await transaction(f.pool, (tx) =>
      enqueueAll(tx, [outgoing(rawContract(subject('a')), { n: 1 }, { id: 'w:1' }), outgoing(rawContract(subject('b')), 'two')]),
    );
    expect(ids[0]).toBe('w:1');
    expect(await new OutboxRelay({ db: f.db, bus: f.bus, logger: f.logger }).flush()).toBe(2);
    expect(await streamMessages(stream)).toEqual([
      { subject: subject('a'), msgId: 'w:1', data: { n: 1 } },
      { subject: subject('b'), msgId: ids[1], data: 'two' },
    ]);
  });
});

describe('OutboxRelay.publishCommitted (the hot path after a commit)', () => {
  const pending = async () => (await f.db.$queryRawUnsafe<{ id: string }[]>('SELECT "id" FROM "outbox" WHERE "published_at" IS NULL')).map((row) => row.id);

  it('publishes the rows a transaction committed, as written and in their order, without a round, and marks them published', async () => {
    const { stream, subject } = await freshStream();
    const rows = await transaction(f.pool, (tx) =>
      enqueueRows(tx, [outgoing(rawContract(subject('a')), { n: 1 }, { id: 'w:1' }), outgoing(rawContract(subject('b')), 'two')]),
    );
    expect(rows.map((row) => [row.id, row.subject, row.payload])).toEqual([
      ['w:1', subject('a'), { n: 1 }],
      [rows[1]!.id, subject('b'), 'two'],
    ]);
    // Never started: no round runs, so what reaches the stream came from publishCommitted.
    const relay = new OutboxRelay({ db: f.db, bus: f.bus, logger: f.logger });
    await relay.publishCommitted(rows);
    expect(await streamMessages(stream)).toEqual([
      { subject: subject('a'), msgId: 'w:1', data: { n: 1 } },
      { subject: subject('b'), msgId: rows[1]!.id, data: 'two' },
    ]);
    expect(await pending()).toEqual([]);
    expect(await relay.flush()).toBe(0);
  });

  it('rows a round published first (another replica, say) reach the stream once: JetStream drops the second publish', async () => {
    const { stream, subject } = await freshStream();
    const rows = await transaction(f.pool, (tx) => enqueueRows(tx, [outgoing(rawContract(subject('a')), 1), outgoing(rawContract(subject('a')), 2)]));
    expect(await new OutboxRelay({ db: f.db, bus: f.bus, logger: f.logger }).flush()).toBe(2);
    await new OutboxRelay({ db: f.db, bus: f.bus, logger: f.logger }).publishCommitted(rows);
    expect((await streamMessages(stream)).map((m) => m.msgId)).toEqual(rows.map((row) => row.id));
  });

  it("does not wait for rows another relay's round holds: it leaves their mark to that round", async () => {
    const { stream, subject } = await freshStream();
    const rows = await transaction(f.pool, (tx) => enqueueRows(tx, [outgoing(rawContract(subject('a')), 1), outgoing(rawContract(subject('a')), 2)]));
    const other = await f.pool.connect();
    try {
      // Another replica's round, mid-publish, holds the second row.
      await other.query('BEGIN');
      await other.query('SELECT "id" FROM "outbox" WHERE "id" = $1 FOR UPDATE', [rows[1]!.id]);
      // Resolves while the lock is held (waiting for it would never end here).
      await new OutboxRelay({ db: f.db, bus: f.bus, logger: f.logger }).publishCommitted(rows);
      expect(await pending()).toEqual([rows[1]!.id]);
      await other.query('UPDATE "outbox" SET "published_at" = CURRENT_TIMESTAMP WHERE "id" = $1', [rows[1]!.id]);
      await other.query('COMMIT');
    } finally {
      other.release();
    }
    expect(await pending()).toEqual([]);
    expect((await streamMessages(stream)).map((m) => m.msgId)).toEqual(rows.map((row) => row.id));
  });

  it('leaves a row it cannot publish, and those after it, for a round, and wakes one at once', async () => {
    const { stream, subject } = await freshStream();
    const unrouted = 'relay.nostream2.v1.created';
    const relay = new OutboxRelay({ db: f.db, bus: f.bus, logger: f.logger, pollIntervalMs: 3_600_000 });
    // The round at start publishes this row; the next waits for the hour-long poll unless woken.
    const first = await transaction(f.pool, (tx) => enqueue(tx, rawContract(subject('a')), 0));
    relay.start();
    try {
      await vi.waitFor(async () => expect(await pending()).toEqual([]), { timeout: 5000 });
      const rows = await transaction(f.pool, (tx) =>
        enqueueRows(tx, [outgoing(rawContract(subject('a')), 1), outgoing(rawContract(unrouted), 2), outgoing(rawContract(subject('a')), 3)]),
      );
      const failures = () => f.logs.filter((line) => line.msg === 'outbox publish failed; will retry' && line['messageId'] === rows[1]!.id).length;
      await relay.publishCommitted(rows);
      expect(await pending()).toEqual([rows[1]!.id, rows[2]!.id]);
      // The round it woke met the same failure at once, long before the hour-long poll.
      await vi.waitFor(() => expect(failures()).toBe(2), { timeout: 5000 });
      await relay.stop();
      await ensureStream(f.bus, { name: stream, subjects: [unrouted] });
      expect(await relay.flush()).toBe(2);
      // Each once: the row after the failed one landed at the first try, and its second publish was dropped.
      expect((await streamMessages(stream)).map((m) => m.msgId)).toEqual([first, rows[0]!.id, rows[2]!.id, rows[1]!.id]);
    } finally {
      await relay.stop();
    }
  });
});

describe('processEachOnce', () => {
  it('answers the ids the consumer had not handled, across batches and within one', async () => {
    expect(await transaction(f.pool, (tx) => processEachOnce(tx, 'batcher', ['p1', 'p2']))).toEqual(new Set(['p1', 'p2']));
    expect(await transaction(f.pool, (tx) => processEachOnce(tx, 'batcher', ['p2', 'p3', 'p3']))).toEqual(new Set(['p3']));
    // Rolled back: nothing recorded.
    await expect(
      transaction(f.pool, async (tx) => {
        await processEachOnce(tx, 'batcher', ['p4']);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await transaction(f.pool, (tx) => processEachOnce(tx, 'batcher', ['p4']))).toEqual(new Set(['p4']));
  });
});
