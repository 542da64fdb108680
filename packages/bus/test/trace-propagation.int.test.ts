import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { shutdownTelemetry } from '@relay/telemetry';
import { startTelemetry } from '@relay/telemetry/start';
import { consume, ensureStream, enqueue, OutboxRelay, type Consumer } from '@relay/bus';
import { startBusFixture, type BusFixture } from './fixtures/bus-fixture.ts';
import { transaction } from './fixtures/pg-sql.ts';
import { rawContract } from './fixtures/raw-contract.ts';

const exporter = new InMemorySpanExporter();
let f: BusFixture;
let consumer: Consumer | undefined;

beforeAll(async () => {
  startTelemetry({ serviceName: 'bus-test', spanProcessors: [new SimpleSpanProcessor(exporter)] });
  f = await startBusFixture();
});

afterAll(async () => {
  await consumer?.stop();
  await f?.close();
  await shutdownTelemetry();
});

it('continues the enqueuing trace through a PRODUCER span to the CONSUMER span and the handler', async () => {
  const subject = 'relay.traced.v1.created';
  await ensureStream(f.bus, { name: 'TRACED', subjects: ['relay.traced.v1.>'] });
  const tracer = trace.getTracer('bus-test');
  consumer = await consume(f.bus, {
    contracts: [rawContract(subject, 'TRACED')],
    durable: 'traced-test',
    logger: f.logger,
    handler: async () => {
      tracer.startSpan('handler work').end();
    },
  });

  const messageId = await tracer.startActiveSpan('request', async (span) => {
    try {
      return await transaction(f.pool, (tx) => enqueue(tx, rawContract(subject), { n: 1 }));
    } finally {
      span.end();
    }
  });
  // The relay runs outside any request: only the stored traceparent links it to the enqueuer.
  await new OutboxRelay({ db: f.db, bus: f.bus, logger: f.logger }).flush();

  const byName = (name: string): ReadableSpan | undefined => exporter.getFinishedSpans().find((span) => span.name === name);
  await vi.waitFor(() => expect(byName('handler work')).toBeDefined());
  await vi.waitFor(() => expect(byName(`${subject} process`)).toBeDefined());
  const request = byName('request')!;
  const publish = byName(`${subject} publish`)!;
  const process = byName(`${subject} process`)!;
  const work = byName('handler work')!;

  const traceId = request.spanContext().traceId;
  for (const span of [publish, process, work]) expect(span.spanContext().traceId).toBe(traceId);
  expect(publish.kind).toBe(SpanKind.PRODUCER);
  expect(publish.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
  expect(process.kind).toBe(SpanKind.CONSUMER);
  expect(process.parentSpanContext?.spanId).toBe(publish.spanContext().spanId);
  expect(work.parentSpanContext?.spanId).toBe(process.spanContext().spanId);

  for (const span of [publish, process]) {
    expect(span.attributes).toMatchObject({
      'messaging.system': 'nats',
      'messaging.destination.name': subject,
      'messaging.message.id': messageId,
      'relay.bus.subject': subject,
      'relay.bus.message_id': messageId,
    });
  }
  expect(process.attributes).toMatchObject({ 'relay.bus.consumer': 'traced-test', 'relay.bus.delivery_count': 1 });

  // The outbox row keeps the enqueuer's context: that is how the link survives a restart of the relay.
  const rows = await f.db.$queryRawUnsafe<{ headers: Record<string, string> }[]>('SELECT "headers" FROM "outbox" WHERE "id" = $1', messageId);
  expect(rows[0]?.headers['traceparent']).toContain(traceId);
});
