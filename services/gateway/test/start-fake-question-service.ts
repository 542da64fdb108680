/**
 * A fake question service for the cards API tests, served over real gRPC on port 0: cards in memory,
 * the real service's answers for the cases the API passes through, every request recorded.
 */
import { AppError } from '@relay/errors';
import {
  CardKind,
  CardStatus,
  QuestionServiceService,
  type Card,
  type DecideCardRequest,
  type ListCardsRequest,
  type QuestionServiceServer,
} from '@relay/proto/relay/question/v1/question_service';
import { callersFor } from '@relay/testing';
import { serveStream, serveUnary, startGrpcServer } from '@relay/rpc';
import type { Logger } from '@relay/telemetry';
import { fakeCredentials } from './fake-credentials.ts';

export interface FakeQuestionService {
  address: string;
  cards: Card[];
  listed: ListCardsRequest[];
  decided: DecideCardRequest[];
  /** The next DecideCard of this card id answers this error and changes nothing. */
  refusals: Map<string, AppError>;
  /** DecideCard breaks with a plain error (an internal fault). */
  broken: boolean;
  add(fields: Partial<Card>): Card;
  stop(): Promise<void>;
}

const STATUS_AFTER: Record<string, CardStatus> = {
  allow: CardStatus.CARD_STATUS_ALLOWED,
  deny: CardStatus.CARD_STATUS_DENIED,
  answer: CardStatus.CARD_STATUS_ANSWERED,
  dismiss: CardStatus.CARD_STATUS_DISMISSED,
};

/** Starts the fake on loopback. */
export async function startFakeQuestionService(logger: Logger): Promise<FakeQuestionService> {
  const fake = {
    cards: [] as Card[],
    listed: [] as ListCardsRequest[],
    decided: [] as DecideCardRequest[],
    refusals: new Map<string, AppError>(),
    broken: false,
  };
  const server = await startGrpcServer({
    port: 0,
    host: '127.0.0.1',
    logger,
    auth: fakeCredentials.auth('question'),
    services: [
      {
        definition: QuestionServiceService,
        callers: callersFor(QuestionServiceService, 'gateway'),
        implementation: {
          ...serveUnary<QuestionServiceServer>(logger, {
            raiseCard: async () => {
              throw new AppError('REMOTE_RELAY_UNSUPPORTED', 'unimplemented', 'not in the fake');
            },
            listCards: async (request) => {
              fake.listed.push(request);
              const cards = fake.cards
                .filter((card) => card.userId === request.userId && (request.sessionId === '' || card.sessionId === request.sessionId))
                .filter((card) => !request.pendingOnly || card.status === CardStatus.CARD_STATUS_PENDING);
              return { cards: cards.sort((a, b) => b.createdAt!.getTime() - a.createdAt!.getTime()), more: false };
            },
            getCard: async (request) => {
              const card = fake.cards.find((candidate) => candidate.id === request.cardId && candidate.userId === request.userId);
              if (!card) throw new AppError('REMOTE_RELAY_NOT_FOUND', 'not_found', `no card ${request.cardId}`);
              return { card };
            },
            decideCard: async (request) => {
              fake.decided.push(request);
              if (fake.broken) throw new Error('decideCard broke: password=hunter2');
              const refusal = fake.refusals.get(request.cardId);
              if (refusal) throw refusal;
              const card = fake.cards.find((candidate) => candidate.id === request.cardId && candidate.userId === request.userId);
              if (!card) throw new AppError('REMOTE_RELAY_NOT_FOUND', 'not_found', `no card ${request.cardId}`);
              if (card.status !== CardStatus.CARD_STATUS_PENDING) {
                throw new AppError('REMOTE_RELAY_INVALID_INPUT', 'invalid_argument', `card ${card.id} is already decided`);
              }
              Object.assign(card, {
                status: STATUS_AFTER[request.decision],
                answer: request.answer,
                choices: request.choices,
                decidedAt: new Date('2026-11-30T10:05:00.000Z'),
              });
              return { card };
            },
            cancelCards: async () => ({ cancelled: 0 }),
            // Asks are tested against the real question service (e2e); here there are none.
            listAsks: async () => ({ asks: [], more: false }),
            ask: async () => {
              throw new AppError('REMOTE_RELAY_UNSUPPORTED', 'unimplemented', 'not in the fake');
            },
            withdrawAsk: async () => {
              throw new AppError('REMOTE_RELAY_UNSUPPORTED', 'unimplemented', 'not in the fake');
            },
            answerAsk: async () => {
              throw new AppError('REMOTE_RELAY_UNSUPPORTED', 'unimplemented', 'not in the fake');
            },
            publishRemoteAnswer: async () => {
              throw new AppError('REMOTE_RELAY_UNSUPPORTED', 'unimplemented', 'not in the fake');
            },
            getNotificationSettings: async () => {
              throw new AppError('REMOTE_RELAY_UNSUPPORTED', 'unimplemented', 'not in the fake');
            },
            updateNotificationSettings: async () => {
              throw new AppError('REMOTE_RELAY_UNSUPPORTED', 'unimplemented', 'not in the fake');
            },
            addPushSubscription: async () => {
              throw new AppError('REMOTE_RELAY_UNSUPPORTED', 'unimplemented', 'not in the fake');
            },
            removePushSubscription: async () => {
              throw new AppError('REMOTE_RELAY_UNSUPPORTED', 'unimplemented', 'not in the fake');
            },
          }),
          ...serveStream<QuestionServiceServer>(logger, {
            // eslint-disable-next-line require-yield -- a stream the fake never opens: it refuses at once
            awaitCard: async function* () {
              throw new AppError('REMOTE_RELAY_UNSUPPORTED', 'unimplemented', 'not in the fake');
            },
          }),
        },
      },
    ],
  });
  return Object.assign(fake, {
    address: `127.0.0.1:${server.port}`,
    add(fields: Partial<Card>): Card {
      const card: Card = {
        id: `card_${String(fake.cards.length + 1).padStart(12, '0')}`,
        userId: 'u1',
        sessionId: 's1',
        kind: CardKind.CARD_KIND_QUESTION,
        title: 'Ship tonight?',
        lines: [],
        options: ['Tonight', 'Wait'],
        status: CardStatus.CARD_STATUS_PENDING,
        answer: '',
        choices: [],
        createdAt: new Date(Date.UTC(2026, 10, 30, 10, fake.cards.length)),
        decidedAt: undefined,
        ...fields,
      };
      fake.cards.push(card);
      return card;
    },
    stop: () => server.shutdown(),
  });
}
