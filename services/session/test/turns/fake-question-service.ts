/**
 * A stand-in for the question service's card RPCs (a port we own): cards live in memory and the
 * test decides them with answer()/dismiss() (question cards) and allow()/deny() (approval cards).
 */
import { CardStatus, QuestionServiceService, type Card, type QuestionServiceServer } from '@relay/proto/relay/question/v1/question_service';
import { serveStream, serveUnary, startGrpcServer, type GrpcServer } from '@relay/rpc';
import type { Logger } from '@relay/telemetry';
import { callersFor, type TestServiceCredentials } from '@relay/testing';

type Methods = { [K in keyof QuestionServiceServer as string extends K ? never : K]: QuestionServiceServer[K] };

export interface FakeQuestionService {
  address: string;
  cards: Card[];
  answer(cardId: string, answer: string): void;
  dismiss(cardId: string): void;
  allow(cardId: string): void;
  deny(cardId: string): void;
  close(): Promise<void>;
}

/** The fake serves as the question service of `credentials`' relay, to the session service. */
export async function startFakeQuestionService(logger: Logger, credentials: TestServiceCredentials): Promise<FakeQuestionService> {
  const cards: Card[] = [];
  const waiters = new Set<() => void>();
  const decide = (cardId: string, change: Partial<Card>): void => {
    const card = cards.find((c) => c.id === cardId);
    if (card === undefined) throw new Error(`no card ${cardId}`);
    Object.assign(card, change);
    for (const wake of waiters) wake();
  };
  let next = 0;
  const raiseIds = new Map<string, string>();
  const server: GrpcServer = await startGrpcServer({
    port: 0,
    host: '127.0.0.1',
    logger,
    auth: credentials.auth('question'),
    services: [
      {
        definition: QuestionServiceService,
        callers: callersFor(QuestionServiceService, 'session'),
        implementation: {
          ...serveUnary<Pick<Methods, 'raiseCard' | 'cancelCards'>>(logger, {
            raiseCard: async (request) => {
              // As the question service: a raise id raised before in the session answers that card.
              const raised =
                request.raiseId === '' ? undefined : cards.find((c) => c.sessionId === request.sessionId && raiseIds.get(c.id) === request.raiseId);
              if (raised !== undefined) return { card: raised };
              const card: Card = {
                id: `card-${++next}`,
                userId: request.userId,
                sessionId: request.sessionId,
                kind: request.kind,
                title: request.title,
                lines: request.lines,
                options: request.options,
                status: CardStatus.CARD_STATUS_PENDING,
                answer: '',
                choices: [],
                createdAt: new Date(),
                decidedAt: undefined,
              };
              cards.push(card);
              raiseIds.set(card.id, request.raiseId);
              return { card };
            },
            cancelCards: async (request) => {
              const pending = cards.filter((c) => c.sessionId === request.sessionId && c.status === CardStatus.CARD_STATUS_PENDING);
              for (const card of pending) decide(card.id, { status: CardStatus.CARD_STATUS_CANCELLED });
              return { cancelled: pending.length };
            },
          }),
          ...serveStream<Pick<Methods, 'awaitCard'>>(logger, {
            awaitCard: async function* (request, signal) {
              for (;;) {
                const card = cards.find((c) => c.id === request.cardId);
                if (card === undefined || card.status !== CardStatus.CARD_STATUS_PENDING || signal.aborted) {
                  if (card) yield { card };
                  return;
                }
                await new Promise<void>((resolve) => {
                  const wake = (): void => {
                    waiters.delete(wake);
                    resolve();
                  };
                  waiters.add(wake);
                  signal.addEventListener('abort', wake, { once: true });
                });
              }
            },
          }),
        },
      },
    ],
  });
  return {
    address: `127.0.0.1:${server.port}`,
    cards,
    answer: (cardId, answer) => decide(cardId, { status: CardStatus.CARD_STATUS_ANSWERED, answer }),
    dismiss: (cardId) => decide(cardId, { status: CardStatus.CARD_STATUS_DISMISSED }),
    allow: (cardId) => decide(cardId, { status: CardStatus.CARD_STATUS_ALLOWED }),
    deny: (cardId) => decide(cardId, { status: CardStatus.CARD_STATUS_DENIED }),
    close: () => server.shutdown(),
  };
}
