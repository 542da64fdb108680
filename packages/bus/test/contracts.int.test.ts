import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { consume, enqueue, enqueueAll, ensureStream, outgoing, type BusCodec, type Consumer, type Delivered } from '@relay/bus';
import { startBusFixture, type BusFixture } from './fixtures/bus-fixture.ts';
import { transaction } from './fixtures/pg-sql.ts';

let f: BusFixture;
let count = 0;
const consumers: Consumer[] = [];

beforeAll(async () => {
  f = await startBusFixture();
});

afterAll(async () => {
  for (const consumer of consumers) await consumer.stop();
  await f?.close();
});

type Rang = { bellId: string; times: number };
type Moved = { to: string };
/** Codecs shaped as ts-proto's: snake_case on the wire, camelCase in code, defaults filled in when read. */
const RangCodec: BusCodec<Rang> = {
  fromJSON: (object) => {
    const json = object as { bell_id?: string; times?: number };
    return { bellId: json.bell_id ?? '', times: json.times ?? 0 };
  },
  toJSON: (message) => ({ bell_id: message.bellId, times: message.times }),
};
const MovedCodec: BusCodec<Moved> = { fromJSON: (object) => ({ to: (object as { to?: string }).to ?? '' }), toJSON: (message) => ({ to: message.to }) };

/** A fresh stream per test, declared as the generated contracts declare theirs, with two subjects on it. */
async function fresh() {
  count += 1;
  const stream = { name: `CONTRACTS_TEST_${count}`, subjects: [`relay.bell${count}.v1.>`] } as const;
  const contracts = {
    RANG: { subject: `relay.bell${count}.v1.rang`, stream: stream.name, codec: RangCodec },
    MOVED: { subject: `relay.bell${count}.v1.moved`, stream: stream.name, codec: MovedCodec },
  } as const;
  await ensureStream(f.bus, stream);
  await f.db.$executeRawUnsafe('DELETE FROM "outbox"');
  return { stream, contracts, durable: `contracts-test-${count}` };
}

describe('enqueue by contract', () => {
  it("writes the contract's subject and the codec's JSON into the outbox", async () => {
    const { contracts } = await fresh();
    const ids = await transaction(f.pool, async (tx) => [
      await enqueue(tx, contracts.RANG, { bellId: 'b1', times: 3 }, { id: 'evt-1' }),
      ...(await enqueueAll(tx, [outgoing(contracts.MOVED, { to: 'hall' }, { id: 'evt-2' }), outgoing(contracts.RANG, { bellId: 'b2', times: 0 })])),
    ]);
    expect(ids.slice(0, 2)).toEqual(['evt-1', 'evt-2']);
    const rows = await f.db.$queryRawUnsafe<{ id: string; subject: string; payload: unknown }[]>(
      'SELECT "id", "subject", "payload" FROM "outbox" ORDER BY "created_at"',
    );
    expect(rows).toEqual([
      { id: 'evt-1', subject: contracts.RANG.subject, payload: { bell_id: 'b1', times: 3 } },
      { id: 'evt-2', subject: contracts.MOVED.subject, payload: { to: 'hall' } },
      { id: ids[2], subject: contracts.RANG.subject, payload: { bell_id: 'b2', times: 0 } },
    ]);
  });
});

describe('consume by contract', () => {
  it("filters on the contract's subject and hands the handler its payload decoded by the contract's codec", async () => {
    const { stream, contracts, durable } = await fresh();
    const seen: Delivered<typeof contracts.RANG>[] = [];
    consumers.push(await consume(f.bus, { durable, contracts: [contracts.RANG], logger: f.logger, handler: async (message) => void seen.push(message) }));
    await f.bus.js.publish(contracts.MOVED.subject, JSON.stringify({ to: 'hall' }), { msgID: 'm-1' });
    await f.bus.js.publish(contracts.RANG.subject, JSON.stringify({ bell_id: 'b1' }), { msgID: 'm-2' });
    await vi.waitFor(() => expect(seen).toHaveLength(1));
    expect(seen).toEqual([{ id: 'm-2', subject: contracts.RANG.subject, data: { bellId: 'b1', times: 0 }, deliveryCount: 1 }]);
    const info = await f.bus.jsm.consumers.info(stream.name, durable);
    expect(info.config.filter_subject).toBe(contracts.RANG.subject);
  });

  it('with wholeStream filters on the stream, decodes each subject with its own codec and acks unread what no contract names', async () => {
    const { stream, contracts, durable } = await fresh();
    const seen: Delivered<typeof contracts.RANG | typeof contracts.MOVED>[] = [];
    const batches: number[] = [];
    consumers.push(
      await consume(f.bus, {
        durable,
        contracts: [contracts.RANG, contracts.MOVED],
        wholeStream: stream,
        logger: f.logger,
        handler: async (message) => void seen.push(message),
        batchHandler: async (messages) => {
          batches.push(messages.length);
          seen.push(...messages);
        },
      }),
    );
    await f.bus.js.publish(`relay.bell${count}.v1.unknown`, JSON.stringify({ x: 1 }), { msgID: 'm-1' });
    await f.bus.js.publish(contracts.RANG.subject, JSON.stringify({ bell_id: 'b1', times: 2 }), { msgID: 'm-2' });
    await f.bus.js.publish(contracts.MOVED.subject, JSON.stringify({ to: 'hall' }), { msgID: 'm-3' });
    await vi.waitFor(() => expect(seen).toHaveLength(2));
    expect(seen.map(({ id, subject, data }) => ({ id, subject, data }))).toEqual([
      { id: 'm-2', subject: contracts.RANG.subject, data: { bellId: 'b1', times: 2 } },
      { id: 'm-3', subject: contracts.MOVED.subject, data: { to: 'hall' } },
    ]);
    expect(batches.every((size) => size > 0)).toBe(true);
    await vi.waitFor(async () => {
      const info = await f.bus.jsm.consumers.info(stream.name, durable);
      expect([info.config.filter_subject, info.num_pending, info.num_ack_pending]).toEqual([stream.subjects[0], 0, 0]);
    });
  });

  it('terminates a payload that is not a JSON object: no codec reads one, so no delivery would succeed', async () => {
    const { stream, contracts, durable } = await fresh();
    const seen: Rang[] = [];
    consumers.push(await consume(f.bus, { durable, contracts: [contracts.RANG], logger: f.logger, handler: async (message) => void seen.push(message.data) }));
    await f.bus.js.publish(contracts.RANG.subject, 'null', { msgID: 'm-1' });
    await f.bus.js.publish(contracts.RANG.subject, JSON.stringify({ bell_id: 'b2' }), { msgID: 'm-2' });
    await vi.waitFor(() => expect(seen).toEqual([{ bellId: 'b2', times: 0 }]));
    await vi.waitFor(async () => {
      const info = await f.bus.jsm.consumers.info(stream.name, durable);
      expect([info.num_pending, info.num_ack_pending, info.num_redelivered]).toEqual([0, 0, 0]);
    });
  });

  it('refuses contracts on two streams: one consumer reads one stream', async () => {
    const first = await fresh();
    const second = await fresh();
    await expect(
      consume(f.bus, { durable: 'two-streams', contracts: [first.contracts.RANG, second.contracts.RANG], logger: f.logger, handler: async () => {} }),
    ).rejects.toThrow(/its contracts are on 2 streams/);
  });
});
