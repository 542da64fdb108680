import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AppError } from '@relay/errors';
import { consume, ensureStream, processOnce, type BusMessage, type Consumer } from '@relay/bus';
import { startBusFixture, type BusFixture } from './fixtures/bus-fixture.ts';
import { transaction } from './fixtures/pg-sql.ts';
import { rawContract } from './fixtures/raw-contract.ts';

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

/** A fresh stream per test, a publisher with a Nats-Msg-Id, and a consumer that is stopped at the end. */
async function setup(
  handler: (message: BusMessage) => Promise<void>,
  options: { maxDeliver?: number; batchHandler?: (messages: BusMessage[]) => Promise<void>; maxBatch?: number } = {},
) {
  count += 1;
  const stream = `CONSUME_TEST_${count}`;
  const subject = `relay.consume${count}.v1.happened`;
  const durable = `test-consumer-${count}`;
  await ensureStream(f.bus, { name: stream, subjects: [`relay.consume${count}.v1.>`] });
  const consumer = await consume(f.bus, { contracts: [rawContract(subject, stream)], durable, logger: f.logger, handler, ...options });
  consumers.push(consumer);
  const publish = async (id: string, data: unknown) => {
    await f.bus.js.publish(subject, JSON.stringify(data), { msgID: id });
  };
  const info = () => f.bus.jsm.consumers.info(stream, durable);
  return { stream, subject, durable, consumer, publish, info };
}

/** Settled: delivered, and acked or terminated; nothing waiting for an ack or a redelivery. */
async function waitSettled(info: () => Promise<{ num_ack_pending: number; num_pending: number; num_redelivered: number }>) {
  await vi.waitFor(
    async () => {
      const state = await info();
      expect(state.num_pending + state.num_ack_pending).toBe(0);
    },
    { timeout: 10_000 },
  );
}

describe('consume', () => {
  it('hands the handler the parsed message and acks it when the handler resolves', async () => {
    const seen: BusMessage[] = [];
    const { subject, publish, info } = await setup(async (message) => {
      seen.push(message);
    });
    await publish('m-1', { hello: 'world' });
    await vi.waitFor(() => expect(seen).toHaveLength(1));
    expect(seen[0]).toEqual({ id: 'm-1', subject, data: { hello: 'world' }, deliveryCount: 1 });
    await waitSettled(info);
    expect((await info()).num_redelivered).toBe(0);
  });

  it('sets ack_policy explicit, ack_wait 30 s, max_deliver (10 by default) and the filter', async () => {
    const { subject, info } = await setup(async () => {});
    const { config } = await info();
    expect(config.ack_policy).toBe('explicit');
    expect(config.ack_wait).toBe(30_000_000_000);
    expect(config.max_deliver).toBe(10);
    expect(config.filter_subject).toBe(subject);
  });

  it('updates an existing durable instead of failing (a second replica, or a new version)', async () => {
    const { stream, durable, subject, info } = await setup(async () => {});
    const second = await consume(f.bus, { contracts: [rawContract(subject, stream)], durable, maxDeliver: 4, logger: f.logger, handler: async () => {} });
    consumers.push(second);
    expect((await info()).config.max_deliver).toBe(4);
  });

  it('redelivers after a thrown plain Error or transient AppError, then acks', async () => {
    const deliveries: number[] = [];
    const { publish, info } = await setup(async (message) => {
      deliveries.push(message.deliveryCount);
      if (message.deliveryCount === 1) throw new Error('database hiccup');
      if (message.deliveryCount === 2) throw new AppError('TEST_UNAVAILABLE', 'unavailable', 'peer down');
    });
    await publish('m-1', {});
    await vi.waitFor(() => expect(deliveries).toEqual([1, 2, 3]), { timeout: 10_000 });
    await waitSettled(info);
    expect(f.logs.filter((line) => line.msg === 'message failed; will be redelivered' && line['messageId'] === 'm-1')).toHaveLength(2);
  });

  it('terminates a message whose handler throws a non-transient AppError, logged with its code', async () => {
    const deliveries: string[] = [];
    const { publish, info } = await setup(async (message) => {
      deliveries.push(message.id);
      if (message.id === 'bad') throw new AppError('TEST_UNKNOWN_GROUP', 'not_found', 'no such group');
    });
    await publish('bad', {});
    await publish('good', {});
    await vi.waitFor(() => expect(deliveries).toEqual(['bad', 'good']));
    await waitSettled(info);
    expect((await info()).num_redelivered).toBe(0);
    expect(deliveries).toEqual(['bad', 'good']);
    const line = f.logs.find((entry) => entry['messageId'] === 'bad' && entry.level === 'error');
    expect(line?.code).toBe('TEST_UNKNOWN_GROUP');
  });

  it('terminates a message that is not JSON', async () => {
    const handler = vi.fn(async () => {});
    const { subject, info } = await setup(handler);
    await f.bus.js.publish(subject, 'not json{', { msgID: 'garbled' });
    await waitSettled(info);
    expect(handler).not.toHaveBeenCalled();
    expect(f.logs.find((entry) => entry['messageId'] === 'garbled')?.code).toBe('BUS_MALFORMED_MESSAGE');
  });

  it('gives up after max_deliver deliveries and terminates the message', async () => {
    const deliveries: number[] = [];
    const { publish, info } = await setup(
      async (message) => {
        deliveries.push(message.deliveryCount);
        throw new Error('always failing');
      },
      { maxDeliver: 2 },
    );
    await publish('doomed', {});
    await vi.waitFor(() => expect(deliveries).toEqual([1, 2]), { timeout: 10_000 });
    await waitSettled(info);
    expect(f.logs.some((entry) => entry['messageId'] === 'doomed' && entry.msg === 'message failed its last delivery; terminated')).toBe(true);
  });

  it('with processOnce, a redelivered message that was already handled changes nothing', async () => {
    const deliveries: number[] = [];
    const { publish, info, durable } = await setup(async (message) => {
      deliveries.push(message.deliveryCount);
      await transaction(f.pool, async (tx) => {
        if (!(await processOnce(tx, durable, message.id))) return;
        await tx.$executeRawUnsafe('INSERT INTO "effects" ("message_id") VALUES ($1)', message.id);
      });
      // The work committed but the ack is lost (the process died, say): JetStream delivers again.
      if (message.deliveryCount === 1) throw new Error('crashed before the ack');
    });
    await publish('once', {});
    await vi.waitFor(() => expect(deliveries).toEqual([1, 2]), { timeout: 10_000 });
    await waitSettled(info);
    expect(await f.db.$queryRawUnsafe('SELECT "message_id" FROM "effects" WHERE "message_id" = $1', 'once')).toEqual([{ message_id: 'once' }]);
  });

  it('stop() waits for the handler in flight, whose message is then acked', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const started = vi.fn();
    let finished = false;
    const { consumer, publish, info } = await setup(async () => {
      started();
      await released;
      finished = true;
    });
    await publish('slow', {});
    await vi.waitFor(() => expect(started).toHaveBeenCalled());
    let stopped = false;
    const stopping = consumer.stop().then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(finished).toBe(true);
    await waitSettled(info);
    expect(started).toHaveBeenCalledTimes(1);
  });

  it('stop() hands buffered messages back at once for another replica', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const handled: string[] = [];
    const { stream, durable, subject, consumer, publish } = await setup(async (message) => {
      handled.push(message.id);
      await released;
    });
    for (const id of ['a', 'b', 'c']) await publish(id, {});
    await vi.waitFor(() => expect(handled).toEqual(['a']));
    // Wait until b and c have been pulled into the first consumer's buffer.
    await vi.waitFor(async () => expect((await f.bus.jsm.consumers.info(stream, durable)).num_ack_pending).toBe(3));
    const stopping = consumer.stop();
    release();
    await stopping;
    expect(handled).toEqual(['a']);
    const taken: string[] = [];
    const replica = await consume(f.bus, {
      contracts: [rawContract(subject, stream)],
      durable,
      logger: f.logger,
      handler: async (message) => void taken.push(message.id),
    });
    consumers.push(replica);
    // Well inside the 30 s ack wait: they were nak'ed, not left to time out.
    await vi.waitFor(() => expect(taken.sort()).toEqual(['b', 'c']), { timeout: 5_000 });
  });

  it('refuses several filter subjects on a server that cannot filter by them', async () => {
    count += 1;
    const stream = `CONSUME_TEST_${count}`;
    await ensureStream(f.bus, { name: stream, subjects: [`relay.multi${count}.v1.>`] });
    await expect(
      consume(f.bus, {
        contracts: [rawContract(`relay.multi${count}.v1.a`, stream), rawContract(`relay.multi${count}.v1.b`, stream)],
        durable: 'multi',
        logger: f.logger,
        handler: async () => {},
      }),
    ).rejects.toThrow(/2\.10/);
  });
});

describe('consume with a batch handler', () => {
  it('hands over the messages that arrived together, in stream order, and acks them all', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const batches: string[][] = [];
    const single = vi.fn(async () => {});
    const { publish, info } = await setup(single, {
      maxBatch: 3,
      batchHandler: async (messages) => {
        batches.push(messages.map((message) => message.id));
        // The first batch holds the handler, so the next messages arrive together.
        if (batches.length === 1) await released;
      },
    });
    await publish('a', { n: 1 });
    await vi.waitFor(() => expect(batches).toEqual([['a']]));
    for (const id of ['b', 'c', 'd', 'e']) await publish(id, {});
    await vi.waitFor(async () => expect((await info()).num_ack_pending).toBe(5));
    release();
    await waitSettled(info);
    expect(batches).toEqual([['a'], ['b', 'c', 'd'], ['e']]);
    expect(single).not.toHaveBeenCalled();
    expect((await info()).num_redelivered).toBe(0);
  });

  it('gives each message the traceparent of its own consumer span', async () => {
    const seen: BusMessage[] = [];
    const { publish, info } = await setup(async () => {}, { batchHandler: async (messages) => void seen.push(...messages) });
    await publish('t', { hello: 'world' });
    await waitSettled(info);
    expect(seen).toEqual([expect.objectContaining({ id: 't', data: { hello: 'world' }, deliveryCount: 1 })]);
    expect(seen[0]).toHaveProperty('traceParent');
  });

  it('when a batch throws, settles each of its messages by the one-message handler', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let batchCalls = 0;
    const single: string[] = [];
    const { subject, publish, info } = await setup(
      async (message) => {
        single.push(message.id);
        if (message.id === 'bad-in-batch') throw new AppError('TEST_INVALID', 'invalid_argument', 'never');
      },
      {
        batchHandler: async (messages) => {
          batchCalls += 1;
          if (batchCalls === 1) return void (await released);
          if (messages.some((message) => message.id === 'bad-in-batch')) throw new Error('one of them is bad');
        },
      },
    );
    await publish('first', {});
    await vi.waitFor(() => expect(batchCalls).toBe(1));
    await publish('good', {});
    await publish('bad-in-batch', {});
    await f.bus.js.publish(subject, 'not json{', { msgID: 'garbled-in-batch' });
    await vi.waitFor(async () => expect((await info()).num_ack_pending).toBe(4));
    release();
    await waitSettled(info);
    expect(single).toEqual(['good', 'bad-in-batch']);
    expect((await info()).num_redelivered).toBe(0);
    expect(f.logs.find((entry) => entry['messageId'] === 'bad-in-batch' && entry.level === 'error')?.code).toBe('TEST_INVALID');
    expect(f.logs.find((entry) => entry['messageId'] === 'garbled-in-batch')?.code).toBe('BUS_MALFORMED_MESSAGE');
  });

  it('stop() waits for the batch in flight and hands the waiting messages back', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const handled: string[] = [];
    const { stream, durable, subject, consumer, publish } = await setup(async () => {}, {
      batchHandler: async (messages) => {
        handled.push(...messages.map((message) => message.id));
        await released;
      },
    });
    await publish('a', {});
    await vi.waitFor(() => expect(handled).toEqual(['a']));
    for (const id of ['b', 'c']) await publish(id, {});
    await vi.waitFor(async () => expect((await f.bus.jsm.consumers.info(stream, durable)).num_ack_pending).toBe(3));
    const stopping = consumer.stop();
    release();
    await stopping;
    expect(handled).toEqual(['a']);
    const taken: string[] = [];
    const replica = await consume(f.bus, {
      contracts: [rawContract(subject, stream)],
      durable,
      logger: f.logger,
      handler: async (message) => void taken.push(message.id),
    });
    consumers.push(replica);
    await vi.waitFor(() => expect(taken.sort()).toEqual(['b', 'c']), { timeout: 5_000 });
  });
});
