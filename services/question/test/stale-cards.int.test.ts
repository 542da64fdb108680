// No stale cards, with the real question service process, a real PostgreSQL and a real nats-server: cards left
// pending by turns that ended while the service was away are withdrawn when it comes back (its durable consumer
// of turn_ended), and answering one says its turn is gone (REMOTE_RELAY_NO_ACTIVE_TURN), not 200 doing nothing,
// even the moment the service is back, before it has handled those turn ends.
// The service runs on a virtual relay clock from a fixed instant; every turn end is timed from the card it is
// about, so nothing depends on how fast this machine is.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectBus, ensureStream, type Bus } from '@relay/bus';
import { AppError } from '@relay/errors';
import { TurnEnded } from '@relay/proto/relay/session/v1/events';
import { TurnStatus } from '@relay/proto/relay/session/v1/session';
import { CardDecider, CardKind, CardStatus, QuestionServiceClient, type Card, type RaiseCardRequest } from '@relay/proto/relay/question/v1/question_service';
import { callStream, callUnary, checkHealth, createClient } from '@relay/rpc';
import { createLogger } from '@relay/telemetry';
import {
  createTestDatabase,
  freePort,
  makeTestCredentials,
  startNats,
  startServiceProcess,
  type NatsServer,
  type ServiceProcess,
  type TestDatabase,
  type TestServiceCredentials,
} from '@relay/testing';
import { TURN_ENDED } from '../src/adapters/bus/turn-ended-consumer.ts';

const serviceDir = fileURLToPath(new URL('..', import.meta.url));
const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const CLOCK_START = '2026-11-30T10:00:00.000Z';
const logger = createLogger({ name: 'stale-cards-test', level: 'silent' });

let nats: NatsServer;
let database: TestDatabase;
let credentials: TestServiceCredentials;
let sessionBus: Bus;
let address: string;
let env: Record<string, string>;
let service: ServiceProcess | undefined;
let asSession: QuestionServiceClient;
let asGateway: QuestionServiceClient;

beforeAll(async () => {
  let port: number;
  [nats, database, port] = await Promise.all([startNats(), createTestDatabase({ migrationsDir }), freePort()]);
  address = `127.0.0.1:${port}`;
  credentials = makeTestCredentials();
  // The session service's side of the bus: it declares SESSION_EVENTS and publishes turn_ended there.
  sessionBus = await connectBus({ url: nats.url, name: 'stale-cards-session', ...nats.credentials('session'), logger });
  await ensureStream(sessionBus, { name: 'SESSION_EVENTS', subjects: ['relay.session.v1.>'] });
  env = {
    DATABASE_URL: database.url,
    ...nats.env('question'),
    ...credentials.env('question'),
    GRPC_PORT: String(port),
    RELAY_CLOCK: CLOCK_START,
    RELAY_CLOCK_EPOCH: String(Date.now()),
    LOG_LEVEL: 'info',
  };
  service = await start();
  connectClients();
});

/** The session service's and the gateway's clients of the question service, on new channels. */
function connectClients(): void {
  asSession?.close();
  asGateway?.close();
  asSession = createClient(QuestionServiceClient, address, credentials.auth('session'));
  asGateway = createClient(QuestionServiceClient, address, credentials.auth('gateway'));
}

afterAll(async () => {
  asSession?.close();
  asGateway?.close();
  service?.kill();
  await sessionBus?.close();
  await Promise.all([nats?.stop(), database?.drop()]);
});

const start = () => startServiceProcess({ serviceDir, env, ready: () => checkHealth(address) });

async function raise(fields: Partial<RaiseCardRequest>): Promise<Card> {
  const { card } = await callUnary(asSession, 'raiseCard', {
    userId: 'u1',
    sessionId: 's1',
    kind: CardKind.CARD_KIND_QUESTION,
    title: 'script-1 wants to run a command in /work: make deploy',
    lines: [],
    options: ['Allow', 'Deny'],
    callKey: '',
    raiseId: '',
    ...fields,
  });
  return card!;
}

/** The session service's turn_ended for `sessionId`, `deltaMs` after `card` was raised (negative: before). */
async function publishTurnEnded(sessionId: string, card: Card, deltaMs: number, turnId: string): Promise<void> {
  const occurredAt = new Date(card.createdAt!.getTime() + deltaMs);
  const payload = TurnEnded.toJSON({
    eventId: `evt_${turnId}`,
    occurredAt,
    sessionId,
    userId: 'u1',
    turnId,
    messageId: `msg_${turnId}`,
    status: TurnStatus.TURN_STATUS_ERROR,
    text: 'ask_user lost its question card: the question service failed',
    senderSessionId: '',
  });
  await sessionBus.js.publish(TURN_ENDED.contract.subject, JSON.stringify(payload), { msgID: `evt_${turnId}` });
}

/** The card as AwaitCard answers it once decided (or as it stands after `waitSeconds` of relay time). */
async function awaited(cardId: string, waitSeconds: number): Promise<Card> {
  let last: Card | undefined;
  for await (const response of callStream(asSession, 'awaitCard', { cardId, waitSeconds })) last = response.card ?? last;
  return last!;
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('a card whose turn ended while the question service was away', () => {
  let left: Card;
  let nextTurns: Card;
  let external: Card;

  it('is withdrawn when the service comes back; the other cards stay pending', async () => {
    left = await raise({ sessionId: 's-left' });
    nextTurns = await raise({ sessionId: 's-next' });
    external = await raise({ sessionId: 's-external', kind: CardKind.CARD_KIND_APPROVAL, options: [], title: 'Send to build?', callKey: 'send:7f3a' });
    expect(await service!.terminate()).toBe(0);

    // While it is away: many other sessions' turns end; s-next's earlier turn ended before its card was raised
    // (the card is the next turn's); the external session's end (it has none, but say it did) cannot take a keyed
    // card; s-left's turn ended after its card was raised, last.
    for (let n = 0; n < 200; n++) await publishTurnEnded(`s-other-${n}`, left, 1_000, `turn_other_${n}`);
    await publishTurnEnded('s-next', nextTurns, -1, 'turn_next');
    await publishTurnEnded('s-external', external, 1_000, 'turn_external');
    await publishTurnEnded('s-left', left, 1_000, 'turn_left');

    service = await start();
    // New channels: the old ones may still be backing off from the reconnects that failed while it was away.
    connectClients();
    // Answered the moment the service is back, while it works through those turn ends: it waits for them, and
    // then the card is withdrawn, not taken.
    // On a busy machine it may say "try again" (still handling them); it never takes the answer.
    const answer = () =>
      refusal(
        callUnary(asGateway, 'decideCard', {
          userId: 'u1',
          cardId: left.id,
          decision: 'answer',
          answer: '',
          choices: ['Allow'],
          agentSessionId: '',
          decidedBy: CardDecider.CARD_DECIDER_USER,
          dryRun: false,
        }),
      );
    let early = await answer();
    while (early.code === 'SERVICE_UNAVAILABLE') early = await answer();
    expect(early.code).toBe('REMOTE_RELAY_NO_ACTIVE_TURN');
    const withdrawn = await awaited(left.id, 600);
    expect(withdrawn).toMatchObject({ id: left.id, status: CardStatus.CARD_STATUS_CANCELLED });
    expect(withdrawn.decidedAt!.getTime()).toBeGreaterThanOrEqual(left.createdAt!.getTime());

    for (const kept of [nextTurns, external]) expect(await awaited(kept.id, 0)).toMatchObject({ id: kept.id, status: CardStatus.CARD_STATUS_PENDING });
  });

  it('answering it says the turn is gone with REMOTE_RELAY_NO_ACTIVE_TURN, and decides nothing', async () => {
    for (const decision of [
      { decision: 'answer', choices: ['Allow'] },
      { decision: 'dismiss', choices: [] },
    ]) {
      const error = await refusal(
        callUnary(asGateway, 'decideCard', {
          userId: 'u1',
          cardId: left.id,
          answer: '',
          agentSessionId: '',
          decidedBy: CardDecider.CARD_DECIDER_USER,
          dryRun: false,
          ...decision,
        }),
      );
      expect([error.code, error.kind]).toEqual(['REMOTE_RELAY_NO_ACTIVE_TURN', 'failed_precondition']);
      expect(error.message).toContain(`card ${left.id} was withdrawn: the turn that asked it in session s-left has ended`);
    }
    expect(await awaited(left.id, 0)).toMatchObject({ status: CardStatus.CARD_STATUS_CANCELLED, answer: '', choices: [] });
  });

  it('the next turn’s card is still answered as usual', async () => {
    const { card } = await callUnary(asGateway, 'decideCard', {
      userId: 'u1',
      cardId: nextTurns.id,
      decision: 'answer',
      answer: '',
      choices: ['Deny'],
      agentSessionId: '',
      decidedBy: CardDecider.CARD_DECIDER_USER,
      dryRun: false,
    });
    expect(card).toMatchObject({ status: CardStatus.CARD_STATUS_ANSWERED, choices: ['Deny'] });
  });

  it('a turn that ends while the service runs withdraws its card at once, waking whoever awaits it', async () => {
    const card = await raise({ sessionId: 's-live' });
    const waiting = awaited(card.id, 600);
    await publishTurnEnded('s-live', card, 1_000, 'turn_live');
    expect(await waiting).toMatchObject({ id: card.id, status: CardStatus.CARD_STATUS_CANCELLED });
  });

  it('keeps a durable consumer of turn_ended on SESSION_EVENTS, with nothing left unacknowledged', async () => {
    // A message is acked once its handler has resolved: the last one's ack may still be on its way when the card the
    // test above waited for is cancelled.
    await vi.waitFor(
      async () => {
        const info = await readAsQuestion();
        expect([info.config.filter_subject, info.num_ack_pending]).toEqual([TURN_ENDED.contract.subject, 0]);
      },
      { timeout: 10_000 },
    );
  });
});

/** The consumer's info, read as the question service's own NATS user (another service's user may not). */
async function readAsQuestion() {
  const bus = await connectBus({ url: nats.url, name: 'stale-cards-question', ...nats.credentials('question'), logger });
  try {
    return await bus.jsm.consumers.info(TURN_ENDED.contract.stream, TURN_ENDED.durable);
  } finally {
    await bus.close();
  }
}
