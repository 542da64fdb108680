// The watch consumers hand the store a batch of messages in one transaction: each message counts once (a redelivery in
// the same or a later batch changes nothing), they apply in their order (an archive changes what the messages after it
// match), matching finds the right subscriptions among many of the same user, and the watchers that took an event are
// planned at once, as the planner would have.
import { ManualClock } from '@relay/clock';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseSubscribe } from '../src/domain/subscriptions/subscribe-rules.ts';
import type { WatchInput } from '../src/domain/subscriptions/watch-event.ts';
import type { PrismaClient } from '../src/generated/prisma/client.ts';
import type { OutboxRow } from '@relay/bus';
import { PrismaWatchStore } from '../src/adapters/store/prisma-watch-store.ts';
import { DEFAULT_DELIVERY_TIMINGS } from '../src/domain/delivery/index.ts';
import { EMPTY_WATCHER_STATE } from '../src/domain/subscriptions/plan-watcher.ts';
import { evaluateNextDue } from '../src/app/evaluate-watchers.ts';
import { type IngestItem, ingestWatchEvents } from '../src/app/ingest-watch-events.ts';
import { subscribe as makeSubscription } from '../src/app/manage-subscriptions.ts';
import type pg from 'pg';
import { databaseClients } from './fixtures/database-clients.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

let database: TestDatabase;
let prisma: PrismaClient;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  ({ prisma, pool } = databaseClients(database.url));
});

afterAll(async () => {
  await prisma?.$disconnect();
  await pool?.end();
  await database?.drop();
});

function turnEnd(sessionId: string, eventId: string, occurredAt: Date): WatchInput {
  return {
    type: 'session_events',
    userId: 'u1',
    sessionId,
    senderSessionId: null,
    candidates: [
      {
        sourceEventId: eventId,
        kind: 'turn_end',
        text: `reply ${eventId}`,
        event: {
          id: eventId,
          kind: 'turn_end',
          occurredAt,
          relay: null,
          session: { id: sessionId, title: '' },
          status: 'done',
          text: `reply ${eventId}`,
          promptMessageId: null,
        },
      },
    ],
  };
}

it('applies a batch once and in order, matches among many subscriptions, and plans the watchers that took events', async () => {
  const clock = new ManualClock(new Date('2026-10-24T10:00:00Z'));
  const store = { store: new PrismaWatchStore(prisma, pool) };
  const subscribe = (watcherSessionId: string, sessions: string[]) =>
    makeSubscription(store, {
      userId: 'u1',
      watcherSessionId,
      spec: parseSubscribe({
        watcherSessionId,
        sessions,
        exclude: [],
        events: [],
        once: false,
        match: '',
        stalledMinutes: 0,
        heartbeatMinutes: 0,
        digestMinutes: 0,
        quietHours: null,
        resolved: sessions.filter((id) => id !== 'all').map((id) => ({ id, title: id })),
      }),
      now: clock.now(),
      dryRun: false,
    });
  await subscribe('listing', ['s1', 's2']);
  await subscribe('everything', ['all']);
  // Many more of the same user, watching other sessions: none of them takes these events.
  for (let i = 0; i < 40; i++) await subscribe(`other-${i}`, [`x${i}`, `y${i}`]);
  while (await evaluateNextDue(store, clock.now()));

  const at = clock.now();
  const items: IngestItem[] = [
    { messageId: 'm1', input: turnEnd('s1', 'e1', at), traceParent: null },
    // s2 leaves the list of `listing`; `everything` goes on watching it.
    { messageId: 'm2', input: { type: 'archived', userId: 'u1', sessionId: 's2', occurredAt: at }, traceParent: null },
    { messageId: 'm3', input: turnEnd('s2', 'e3', at), traceParent: null },
    { messageId: 'm1', input: turnEnd('s1', 'e1', at), traceParent: null },
  ];
  const first = await ingestWatchEvents(store, 'test', items, clock.now());
  expect(first.ingested).toBe(3);

  const rows = await prisma.watcherEvent.findMany({ orderBy: [{ watcherSessionId: 'asc' }, { sourceEventId: 'asc' }] });
  expect(rows.map((row) => [row.watcherSessionId, row.sourceEventId])).toEqual([
    ['everything', 'e1'],
    ['everything', 'e3'],
    ['listing', 'e1'],
  ]);
  // Planned at once: released to go when the coalescing window closes, the watcher due then.
  expect(rows.map((row) => row.status)).toEqual(['released', 'released', 'released']);
  expect(first.nextDueAt).toEqual(new Date(at.getTime() + 30_000));
  expect(await store.store.nextDueAt()).toEqual(first.nextDueAt);
  expect(await evaluateNextDue(store, clock.now())).toBe(false);

  // The same messages again (a redelivery after a lost ack): nothing changes.
  expect((await ingestWatchEvents(store, 'test', items, clock.now())).ingested).toBe(0);
  expect(await prisma.watcherEvent.count()).toBe(3);

  // Past the window the planner delivers each watcher its events in one wake-up.
  clock.advance(31_000);
  while (await evaluateNextDue(store, clock.now()));
  const wakeUps = await prisma.outboxMessage.findMany({ where: { subject: 'relay.subscription.v1.cmd.deliver_wakeup' }, orderBy: { id: 'asc' } });
  expect(wakeUps.map((row) => [row.id, (row.payload as { sourceEventIds: string[] }).sourceEventIds])).toEqual([
    ['everything:1', ['e1', 'e3']],
    ['listing:1', ['e1']],
  ]);

  // A source event a watcher already has, in a message of its own (e1, delivered), is left alone; one that comes twice
  // in a batch (e5) is stored once.
  const later = clock.now();
  const again = await ingestWatchEvents(
    store,
    'test',
    [
      { messageId: 'm4', input: turnEnd('s1', 'e1', later), traceParent: null },
      { messageId: 'm5', input: turnEnd('s1', 'e5', later), traceParent: null },
      { messageId: 'm6', input: turnEnd('s1', 'e5', later), traceParent: null },
    ],
    later,
  );
  expect(again.ingested).toBe(3);
  const stored = await prisma.watcherEvent.findMany({ orderBy: [{ watcherSessionId: 'asc' }, { sourceEventId: 'asc' }] });
  expect(stored.map((row) => [row.watcherSessionId, row.sourceEventId, row.status])).toEqual([
    ['everything', 'e1', 'delivered'],
    ['everything', 'e3', 'delivered'],
    ['everything', 'e5', 'released'],
    ['listing', 'e1', 'delivered'],
    ['listing', 'e5', 'released'],
  ]);
  clock.advance(31_000);
  while (await evaluateNextDue(store, clock.now()));
  const next = await prisma.outboxMessage.findMany({
    where: { subject: 'relay.subscription.v1.cmd.deliver_wakeup', id: { endsWith: ':2' } },
    orderBy: { id: 'asc' },
  });
  expect(next.map((row) => [row.id, (row.payload as { sourceEventIds: string[] }).sourceEventIds])).toEqual([
    ['everything:2', ['e5']],
    ['listing:2', ['e5']],
  ]);
});

it('hands the wake-ups a batch enqueued to the publisher once it commits, as the outbox holds them, and none of a batch that rolled back', async () => {
  // Another user than the test above's, whose subscription to all sessions would take the event too.
  const clock = new ManualClock(new Date('2026-10-25T10:00:00Z'));
  const handed: OutboxRow[][] = [];
  // No coalescing window: the batch that stores the event also plans its wake-up.
  const store = { store: new PrismaWatchStore(prisma, pool, (rows) => handed.push([...rows])), timings: { ...DEFAULT_DELIVERY_TIMINGS, coalesceMs: 0 } };
  await makeSubscription(store, {
    userId: 'u2',
    watcherSessionId: 'hot-path',
    spec: parseSubscribe({
      watcherSessionId: 'hot-path',
      sessions: ['h1'],
      exclude: [],
      events: [],
      once: false,
      match: '',
      stalledMinutes: 0,
      heartbeatMinutes: 0,
      digestMinutes: 0,
      quietHours: null,
      resolved: [{ id: 'h1', title: 'h1' }],
    }),
    now: clock.now(),
    dryRun: false,
  });
  while (await evaluateNextDue(store, clock.now()));
  handed.length = 0;

  await ingestWatchEvents(
    store,
    'hot',
    [{ messageId: 'h-m1', input: { ...turnEnd('h1', 'h-e1', clock.now()), userId: 'u2' }, traceParent: null }],
    clock.now(),
  );
  const outbox = await prisma.outboxMessage.findMany({ where: { id: { startsWith: 'hot-path:' } } });
  expect(outbox).toHaveLength(1);
  expect(handed).toEqual([[{ id: outbox[0]!.id, subject: outbox[0]!.subject, payload: outbox[0]!.payload, headers: outbox[0]!.headers }]]);
  expect((handed[0]![0]!.payload as { sourceEventIds: string[] }).sourceEventIds).toEqual(['h-e1']);

  const watcher = { sessionId: 'hot-path', userId: 'u2', state: EMPTY_WATCHER_STATE, seq: 9 };
  const wakeUp = { seq: 9, wakeupId: 'hot-path:9', text: 'never sent', eventIds: [], sourceEventIds: [] };
  await expect(
    store.store.pipelineTransaction(async (tx) => {
      await tx.enqueueWakeUps([{ watcher, wakeUp }], new Map());
      throw new Error('the batch failed');
    }),
  ).rejects.toThrow('the batch failed');
  expect(handed).toHaveLength(1);
  expect(await prisma.outboxMessage.count({ where: { id: 'hot-path:9' } })).toBe(0);
});

it("hands the wake-ups a use case's transaction enqueued to the publisher once it commits, and none of one that rolled back", async () => {
  const handed: OutboxRow[][] = [];
  const store = new PrismaWatchStore(prisma, pool, (rows) => handed.push([...rows]));
  const watcher = { sessionId: 'use-case', userId: 'u3', state: EMPTY_WATCHER_STATE, seq: 1 };
  const wakeUp = (seq: number) => ({ watcher, wakeUp: { seq, wakeupId: `use-case:${seq}`, text: `wake-up ${seq}`, eventIds: [], sourceEventIds: [] } });

  await store.transaction((tx) => tx.enqueueWakeUps([wakeUp(1)], new Map()));
  expect(handed.map((rows) => rows.map((row) => row.id))).toEqual([['use-case:1']]);
  expect(await prisma.outboxMessage.count({ where: { id: 'use-case:1' } })).toBe(1);

  await expect(
    store.transaction(async (tx) => {
      await tx.enqueueWakeUps([wakeUp(2)], new Map());
      throw new Error('the use case failed');
    }),
  ).rejects.toThrow('the use case failed');
  expect(handed).toHaveLength(1);
  expect(await prisma.outboxMessage.count({ where: { id: 'use-case:2' } })).toBe(0);
});
