// A wake-up is a trace of its own that links to each event it carries: the events' consumer spans are stored with
// them (watcher_events.trace_parent), the planner evaluates outside any trace, and the wake-up's span — a root, with
// one link per event — is what its deliver_wakeup command continues. A look that finds nothing due records nothing.
import { ManualClock } from '@relay/clock';
import { tracer } from '@relay/telemetry';
import { recordSpans, type SpanRecorder } from '@relay/telemetry/testing';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseSubscribe } from '../src/domain/subscriptions/subscribe-rules.ts';
import type { PrismaClient } from '../src/generated/prisma/client.ts';
import { PrismaWatchStore } from '../src/adapters/store/prisma-watch-store.ts';
import { evaluateNextDue } from '../src/app/evaluate-watchers.ts';
import { ingestWatchEvent } from '../src/app/ingest-watch-events.ts';
import { subscribe } from '../src/app/manage-subscriptions.ts';
import type pg from 'pg';
import { databaseClients } from './fixtures/database-clients.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

let database: TestDatabase;
let prisma: PrismaClient;
let pool: pg.Pool;
let recorder: SpanRecorder;

beforeAll(async () => {
  recorder = recordSpans();
  database = await createTestDatabase({ migrationsDir });
  ({ prisma, pool } = databaseClients(database.url));
});

afterAll(async () => {
  await prisma?.$disconnect();
  await pool?.end();
  await database?.drop();
  await recorder?.stop();
});

it('a wake-up carrying three events links to the span each came in with, and its command continues the wake-up', async () => {
  const clock = new ManualClock(new Date('2026-10-24T10:00:00Z'));
  const store = { store: new PrismaWatchStore(prisma, pool) };
  const spec = parseSubscribe({
    watcherSessionId: 'watcher',
    sessions: ['worker'],
    exclude: [],
    events: [],
    once: false,
    match: '',
    stalledMinutes: 0,
    heartbeatMinutes: 0,
    digestMinutes: 0,
    quietHours: null,
    resolved: [{ id: 'worker', title: 'Worker' }],
  });
  await subscribe(store, { userId: 'u1', watcherSessionId: 'watcher', spec, now: clock.now(), dryRun: false });
  while (await evaluateNextDue(store, clock.now()));
  recorder.reset();

  // Three turn ends within the 30-second window, each ingested inside its own consumer span.
  const consumers: string[] = [];
  for (let i = 0; i < 3; i++) {
    const occurredAt = clock.now();
    await tracer('test').startActiveSpan(`turn_ended ${i} process`, async (span) => {
      consumers.push(span.spanContext().spanId);
      await ingestWatchEvent(
        store,
        'test',
        `m${i}`,
        {
          type: 'session_events',
          userId: 'u1',
          sessionId: 'worker',
          senderSessionId: null,
          candidates: [
            {
              sourceEventId: `e${i}`,
              kind: 'turn_end',
              text: `reply ${i}`,
              event: {
                id: `e${i}`,
                kind: 'turn_end',
                occurredAt,
                relay: null,
                session: { id: 'worker', title: 'Worker' },
                status: 'done',
                text: `reply ${i}`,
                promptMessageId: null,
              },
            },
          ],
        },
        clock.now(),
      );
      span.end();
    });
    clock.advance(5_000);
  }
  // Past the coalescing window, then past the released events' delivery time.
  for (const step of [31_000, 5 * 60_000]) {
    clock.advance(step);
    while (await evaluateNextDue(store, clock.now()));
  }

  const wakeUps = recorder.spans().filter((span) => span.name === 'wake-up');
  expect(wakeUps).toHaveLength(1);
  const [wakeUp] = wakeUps;
  expect(wakeUp!.parentSpanContext).toBeUndefined();
  expect(wakeUp!.attributes).toMatchObject({ 'relay.session.id': 'watcher', 'relay.wakeup.id': 'watcher:1', 'relay.wakeup.events': 3 });
  expect(wakeUp!.links.map((link) => link.context.spanId).sort()).toEqual([...consumers].sort());

  const command = await prisma.outboxMessage.findFirstOrThrow({ where: { subject: 'relay.subscription.v1.cmd.deliver_wakeup', id: 'watcher:1' } });
  const { traceId, spanId } = wakeUp!.spanContext();
  expect((command.headers as Record<string, string>).traceparent).toBe(`00-${traceId}-${spanId}-01`);

  // Nothing due: the planner's look records no span.
  recorder.reset();
  expect(await evaluateNextDue(store, clock.now())).toBe(false);
  expect(recorder.spans()).toEqual([]);
});
