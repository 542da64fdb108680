// relay.outbox.pending and relay.outbox.oldest.age: an outbox that stops draining (here: a subject no stream takes,
// as when NATS is away or a stream is missing) shows as rows pending and an age that grows; once the stream is there
// it drains and both go back to 0. Read from a real MeterProvider, as an exporter reads them.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { recordMetrics, type MetricRecorder } from '@relay/telemetry/testing';
import { enqueue, ensureStream, OutboxRelay } from '@relay/bus';
import { startBusFixture, type BusFixture } from './fixtures/bus-fixture.ts';
import { transaction } from './fixtures/pg-sql.ts';
import { rawContract } from './fixtures/raw-contract.ts';

let f: BusFixture;
let recorder: MetricRecorder;
let relay: OutboxRelay | undefined;

beforeAll(async () => {
  recorder = recordMetrics();
  f = await startBusFixture();
});

afterAll(async () => {
  await relay?.stop();
  await f?.close();
  await recorder?.stop();
});

const backlog = async () => {
  const points = await recorder.collect();
  return {
    pending: points.find((point) => point.name === 'relay.outbox.pending')?.value,
    age: points.find((point) => point.name === 'relay.outbox.oldest.age')?.value,
    unit: points.find((point) => point.name === 'relay.outbox.oldest.age')?.unit,
  };
};

describe('the outbox backlog gauges', () => {
  it('report rows that cannot be published and how long the oldest waited, then 0 once they drain', async () => {
    await f.db.$executeRawUnsafe('DELETE FROM "outbox"');
    const contract = rawContract('relay.backlog.v1.happened', 'BACKLOG');
    await transaction(f.pool, async (tx) => {
      await enqueue(tx, contract, { n: 1 });
      await enqueue(tx, contract, { n: 2 });
    });
    relay = new OutboxRelay({ db: f.db, bus: f.bus, logger: f.logger, pollIntervalMs: 200 });
    relay.start();

    const first = await backlog();
    expect(first).toMatchObject({ pending: 2, unit: 's' });
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const later = await backlog();
    expect(later.pending).toBe(2);
    expect(later.age).toBeGreaterThan(1);
    expect(later.age!).toBeGreaterThan(first.age!);

    await ensureStream(f.bus, { name: 'BACKLOG', subjects: ['relay.backlog.v1.>'] });
    await vi.waitFor(async () => expect(await backlog()).toMatchObject({ pending: 0, age: 0 }), { timeout: 15_000 });
  });
});
