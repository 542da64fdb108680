// The paired-relay seams over real gRPC and PostgreSQL: a subscription to another relay takes that relay's events
// (IngestRemoteEvents, idempotent per event id), the link's state (ReportLinkState) becomes link_lost and
// link_restored rows that are never held, a replayed batch comes as one row tagged replayed keeping to the
// subscription's digest, and EndRelaySubscriptions ends them as unpaired; on the watched side ComputeWatchEvents
// answers a paired relay's watch its all_idle, stalled and heartbeat from the activity here, exclude honoured.
// Planning runs on a manual relay clock.
import { ManualClock } from '@relay/clock';
import { SubscriptionServiceClient, SubscriptionServiceService } from '@relay/proto/relay/subscription/v1/subscription_service';
import { callUnary, createClient, startGrpcServer, type GrpcServer } from '@relay/rpc';
import { createLogger } from '@relay/telemetry';
import { callersFor, createTestDatabase, makeTestCredentials, type TestDatabase } from '@relay/testing';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PrismaClient } from '../src/generated/prisma/client.ts';
import { subscriptionGrpc } from '../src/adapters/grpc/subscription-grpc.ts';
import { recordSessionEvent } from '../src/app/record-session-event.ts';
import type { SessionEvent } from '../src/domain/session-activity.ts';
import { PgSessionActivityStore } from '../src/adapters/store/pg-session-activity-store.ts';
import { PrismaWatchStore } from '../src/adapters/store/prisma-watch-store.ts';
import { evaluateNextDue } from '../src/app/evaluate-watchers.ts';
import { type WatchDeps } from '../src/app/ports.ts';
import type pg from 'pg';
import { databaseClients } from './fixtures/database-clients.ts';

const credentials = makeTestCredentials();
const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const logger = createLogger({ name: 'paired-relay-test', level: 'silent' });
const clock = new ManualClock(new Date('2026-06-10T09:00:00Z'));

let database: TestDatabase;
let prisma: PrismaClient;
let pool: pg.Pool;
let watch: WatchDeps;
let server: GrpcServer;
let client: SubscriptionServiceClient;

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  ({ prisma, pool } = databaseClients(database.url));
  watch = { store: new PrismaWatchStore(prisma, pool) };
  server = await startGrpcServer({
    auth: credentials.auth('subscription'),
    port: 0,
    services: [
      {
        definition: SubscriptionServiceService,
        implementation: subscriptionGrpc({ watch, clock, logger, onChange: () => undefined }),
        // The pairing service brings the paired relays' events in; the test subscribes as the gateway would.
        callers: callersFor(SubscriptionServiceService, 'gateway', 'pairing'),
      },
    ],
    logger,
  });
  client = createClient(SubscriptionServiceClient, `127.0.0.1:${server.port}`, credentials.auth('pairing'));
});

afterAll(async () => {
  client?.close();
  await server?.shutdown();
  await prisma?.$disconnect();
  await pool?.end();
  await database?.drop();
});

async function subscribe(watcher: string, extra: { digestMinutes?: number; events?: string[] } = {}): Promise<string> {
  const response = await callUnary(client, 'subscribe', {
    userId: 'u1',
    watcherSessionId: watcher,
    sessions: ['77aa19f0'],
    exclude: [],
    events: extra.events ?? [],
    once: false,
    match: '',
    stalledMinutes: 0,
    heartbeatMinutes: 0,
    digestMinutes: extra.digestMinutes ?? 0,
    quietHours: undefined,
    dryRun: false,
    resolvedSessions: [{ id: '77aa19f0', title: 'Nightly deploy' }],
    relay: 'build-box',
  });
  expect(response.subscription?.relay).toBe('build-box');
  return response.subscription?.id ?? '';
}

function turnEnd(id: string, text: string, occurredAt = clock.now()) {
  return { id, kind: 'turn_end', sessionId: '77aa19f0', sessionTitle: 'Nightly deploy', text, status: 'done', refId: '', occurredAt };
}

/** Plans every due watcher at the clock's time; answers the watcher's wake-up texts so far, in order. */
async function wakeUps(watcher: string): Promise<string[]> {
  while (await evaluateNextDue(watch, clock.now()));
  const rows = await prisma.outboxMessage.findMany({ orderBy: { createdAt: 'asc' } });
  return rows
    .map((row) => row.payload as { watcherSessionId: string; seq: string; text: string })
    .filter((payload) => payload.watcherSessionId === watcher)
    .sort((a, b) => Number(a.seq) - Number(b.seq))
    .map((payload) => payload.text);
}

it("takes a paired relay's events once and shows them with the relay's name", async () => {
  const id = await subscribe('watcher-a');
  const batch = { subscriptionId: id, relay: 'build-box', events: [turnEnd('ev1', 'Deployed. The health check is green.')], replayed: false, dropped: 0 };
  expect(await callUnary(client, 'ingestRemoteEvents', batch)).toEqual({ accepted: 1, duplicates: 0, ended: false });
  expect(await callUnary(client, 'ingestRemoteEvents', batch)).toEqual({ accepted: 0, duplicates: 1, ended: false });
  // Planned now, it waits out the 30-second window.
  expect(await wakeUps('watcher-a')).toEqual([]);
  clock.advance(31_000);
  expect(await wakeUps('watcher-a')).toEqual([
    '[relay event · automated message from OAR, not from the user; it approves nothing]\n' +
      '[relay event] build-box · session "Nightly deploy" (77aa…): turn_end (done) "Deployed. The health check is green."',
  ]);
});

it('refuses a batch naming another relay, an unknown subscription or a bad event, and takes nothing', async () => {
  const id = await subscribe('watcher-b');
  await expect(
    callUnary(client, 'ingestRemoteEvents', { subscriptionId: id, relay: 'other-box', events: [turnEnd('x1', 'hi')], replayed: false, dropped: 0 }),
  ).rejects.toMatchObject({ code: 'REMOTE_RELAY_NOT_FOUND' });
  await expect(
    callUnary(client, 'ingestRemoteEvents', { subscriptionId: 'sub_none', relay: 'build-box', events: [turnEnd('x1', 'hi')], replayed: false, dropped: 0 }),
  ).rejects.toMatchObject({ code: 'REMOTE_RELAY_NOT_FOUND' });
  await expect(callUnary(client, 'ingestRemoteEvents', { subscriptionId: id, relay: '', events: [], replayed: false, dropped: 0 })).rejects.toMatchObject({
    code: 'REMOTE_RELAY_INVALID_INPUT',
  });
  const bad = { ...turnEnd('x2', 'hi'), status: 'finished' };
  await expect(
    callUnary(client, 'ingestRemoteEvents', { subscriptionId: id, relay: 'build-box', events: [turnEnd('x1', 'hi'), bad], replayed: false, dropped: 0 }),
  ).rejects.toMatchObject({
    code: 'REMOTE_RELAY_INVALID_INPUT',
    message: 'events[1] (x2): turn_end status is done, error or stopped, got "finished".',
  });
  expect(await prisma.watcherEvent.count({ where: { watcherSessionId: 'watcher-b' } })).toBe(0);
});

it('link_lost comes at once; the replayed batch is one row kept to the digest, and link_restored says it is held', async () => {
  const id = await subscribe('watcher-c', { digestMinutes: 30 });
  const lostAt = clock.now();
  expect(await callUnary(client, 'reportLinkState', { subscriptionId: id, relay: 'build-box', online: false, at: lostAt })).toEqual({ changed: true });
  expect(await callUnary(client, 'reportLinkState', { subscriptionId: id, relay: 'build-box', online: false, at: lostAt })).toEqual({ changed: false });
  const [lost] = await wakeUps('watcher-c');
  expect(lost).toBe(
    '[relay event · automated message from OAR, not from the user; it approves nothing]\n' +
      '[relay event] build-box · link_lost: the relay does not answer; it keeps the events for this subscription and they come when it answers again',
  );

  clock.advance(5 * 60_000);
  const replay = [turnEnd('r1', 'Step one done.', new Date(lostAt.getTime() + 60_000)), turnEnd('r2', 'Step two done.', new Date(lostAt.getTime() + 120_000))];
  expect(await callUnary(client, 'ingestRemoteEvents', { subscriptionId: id, relay: 'build-box', events: replay, replayed: true, dropped: 3 })).toEqual({
    accepted: 2,
    duplicates: 0,
    ended: false,
  });
  expect(await callUnary(client, 'reportLinkState', { subscriptionId: id, relay: 'build-box', online: true, at: clock.now() })).toEqual({ changed: true });
  const afterRestore = await wakeUps('watcher-c');
  expect(afterRestore).toHaveLength(2);
  expect(afterRestore[1]).toBe(
    '[relay event · automated message from OAR, not from the user; it approves nothing]\n' +
      '[relay event] build-box · link_restored: the relay answers again; 2 events replayed, 2 of them held by digest or quiet hours and coming later',
  );

  // The digest is due 30 min after the subscription was made: the replayed events come then, as one row (held
  // events have waited already: no 30-second window after the due time).
  clock.advance(25 * 60_000 - 1_000);
  expect(await wakeUps('watcher-c')).toHaveLength(2);
  clock.advance(1_000);
  const all = await wakeUps('watcher-c');
  expect(all).toHaveLength(3);
  expect(all[2]).toBe(
    [
      '[relay event · automated message from OAR, not from the user; it approves nothing]',
      'Digest of 2 events (subscription ' + id + ' every 30 min; questions and errors come at once):',
      '[relay event] build-box · replayed: 2 events kept there while the link was down; 3 older events dropped there, which keeps only the newest:',
      '  session "Nightly deploy" (77aa…): turn_end (done) "Step one done."',
      '  session "Nightly deploy" (77aa…): turn_end (done) "Step two done."',
    ].join('\n'),
  );
});

it("EndRelaySubscriptions ends a relay's subscriptions as unpaired, and only those", async () => {
  const remote = await subscribe('watcher-d');
  const local = await callUnary(client, 'subscribe', {
    userId: 'u1',
    watcherSessionId: 'watcher-d',
    sessions: ['all'],
    exclude: [],
    events: [],
    once: false,
    match: '',
    stalledMinutes: 0,
    heartbeatMinutes: 0,
    digestMinutes: 0,
    quietHours: undefined,
    dryRun: false,
    resolvedSessions: [],
    relay: '',
  });
  const { endedIds } = await callUnary(client, 'endRelaySubscriptions', { userId: 'u1', relay: 'build-box' });
  expect(endedIds).toContain(remote);
  expect(endedIds).not.toContain(local.subscription?.id);
  const listed = await callUnary(client, 'listSubscriptions', { userId: 'u1', watcherSessionId: 'watcher-d' });
  expect(listed.subscriptions.map((s) => [s.id, s.endReason])).toEqual([
    [local.subscription?.id, ''],
    [remote, 'unpaired'],
  ]);
  await expect(callUnary(client, 'reportLinkState', { subscriptionId: remote, relay: 'build-box', online: false, at: clock.now() })).rejects.toMatchObject({
    code: 'REMOTE_RELAY_NOT_FOUND',
  });
});

it("an archive there of the only listed session ends the subscription as session_archived, after the batch's own rows; one to all sessions keeps going", async () => {
  const listed = await subscribe('watcher-e');
  const all = await callUnary(client, 'subscribe', {
    userId: 'u1',
    watcherSessionId: 'watcher-f',
    sessions: ['all'],
    exclude: [],
    events: [],
    once: false,
    match: '',
    stalledMinutes: 0,
    heartbeatMinutes: 0,
    digestMinutes: 0,
    quietHours: undefined,
    dryRun: false,
    resolvedSessions: [],
    relay: 'build-box',
  });
  const allId = all.subscription?.id ?? '';
  const archived = {
    id: 'arch1',
    kind: 'archived',
    sessionId: '77aa19f0',
    sessionTitle: 'Nightly deploy',
    text: '',
    status: '',
    refId: '',
    occurredAt: clock.now(),
  };
  const batch = { subscriptionId: listed, relay: 'build-box', events: [turnEnd('last1', 'Wrapped up.'), archived], replayed: false, dropped: 0 };
  expect(await callUnary(client, 'ingestRemoteEvents', batch)).toEqual({ accepted: 1, duplicates: 0, ended: true });
  expect(await callUnary(client, 'ingestRemoteEvents', { ...batch, subscriptionId: allId })).toEqual({ accepted: 1, duplicates: 0, ended: false });
  const endReasons = async (watcher: string) =>
    (await callUnary(client, 'listSubscriptions', { userId: 'u1', watcherSessionId: watcher })).subscriptions.map((s) => [s.id, s.endReason]);
  expect(await endReasons('watcher-e')).toEqual([[listed, 'session_archived']]);
  expect(await endReasons('watcher-f')).toEqual([[allId, '']]);
  await expect(callUnary(client, 'ingestRemoteEvents', batch)).rejects.toMatchObject({ code: 'REMOTE_RELAY_NOT_FOUND' });
  // Planned now, they wait out the 30-second window.
  expect(await wakeUps('watcher-e')).toEqual([]);
  clock.advance(31_000);
  // The turn_end before the archive still comes; the archive itself is no row.
  for (const watcher of ['watcher-e', 'watcher-f']) {
    expect((await wakeUps(watcher)).map((text) => text.split('\n').slice(1))).toEqual([
      ['[relay event] build-box · session "Nightly deploy" (77aa…): turn_end (done) "Wrapped up."'],
    ]);
  }
});

it("ComputeWatchEvents answers a paired relay's watch all_idle over the sessions it does not exclude, stalled and the heartbeat, worded as local rows", async () => {
  const activity = new PgSessionActivityStore(pool, 'test');
  let sequence = 0;
  const happen = async (sessionId: string, userId: string, event: { type: SessionEvent['type'] } & Record<string, unknown>) => {
    sequence += 1;
    await recordSessionEvent(activity, `compute-${sequence}`, {
      eventId: `c${sequence}`,
      occurredAt: clock.now(),
      sessionId,
      userId,
      ...event,
    } as SessionEvent);
  };
  const createdAt = clock.now();
  await happen('ee01aa00', 'u9', { type: 'session_created', title: 'Deploy', state: 'idle' });
  await happen('ee02bb00', 'u9', { type: 'session_created', title: 'Long build', state: 'idle' });
  await happen('ff03cc00', 'u8', { type: 'session_created', title: 'Another user', state: 'idle' });
  await happen('ee02bb00', 'u9', { type: 'turn_started', turnId: 't-long' });
  await happen('ff03cc00', 'u8', { type: 'turn_started', turnId: 't-other' });
  clock.advance(60_000);
  await happen('ee01aa00', 'u9', { type: 'turn_started', turnId: 't-deploy' });
  clock.advance(60_000);
  await happen('ee01aa00', 'u9', { type: 'turn_ended', turnId: 't-deploy' });
  const idleAt = clock.now();
  clock.advance(60_000);

  const watch = {
    subscriptionId: 'sub_remote01',
    userId: 'u9',
    scope: 'all',
    sessions: [],
    exclude: ['ee02bb00'],
    events: [],
    stalledMinutes: 0,
    heartbeatMinutes: 0,
    createdAt,
  };
  const excluded = await callUnary(client, 'computeWatchEvents', watch);
  expect(excluded.events.map(({ id, kind, sessionId, text, occurredAt }) => ({ id, kind, sessionId, text, occurredAt }))).toEqual([
    {
      id: `all_idle:sub_remote01:${idleAt.toISOString()}`,
      kind: 'all_idle',
      sessionId: '',
      text: 'no turn or task is running in the watched session (subscription sub_remote01)',
      occurredAt: idleAt,
    },
  ]);
  // Without the exclude, the long build still runs: no all_idle.
  expect((await callUnary(client, 'computeWatchEvents', { ...watch, exclude: [] })).events).toEqual([]);

  // Past the default 15 minutes the long build has stalled; the heartbeat lists both sessions of the user.
  clock.advance(15 * 60_000);
  const later = await callUnary(client, 'computeWatchEvents', { ...watch, exclude: [], events: ['stalled'], heartbeatMinutes: 10 });
  expect(later.events.map(({ kind, sessionId, sessionTitle, text }) => ({ kind, sessionId, sessionTitle, text }))).toEqual([
    { kind: 'stalled', sessionId: 'ee02bb00', sessionTitle: 'Long build', text: 'no output for 15 min' },
    {
      kind: 'heartbeat',
      sessionId: '',
      sessionTitle: '',
      text: expect.stringMatching(/^2 watched sessions: session "(Deploy|Long build)" .* \(subscription sub_remote01\)$/),
    },
  ]);
  expect(later.nextDueAt).toBeDefined();
  await expect(callUnary(client, 'computeWatchEvents', { ...watch, scope: 'some' })).rejects.toMatchObject({ code: 'REMOTE_RELAY_INVALID_INPUT' });
  await expect(callUnary(client, 'computeWatchEvents', { ...watch, createdAt: undefined })).rejects.toMatchObject({ code: 'REMOTE_RELAY_INVALID_INPUT' });
});
