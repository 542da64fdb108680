// The watched side of events across relays, in the pairing service as a real process against a real PostgreSQL
// and nats-server: a paired relay's watch keeps our sessions' turn ends and questions from SESSION_EVENTS (its own
// sessions only, exclude honoured), each once, with consecutive seqs; a fetch acknowledges what it asks past; past
// the buffer's cap (500, the production default) the oldest are dropped and counted; ending a watch drops it.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { connectBus, ensureStream, type Bus } from '@relay/bus';
import { RemoteEventsServiceClient } from '@relay/proto/relay/pairing/v1/remote_events';
import { QuestionAsked, SessionArchived, TaskEnded, TurnEnded } from '@relay/proto/relay/session/v1/events';
import { Task, TurnStatus } from '@relay/proto/relay/session/v1/session';
import { callUnary, checkHealth, createClient } from '@relay/rpc';
import { createLogger } from '@relay/telemetry';
import { createTestDatabase, freePort, makeTestCredentials, startNats, type NatsServer, type TestDatabase } from '@relay/testing';

const credentials = makeTestCredentials();
const serviceDir = fileURLToPath(new URL('..', import.meta.url));
const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

let nats: NatsServer;
let database: TestDatabase;
let bus: Bus;
let child: ChildProcess;
let client: RemoteEventsServiceClient;
let output = '';
let published = 0;

beforeAll(async () => {
  let port: number;
  [nats, database, port] = await Promise.all([startNats(), createTestDatabase({ migrationsDir }), freePort()]);
  const address = `127.0.0.1:${port}`;
  bus = await connectBus({
    url: nats.url,
    name: 'remote-watches-test',
    ...nats.credentials('session'),
    logger: createLogger({ name: 'remote-watches-test', level: 'silent' }),
  });
  await ensureStream(bus, { name: 'SESSION_EVENTS', subjects: ['relay.session.v1.>'] });
  child = spawn(process.execPath, ['--enable-source-maps', '--import', './dist/register.js', 'dist/main.js'], {
    cwd: serviceDir,
    // No subscription service here: the compute loop (stalled, all_idle, heartbeat; remote-compute-loop.int.test)
    // makes its first pass before any watch exists and none during the test.
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: database.url,
      ...nats.env('pairing'),
      ...credentials.env('pairing'),
      GRPC_PORT: String(port),
      LOG_LEVEL: 'warn',
      REMOTE_COMPUTE_INTERVAL_MS: '60000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  await vi.waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}):\n${output}`);
      expect(await checkHealth(address, 'relay.pairing.v1.RemoteEventsService')).toBe(true);
    },
    { timeout: 30_000, interval: 100 },
  );
  client = createClient(RemoteEventsServiceClient, address, credentials.auth('gateway'));
});

afterAll(async () => {
  client?.close();
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await bus?.close();
  await nats?.stop();
  await database?.drop();
});

async function turnEnded(userId: string, sessionId: string, text: string, status = TurnStatus.TURN_STATUS_DONE): Promise<string> {
  published += 1;
  const eventId = `evt-turn-${published}`;
  const payload = TurnEnded.toJSON({
    eventId,
    occurredAt: new Date(),
    sessionId,
    userId,
    turnId: `turn-${published}`,
    messageId: `msg-${published}`,
    status,
    text,
    senderSessionId: '',
  });
  await bus.js.publish('relay.session.v1.turn_ended', JSON.stringify(payload), { msgID: eventId });
  return eventId;
}

async function questionAsked(userId: string, sessionId: string, question: string): Promise<string> {
  published += 1;
  const eventId = `evt-question-${published}`;
  const payload = QuestionAsked.toJSON({
    eventId,
    occurredAt: new Date(),
    sessionId,
    userId,
    question: { id: `q-${published}`, kind: 'ask_user', question, options: [] },
  });
  await bus.js.publish('relay.session.v1.question_asked', JSON.stringify(payload), { msgID: eventId });
  return eventId;
}

function fetch(relay: string, id: string, after: number) {
  return callUnary(client, 'fetchWatchEvents', { relay, id, after });
}

const watch = (relay: string, id: string, fields: { userId: string; scope: string; sessions?: { id: string; title: string }[]; exclude?: string[] }) =>
  callUnary(client, 'keepWatch', { relay, id, sessions: [], exclude: [], events: [], stalledMinutes: 0, heartbeatMinutes: 0, ...fields });

it("keeps the listed sessions' turn ends (and a failed turn's error) and questions, in order, titled", async () => {
  await watch('desk', 'sub_listed', { userId: 'u1', scope: 'sessions', sessions: [{ id: 's1', title: 'Nightly deploy' }] });
  await watch('desk', 'sub_listed', { userId: 'u1', scope: 'sessions', sessions: [{ id: 's1', title: 'Renamed later' }] });
  const first = await turnEnded('u1', 's1', 'Deployed. The health check is green.');
  await turnEnded('u1', 's2', 'another session');
  await turnEnded('u2', 's1', 'another user');
  const asked = await questionAsked('u1', 's1', 'Roll back?');
  const failed = await turnEnded('u1', 's1', 'boom', TurnStatus.TURN_STATUS_ERROR);
  await vi.waitFor(async () => expect((await fetch('desk', 'sub_listed', 0)).events).toHaveLength(4), { timeout: 15_000, interval: 100 });

  const page = await fetch('desk', 'sub_listed', 0);
  expect(
    page.events.map(({ seq, id, kind, sessionId, sessionTitle, text, status, refId }) => ({ seq, id, kind, sessionId, sessionTitle, text, status, refId })),
  ).toEqual([
    {
      seq: 1,
      id: first,
      kind: 'turn_end',
      sessionId: 's1',
      sessionTitle: 'Nightly deploy',
      text: 'Deployed. The health check is green.',
      status: 'done',
      refId: '',
    },
    {
      seq: 2,
      id: asked,
      kind: 'question_asked',
      sessionId: 's1',
      sessionTitle: 'Nightly deploy',
      text: 'Roll back?',
      status: '',
      refId: `q-${asked.split('-').pop()}`,
    },
    { seq: 3, id: failed, kind: 'turn_end', sessionId: 's1', sessionTitle: 'Nightly deploy', text: 'boom', status: 'error', refId: '' },
    { seq: 4, id: `${failed}:error`, kind: 'error', sessionId: 's1', sessionTitle: 'Nightly deploy', text: 'boom', status: '', refId: '' },
  ]);
  expect(page).toMatchObject({ cursor: 4, dropped: 0, userId: 'u1' });

  // Asking past seq 2 acknowledges 1 and 2: they are not answered again.
  const later = await turnEnded('u1', 's1', 'later');
  await vi.waitFor(async () => expect((await fetch('desk', 'sub_listed', 2)).cursor).toBe(5), { timeout: 15_000, interval: 100 });
  expect((await fetch('desk', 'sub_listed', 2)).events.map((event) => event.seq)).toEqual([3, 4, 5]);
  expect((await fetch('desk', 'sub_listed', 0)).events.map((event) => event.id)).toEqual([failed, `${failed}:error`, later]);
});

it('keeps a task that exited non-zero as task_failed with its exit code and task id', async () => {
  await watch('desk', 'sub_tasks', { userId: 'u5', scope: 'sessions', sessions: [{ id: 's5', title: 'Tests' }] });
  published += 1;
  const eventId = `evt-task-${published}`;
  const payload = TaskEnded.toJSON({
    eventId,
    occurredAt: new Date(),
    sessionId: 's5',
    userId: 'u5',
    task: Task.fromPartial({ id: 'task_7', sessionId: 's5', description: 'npm test', exitCode: 1 }),
  });
  await bus.js.publish('relay.session.v1.task_finished', JSON.stringify(payload), { msgID: eventId });
  await vi.waitFor(async () => expect((await fetch('desk', 'sub_tasks', 0)).cursor).toBe(1), { timeout: 15_000, interval: 100 });
  expect((await fetch('desk', 'sub_tasks', 0)).events).toMatchObject([{ id: eventId, kind: 'task_failed', text: 'npm test', status: '1', refId: 'task_7' }]);
});

it('keeps every session of the user but those excluded, untitled, for a watch of "all"', async () => {
  await watch('lab', 'sub_all', { userId: 'u3', scope: 'all', exclude: ['s9'] });
  await turnEnded('u3', 's9', 'left out');
  const kept = await turnEnded('u3', 's8', 'watched');
  await vi.waitFor(async () => expect((await fetch('lab', 'sub_all', 0)).cursor).toBe(1), { timeout: 15_000, interval: 100 });
  const page = await fetch('lab', 'sub_all', 0);
  expect(page.events.map(({ id, sessionId, sessionTitle }) => ({ id, sessionId, sessionTitle }))).toEqual([{ id: kept, sessionId: 's8', sessionTitle: '' }]);
});

it('past the cap of 500 keeps the newest events and counts the older ones as dropped for the cursor that missed them', async () => {
  await watch('lab', 'sub_cap', { userId: 'u4', scope: 'sessions', sessions: [{ id: 's4', title: 'Busy' }] });
  const ids: string[] = [];
  for (let i = 1; i <= 503; i += 1) ids.push(await turnEnded('u4', 's4', `turn ${i}`));
  await vi.waitFor(async () => expect((await fetch('lab', 'sub_cap', 0)).cursor).toBe(503), { timeout: 60_000, interval: 250 });
  const page = await fetch('lab', 'sub_cap', 0);
  expect(page.events.map((event) => event.id)).toEqual(ids.slice(3));
  expect(page.dropped).toBe(3);
  expect(await fetch('lab', 'sub_cap', 503)).toMatchObject({ events: [], cursor: 503, dropped: 0 });
});

it('keeps the archive of a listed session whatever kinds the watch takes, and none for a watch of "all"', async () => {
  await watch('lab', 'sub_archive_listed', { userId: 'u6', scope: 'sessions', sessions: [{ id: 's6', title: 'Old work' }] });
  await callUnary(client, 'keepWatch', {
    relay: 'lab',
    id: 'sub_archive_listed_errors',
    userId: 'u6',
    scope: 'sessions',
    sessions: [{ id: 's6', title: 'Old work' }],
    exclude: [],
    events: ['error'],
    stalledMinutes: 0,
    heartbeatMinutes: 0,
  });
  await watch('lab', 'sub_archive_all', { userId: 'u6', scope: 'all' });
  published += 1;
  const eventId = `evt-archived-${published}`;
  await bus.js.publish(
    'relay.session.v1.archived',
    JSON.stringify(SessionArchived.toJSON({ eventId, occurredAt: new Date(), sessionId: 's6', userId: 'u6' })),
    { msgID: eventId },
  );
  const marker = await turnEnded('u6', 's7', 'after the archive');
  await vi.waitFor(async () => expect((await fetch('lab', 'sub_archive_all', 0)).cursor).toBe(1), { timeout: 15_000, interval: 100 });
  for (const id of ['sub_archive_listed', 'sub_archive_listed_errors']) {
    expect((await fetch('lab', id, 0)).events).toMatchObject([
      { id: eventId, kind: 'archived', sessionId: 's6', sessionTitle: 'Old work', text: '', status: '' },
    ]);
  }
  expect((await fetch('lab', 'sub_archive_all', 0)).events.map((event) => event.id)).toEqual([marker]);
});

it('answers NOT_FOUND for a watch it does not keep, and ending one drops it', async () => {
  await expect(fetch('nobody', 'sub_x', 0)).rejects.toMatchObject({ code: 'REMOTE_RELAY_NOT_FOUND' });
  expect(await callUnary(client, 'endWatch', { relay: 'desk', id: 'sub_listed' })).toEqual({ ended: true });
  expect(await callUnary(client, 'endWatch', { relay: 'desk', id: 'sub_listed' })).toEqual({ ended: false });
  await expect(fetch('desk', 'sub_listed', 0)).rejects.toMatchObject({ code: 'REMOTE_RELAY_NOT_FOUND' });
});

it('refuses a watch without its relay, id or user, or with an unknown scope', async () => {
  await expect(watch('', 'sub', { userId: 'u1', scope: 'all' })).rejects.toMatchObject({ code: 'REMOTE_RELAY_INVALID_INPUT' });
  await expect(watch('desk', 'sub', { userId: 'u1', scope: 'some' })).rejects.toMatchObject({ code: 'REMOTE_RELAY_INVALID_INPUT' });
});
