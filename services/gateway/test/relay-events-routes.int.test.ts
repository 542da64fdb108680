// /relay/v1/subscriptions and /relay/v1/asks on the real gateway app, in front of fake owners over gRPC and fakes of
// the gateway's own remote-events and question ports: a paired relay registers a watch of our sessions (as the user
// who owns the pairing, its sessions checked, refused while other relays' agents are not accepted), fetches its
// kept events with titles, ends it; keeps an ask about one of our sessions under its own conversation's name, reads
// and withdraws it.
import { AppError } from '@relay/errors';
import { createLogger } from '@relay/telemetry';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/adapters/http/build-app.ts';
import type { KeepWatchRequest, KeptEvent } from '@relay/proto/relay/pairing/v1/remote_events';
import { startFakeOwners, type FakeOwners } from './start-fake-owners.ts';
import { fakeOwnerClients } from './start-gateway.ts';
import { AskStatus, type Ask, type AskRequest } from '@relay/proto/relay/question/v1/question_service';
import type { QuestionClient, RemoteEventsClient } from '../src/app/ports.ts';

const logger = createLogger({ name: 'relay-events-routes-test', level: 'silent' });
let owners: FakeOwners;
let app: FastifyInstance;
let url: string;
let closeClients: () => void;

const kept: KeepWatchRequest[] = [];
const ended: string[] = [];
let page: { events: KeptEvent[]; cursor: number; dropped: number; userId: string } | undefined;
const fetched: { relay: string; id: string; after: number }[] = [];

const remoteEvents: RemoteEventsClient = {
  keepWatch: async (watch) => {
    kept.push(watch);
    return {};
  },
  endWatch: async ({ relay, id }) => {
    ended.push(`${relay}/${id}`);
    return { ended: true };
  },
  fetchWatchEvents: async ({ relay, id, after }) => {
    fetched.push({ relay, id, after });
    if (page === undefined) throw new AppError('REMOTE_RELAY_NOT_FOUND', 'not_found', 'no such watch');
    return page;
  },
  openRemoteSubscription: async () => ({ sessions: [] }),
  closeRemoteSubscription: async () => ({ closed: false }),
  openRemoteAsk: async () => {
    throw new Error('not used here');
  },
  listRemoteAsks: async () => ({ asks: [] }),
  withdrawRemoteAsk: async () => {
    throw new Error('not used here');
  },
};

const asks: Ask[] = [];
const notHere = async (): Promise<never> => {
  throw new Error('not used here');
};
const questions: QuestionClient = {
  raiseCard: notHere,
  awaitCard: () => ({ [Symbol.asyncIterator]: notHere }) as never,
  listCards: notHere,
  getCard: notHere,
  decideCard: notHere,
  answerAsk: notHere,
  cancelCards: notHere,
  publishRemoteAnswer: notHere,
  getNotificationSettings: notHere,
  updateNotificationSettings: notHere,
  addPushSubscription: notHere,
  removePushSubscription: notHere,
  ask: async (request: AskRequest) => {
    const ask: Ask = {
      id: request.dryRun ? '' : `ask_${asks.length + 1}`,
      userId: request.userId,
      askingSessionId: request.askingSessionId,
      aboutSessionId: request.aboutSessionId || request.askingSessionId,
      question: request.question,
      options: request.options,
      recommendation: request.recommendation,
      detail: request.detail,
      status: AskStatus.ASK_STATUS_PENDING,
      answer: '',
      choice: '',
      via: '',
      createdAt: new Date('2026-11-30T10:00:00.000Z'),
      endedAt: undefined,
    };
    if (!request.dryRun) asks.push(ask);
    return { ask };
  },
  listAsks: async ({ userId, askingSessionId }) => ({
    asks: asks.filter((ask) => ask.userId === userId && ask.askingSessionId === askingSessionId),
    more: false,
  }),
  withdrawAsk: async ({ userId, askingSessionId, askId }) => {
    const ask = asks.find((one) => one.id === askId && one.userId === userId && one.askingSessionId === askingSessionId);
    if (ask === undefined) throw new AppError('REMOTE_RELAY_NOT_FOUND', 'not_found', `no question ${askId}`);
    ask.status = AskStatus.ASK_STATUS_WITHDRAWN;
    return { ask };
  },
};

beforeAll(async () => {
  owners = await startFakeOwners(logger);
  const clients = fakeOwnerClients(owners);
  closeClients = clients.close;
  app = buildApp({
    relayName: 'build-box',
    publicUrl: 'https://build-box.example.com',
    openUrlBase: undefined,
    sessions: clients.sessions,
    pairing: clients.pairing,
    questions,
    remoteEvents,
    logger,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('not listening');
  url = `http://127.0.0.1:${address.port}`;
});

afterAll(async () => {
  await app?.close();
  closeClients?.();
  await owners?.stop();
});

afterEach(() => {
  owners.reset();
  kept.length = 0;
  ended.length = 0;
  fetched.length = 0;
  asks.length = 0;
  page = undefined;
});

async function call(method: string, path: string, token: string | undefined, body?: unknown) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

function pairDesk(acceptPrompts = true): void {
  owners.relayTokens.set('t-desk', { relayName: 'desk', userId: 'u1', acceptPrompts });
}

describe('/relay/v1/subscriptions', () => {
  it('refuses a caller without a known relay token', async () => {
    expect(await call('POST', '/relay/v1/subscriptions', undefined, { id: 'sub_1', sessions: ['all'] })).toMatchObject({
      status: 401,
      body: { code: 'REMOTE_RELAY_AUTH' },
    });
    expect(await call('GET', '/relay/v1/subscriptions/sub_1/events?after=0', 'nope')).toMatchObject({ status: 401, body: { code: 'REMOTE_RELAY_AUTH' } });
    expect(kept).toEqual([]);
  });

  it("keeps a watch of the pairing's user's listed sessions, under the caller's relay name, with their titles", async () => {
    pairDesk();
    const session = owners.addAgentSession('u1', { title: 'Nightly deploy' }).session;
    const dry = await call('POST', '/relay/v1/subscriptions', 't-desk', { sessions: [session.id], dryRun: true });
    expect(dry).toEqual({ status: 200, body: { sessions: [{ id: session.id, title: 'Nightly deploy' }] } });
    expect(kept).toEqual([]);
    const made = await call('POST', '/relay/v1/subscriptions', 't-desk', { id: 'sub_1', sessions: [session.id], events: ['turn_end'], stalledMinutes: 15 });
    expect(made.status).toBe(200);
    expect(kept).toEqual([
      {
        relay: 'desk',
        id: 'sub_1',
        userId: 'u1',
        scope: 'sessions',
        sessions: [{ id: session.id, title: 'Nightly deploy' }],
        exclude: [],
        events: ['turn_end'],
        stalledMinutes: 15,
        heartbeatMinutes: 0,
      },
    ]);
  });

  it("refuses an unknown session, another user's, exclude with a list, and everything while other relays' agents are not accepted", async () => {
    pairDesk();
    const other = owners.addAgentSession('u2', { title: 'Not yours' }).session;
    expect(await call('POST', '/relay/v1/subscriptions', 't-desk', { id: 'sub_1', sessions: ['missing'] })).toMatchObject({
      status: 404,
      body: { code: 'REMOTE_RELAY_NOT_FOUND' },
    });
    expect(await call('POST', '/relay/v1/subscriptions', 't-desk', { id: 'sub_1', sessions: [other.id] })).toMatchObject({
      status: 404,
      body: { code: 'REMOTE_RELAY_NOT_FOUND' },
    });
    expect(await call('POST', '/relay/v1/subscriptions', 't-desk', { id: 'sub_1', sessions: [other.id], exclude: ['x'] })).toMatchObject({
      status: 400,
      body: { code: 'REMOTE_RELAY_INVALID_INPUT' },
    });
    pairDesk(false);
    expect(await call('POST', '/relay/v1/subscriptions', 't-desk', { id: 'sub_1', sessions: ['all'] })).toMatchObject({
      status: 403,
      body: { code: 'REMOTE_RELAY_PERMISSION' },
    });
    expect(kept).toEqual([]);
  });

  it('answers the kept events after the cursor, naming the sessions a watch of "all" does not list', async () => {
    pairDesk();
    const session = owners.addAgentSession('u1', { title: 'Review: web/' }).session;
    const occurredAt = new Date('2026-11-30T10:00:00.000Z');
    page = {
      events: [{ seq: 8, id: 'e8', kind: 'turn_end', sessionId: session.id, sessionTitle: '', text: 'done', status: 'done', refId: '', occurredAt }],
      cursor: 8,
      dropped: 3,
      userId: 'u1',
    };
    const answer = await call('GET', '/relay/v1/subscriptions/sub_1/events?after=4', 't-desk');
    expect(fetched).toEqual([{ relay: 'desk', id: 'sub_1', after: 4 }]);
    expect(answer).toEqual({
      status: 200,
      body: {
        events: [
          {
            seq: 8,
            id: 'e8',
            kind: 'turn_end',
            sessionId: session.id,
            sessionTitle: 'Review: web/',
            text: 'done',
            status: 'done',
            refId: '',
            occurredAt: occurredAt.toISOString(),
          },
        ],
        cursor: 8,
        dropped: 3,
      },
    });
    page = undefined;
    expect(await call('GET', '/relay/v1/subscriptions/sub_9/events', 't-desk')).toMatchObject({ status: 404, body: { code: 'REMOTE_RELAY_NOT_FOUND' } });
    expect(await call('DELETE', '/relay/v1/subscriptions/sub_1', 't-desk')).toEqual({ status: 200, body: { ended: true } });
    expect(ended).toEqual(['desk/sub_1']);
  });
});

describe('/relay/v1/asks', () => {
  it("keeps an ask about one of the pairing's user's sessions under the calling relay's conversation, lists, reads and withdraws it", async () => {
    pairDesk();
    const session = owners.addAgentSession('u1', { title: 'Nightly deploy' }).session;
    const made = await call('POST', '/relay/v1/asks', 't-desk', {
      askingSessionId: 'c0de',
      session: session.id,
      question: 'Ship tonight?',
      options: ['Tonight', 'Wait'],
    });
    expect(made).toMatchObject({ status: 200, body: { ask: { id: 'ask_1', aboutSessionId: session.id, question: 'Ship tonight?', status: 'pending' } } });
    expect(asks[0]).toMatchObject({ userId: 'u1', askingSessionId: 'desk/c0de', aboutSessionId: session.id });

    expect(await call('GET', '/relay/v1/asks?asking_session_id=c0de', 't-desk')).toMatchObject({ status: 200, body: { asks: [{ id: 'ask_1' }] } });
    expect(await call('GET', '/relay/v1/asks?asking_session_id=someone-else', 't-desk')).toEqual({ status: 200, body: { asks: [] } });
    expect(await call('GET', '/relay/v1/asks/ask_1?asking_session_id=c0de', 't-desk')).toMatchObject({
      status: 200,
      body: { ask: { id: 'ask_1', status: 'pending' } },
    });
    expect(await call('GET', '/relay/v1/asks/ask_1?asking_session_id=someone-else', 't-desk')).toMatchObject({
      status: 404,
      body: { code: 'REMOTE_RELAY_NOT_FOUND' },
    });
    expect(await call('DELETE', '/relay/v1/asks/ask_1?asking_session_id=c0de', 't-desk')).toMatchObject({
      status: 200,
      body: { ask: { id: 'ask_1', status: 'withdrawn' } },
    });
  });

  it("refuses an ask about an archived session, and every ask while other relays' agents are not accepted", async () => {
    pairDesk();
    const archived = owners.addAgentSession('u1', { title: 'Old', archived: true }).session;
    expect(await call('POST', '/relay/v1/asks', 't-desk', { askingSessionId: 'c0de', session: archived.id, question: 'Ship?' })).toMatchObject({
      status: 409,
      body: { code: 'REMOTE_RELAY_ARCHIVED' },
    });
    pairDesk(false);
    const session = owners.addAgentSession('u1', { title: 'Nightly deploy' }).session;
    expect(await call('POST', '/relay/v1/asks', 't-desk', { askingSessionId: 'c0de', session: session.id, question: 'Ship?' })).toMatchObject({
      status: 403,
      body: { code: 'REMOTE_RELAY_PERMISSION' },
    });
    expect(asks).toEqual([]);
  });
});
