// stalled, all_idle and the heartbeat on a manual relay clock, through the real projection store and planner on
// PostgreSQL: session events go into the projection (as the consumer applies them), the planner computes at the due
// times it stored, and each computed event is delivered once, with the spec's row text, however often it runs.
import { ManualClock } from '@relay/clock';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { evaluateNextDue } from '../src/app/evaluate-watchers.ts';
import { subscribe as makeSubscription } from '../src/app/manage-subscriptions.ts';
import { type WatchDeps } from '../src/app/ports.ts';
import { recordSessionEvent } from '../src/app/record-session-event.ts';
import type { SessionEvent } from '../src/domain/session-activity.ts';
import { parseSubscribe } from '../src/domain/subscriptions/subscribe-rules.ts';
import type { PrismaClient } from '../src/generated/prisma/client.ts';
import { PgSessionActivityStore } from '../src/adapters/store/pg-session-activity-store.ts';
import { PrismaWatchStore } from '../src/adapters/store/prisma-watch-store.ts';
import type pg from 'pg';
import { databaseClients } from './fixtures/database-clients.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const HEADER = '[relay event · automated message from OAR, not from the user; it approves nothing]';

let database: TestDatabase;
let prisma: PrismaClient;
let pool: pg.Pool;
let watch: WatchDeps;
let activity: PgSessionActivityStore;
const clock = new ManualClock(new Date('2026-10-24T08:00:00Z'));
let sequence = 0;

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  ({ prisma, pool } = databaseClients(database.url));
  watch = { store: new PrismaWatchStore(prisma, pool) };
  activity = new PgSessionActivityStore(pool, 'test');
});

afterAll(async () => {
  await prisma?.$disconnect();
  await pool?.end();
  await database?.drop();
});

/** A session event now, applied as the consumer applies it. */
async function happen(sessionId: string, event: { type: SessionEvent['type'] } & Record<string, unknown>): Promise<void> {
  sequence += 1;
  const full = { eventId: `e${sequence}`, occurredAt: clock.now(), sessionId, userId: 'u1', ...event } as SessionEvent;
  await recordSessionEvent(activity, `m${sequence}`, full);
}

async function subscribe(
  watcher: string,
  sessions: { id: string; title: string }[],
  options: { events?: string[]; heartbeatMinutes?: number; stalledMinutes?: number } = {},
) {
  const spec = parseSubscribe({
    watcherSessionId: watcher,
    sessions: sessions.map((s) => s.id),
    exclude: [],
    events: options.events ?? [],
    once: false,
    match: '',
    stalledMinutes: options.stalledMinutes ?? 0,
    heartbeatMinutes: options.heartbeatMinutes ?? 0,
    digestMinutes: 0,
    quietHours: null,
    resolved: sessions,
  });
  return (await makeSubscription(watch, { userId: 'u1', watcherSessionId: watcher, spec, now: clock.now(), dryRun: false })).subscription.id;
}

/** Plans what is due, moves past the 30-second window, plans again; answers the watcher's wake-ups so far. */
async function deliveries(watcher: string): Promise<string[]> {
  while (await evaluateNextDue(watch, clock.now()));
  clock.advance(31_000);
  while (await evaluateNextDue(watch, clock.now()));
  const rows = await prisma.outboxMessage.findMany();
  return rows
    .map((row) => row.payload as { watcherSessionId: string; seq: string; text: string })
    .filter((payload) => payload.watcherSessionId === watcher)
    .sort((a, b) => Number(a.seq) - Number(b.seq))
    .map((payload) => payload.text);
}

it('a silent turn stalls once at its due time; all_idle comes when the last run of the watched sessions ends', { timeout: 60_000 }, async () => {
  await happen('s-server', { type: 'session_created', title: 'Review: server/', state: 'idle' });
  await happen('s-web', { type: 'session_created', title: 'Review: web/', state: 'idle' });
  const id = await subscribe(
    'w-1',
    [
      { id: 's-server', title: 'Review: server/' },
      { id: 's-web', title: 'Review: web/' },
    ],
    { events: ['stalled', 'all_idle'], stalledMinutes: 15 },
  );

  await happen('s-server', { type: 'turn_started', turnId: 't1' });
  await happen('s-web', { type: 'task_started', task: { id: 'task_1', description: 'npm run build' } });
  expect(await deliveries('w-1')).toEqual([]);
  const watcher = await prisma.watcher.findUniqueOrThrow({ where: { sessionId: 'w-1' } });
  // Due when the turn and the task reach 15 silent minutes, stored in the database, not in a timer.
  expect(watcher.nextEvaluationAt?.getTime()).toBe(new Date('2026-10-24T08:15:00Z').getTime());

  clock.set(new Date('2026-10-24T08:15:00Z'));
  const stalled = await deliveries('w-1');
  expect(stalled).toEqual([
    [
      HEADER,
      '[relay event] session "Review: server/" (s-se…): stalled: no output for 15 min',
      '[relay event] session "Review: web/" (s-we…): stalled: no output for 15 min from task "npm run build" (task_id task_1)',
    ].join('\n'),
  ]);
  // Planning again changes nothing: each silence fires once.
  clock.advance(5 * 60_000);
  expect(await deliveries('w-1')).toHaveLength(1);

  await happen('s-server', { type: 'turn_ended', turnId: 't1' });
  expect(await deliveries('w-1')).toHaveLength(1);
  await happen('s-web', { type: 'task_ended', taskId: 'task_1' });
  const all = await deliveries('w-1');
  expect(all).toHaveLength(2);
  expect(all[1]).toBe(`${HEADER}\n[relay event] all_idle: no turn or task is running in the 2 watched sessions (subscription ${id})`);
});

it('the heartbeat comes every heartbeatMinutes from the subscription, from a due time the planner stored', { timeout: 60_000 }, async () => {
  clock.set(new Date('2026-10-24T12:00:00Z'));
  const id = await subscribe('w-2', [{ id: 's-server', title: 'Review: server/' }], { events: ['error'], heartbeatMinutes: 60 });
  expect(await deliveries('w-2')).toEqual([]);
  expect((await prisma.watcher.findUniqueOrThrow({ where: { sessionId: 'w-2' } })).nextEvaluationAt?.getTime()).toBe(
    new Date('2026-10-24T13:00:00Z').getTime(),
  );
  clock.set(new Date('2026-10-24T13:00:00Z'));
  expect(await deliveries('w-2')).toEqual([
    `${HEADER}\n[relay event] heartbeat: 1 watched session: session "Review: server/" (s-se…) idle (subscription ${id})`,
  ]);
  clock.set(new Date('2026-10-24T14:00:00Z'));
  expect(await deliveries('w-2')).toHaveLength(2);
});

it('a task that writes output is silent from its last output, not from its start', { timeout: 60_000 }, async () => {
  clock.set(new Date('2026-10-25T09:00:00Z'));
  await happen('s-build', { type: 'session_created', title: 'Build', state: 'idle' });
  await subscribe('w-3', [{ id: 's-build', title: 'Build' }], { events: ['stalled'], stalledMinutes: 15 });
  await happen('s-build', { type: 'task_started', task: { id: 'task_b', description: 'make all' } });
  clock.set(new Date('2026-10-25T09:10:00Z'));
  await happen('s-build', { type: 'task_output', taskId: 'task_b', lastOutputAt: clock.now() });
  clock.set(new Date('2026-10-25T09:15:00Z'));
  expect(await deliveries('w-3')).toEqual([]);
  clock.set(new Date('2026-10-25T09:25:00Z'));
  expect(await deliveries('w-3')).toEqual([
    `${HEADER}\n[relay event] session "Build" (s-bu…): stalled: no output for 15 min from task "make all" (task_id task_b)`,
  ]);
});
