// messaging.process.duration: every message a durable consumer settles is counted by consumer, subject and
// outcome — ack, nak (redelivered later) or term (given up) — read back from a real MeterProvider.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AppError } from '@relay/errors';
import { recordMetrics, type MetricRecorder } from '@relay/telemetry/testing';
import { consume, ensureStream, type Consumer } from '@relay/bus';
import { startBusFixture, type BusFixture } from './fixtures/bus-fixture.ts';
import { rawContract } from './fixtures/raw-contract.ts';

let f: BusFixture;
let recorder: MetricRecorder;
let consumer: Consumer;
const SUBJECT = 'relay.metered.v1.happened';
const DURABLE = 'metered-consumer';

beforeAll(async () => {
  recorder = recordMetrics();
  f = await startBusFixture();
});

afterAll(async () => {
  await consumer?.stop();
  await f?.close();
  await recorder?.stop();
});

describe('messaging.process.duration', () => {
  it('counts each settled message in seconds by consumer, subject and outcome', async () => {
    const failedOnce = new Set<string>();
    await ensureStream(f.bus, { name: 'METERED', subjects: ['relay.metered.v1.>'] });
    consumer = await consume(f.bus, {
      contracts: [rawContract(SUBJECT, 'METERED')],
      durable: DURABLE,
      logger: f.logger,
      handler: async ({ data }) => {
        const { kind } = data as { kind: string };
        if (kind === 'refused') throw new AppError('REMOTE_RELAY_INVALID_INPUT', 'invalid_argument', 'Never valid.');
        if (kind === 'flaky' && !failedOnce.has(kind)) {
          failedOnce.add(kind);
          throw new Error('database away');
        }
      },
    });
    for (const kind of ['fine', 'flaky', 'refused']) await f.bus.js.publish(SUBJECT, JSON.stringify({ kind }), { msgID: kind });

    const outcomes = async () =>
      Object.fromEntries(
        (await recorder.collect())
          .filter((point) => point.name === 'messaging.process.duration')
          .map((point) => [point.attributes['relay.bus.outcome'], point]),
      );
    // The flaky message comes back after its 1 s nak delay and is acked then.
    await vi.waitFor(async () => expect((await outcomes())['ack']?.count).toBe(2), { timeout: 15_000 });
    const settled = await outcomes();
    expect(settled['nak']?.count).toBe(1);
    expect(settled['term']?.count).toBe(1);
    expect(settled['ack']).toMatchObject({
      unit: 's',
      attributes: { 'messaging.system': 'nats', 'messaging.consumer.group.name': DURABLE, 'messaging.destination.name': SUBJECT },
    });
  });
});
