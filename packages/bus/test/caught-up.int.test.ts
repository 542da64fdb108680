// caughtUp against a real nats-server: it answers once the durable consumer has handled what the stream held
// for it, a message being retried included, however slow the handler; not before.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { caughtUp, consume, ensureStream, type Consumer } from '@relay/bus';
import { startBusFixture, type BusFixture } from './fixtures/bus-fixture.ts';
import { rawContract } from './fixtures/raw-contract.ts';

let f: BusFixture;
const consumers: Consumer[] = [];

beforeAll(async () => {
  f = await startBusFixture();
  await ensureStream(f.bus, { name: 'CAUGHT_UP_TEST', subjects: ['relay.caughtup.v1.>'] });
});

afterAll(async () => {
  for (const consumer of consumers) await consumer.stop();
  await f?.close();
});

const never = new AbortController().signal;

it('answers once every message that waited is handled: a slow handler, and one failing once and retried', async () => {
  for (let n = 1; n <= 5; n++) await f.bus.js.publish('relay.caughtup.v1.backlog', JSON.stringify({ n }));
  // Another subject of the stream, which this consumer does not take, published last.
  await f.bus.js.publish('relay.caughtup.v1.other', JSON.stringify({ n: 0 }));
  const handled: number[] = [];
  let failedOnce = false;
  consumers.push(
    await consume(f.bus, {
      contracts: [rawContract('relay.caughtup.v1.backlog', 'CAUGHT_UP_TEST')],
      durable: 'caught-up-backlog',
      logger: f.logger,
      handler: async (message) => {
        const { n } = message.data as { n: number };
        if (n === 3 && !failedOnce) {
          failedOnce = true;
          throw new Error('fails once, redelivered after its backoff');
        }
        await new Promise((resolve) => setTimeout(resolve, 40));
        handled.push(n);
      },
    }),
  );
  expect(await caughtUp(f.bus, 'CAUGHT_UP_TEST', 'caught-up-backlog', never)).toBe(true);
  expect(handled.sort()).toEqual([1, 2, 3, 4, 5]);
});

it('answers at once for a consumer with nothing waiting, and false when stopped before it catches up', async () => {
  consumers.push(
    await consume(f.bus, {
      contracts: [rawContract('relay.caughtup.v1.idle', 'CAUGHT_UP_TEST')],
      durable: 'caught-up-idle',
      logger: f.logger,
      handler: async () => {},
    }),
  );
  expect(await caughtUp(f.bus, 'CAUGHT_UP_TEST', 'caught-up-idle', never)).toBe(true);

  await f.bus.js.publish('relay.caughtup.v1.stuck', JSON.stringify({ n: 1 }));
  consumers.push(
    await consume(f.bus, {
      contracts: [rawContract('relay.caughtup.v1.stuck', 'CAUGHT_UP_TEST')],
      durable: 'caught-up-stuck',
      logger: f.logger,
      handler: async () => {
        throw new Error('keeps failing');
      },
    }),
  );
  const stopping = new AbortController();
  const waiting = caughtUp(f.bus, 'CAUGHT_UP_TEST', 'caught-up-stuck', stopping.signal);
  stopping.abort();
  expect(await waiting).toBe(false);
});
