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
import { PrismaWatchStore } from '../src/adapters/store/prisma-watch-store.ts';
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
        event: { id: eventId, kind: 'turn_end', occurredAt, relay: null, session: { id: sessionId, title: '' }, status: 'done', text: `reply ${eventId}`, promptMessageId: null },
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
        watcherSessionId, sessions, exclude: [], events: [], once: false, match: '', stalledMinutes: 0, heartbeatMinutes: 0, digestMinutes: 0, quietHours: null,
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
  const again = await ingestWatchEvents(store, 'test', [
    { messageId: 'm4', input: turnEnd('s1', 'e1', later), traceParent: null },
    { messageId: 'm5', input: turnEnd('s1', 'e5', later), traceParent: null },
    { messageId: 'm6', input: turnEnd('s1', 'e5', later), traceParent: null },
  ], later);
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
  const next = await prisma.outboxMessage.findMany({ where: { subject: 'relay.subscription.v1.cmd.deliver_wakeup', id: { endsWith: ':2' } }, orderBy: { id: 'asc' } });
  expect(next.map((row) => [row.id, (row.payload as { sourceEventIds: string[] }).sourceEventIds])).toEqual([
    ['everything:2', ['e5']],
    ['listing:2', ['e5']],
  ]);
});
