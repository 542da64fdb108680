/**
 * The fake question service for the relay_tool tests: cards decided as the test says (cardDecision), asks about
 * sessions, every AwaitCard wait recorded.
 */
import { AppError } from '@relay/errors';
import {
  CardStatus,
  QuestionServiceService,
  type AwaitCardResponse,
  type Card,
  type QuestionServiceServer,
} from '@relay/proto/relay/question/v1/question_service';
import type { GrpcServer } from '@relay/rpc';
import type { Logger } from '@relay/telemetry';
import type { OwnersState } from './owners-state.ts';
import { serveFake } from './serve-fake.ts';

/** Starts the fake question service over `state`. */
export function startFakeQuestionOwner(state: OwnersState, logger: Logger): Promise<GrpcServer> {
  const { asksAbout, askListings, cards, cardWaits, owners } = state;
  return serveFake<QuestionServiceServer>(QuestionServiceService, 'question', logger, {
    unary: {
      raiseCard: async (request) => {
        const card: Card = {
          id: `card_${cards.length + 1}`,
          userId: request.userId,
          sessionId: request.sessionId,
          kind: request.kind,
          title: request.title,
          lines: request.lines,
          options: request.options,
          status: CardStatus.CARD_STATUS_PENDING,
          answer: '',
          choices: [],
          createdAt: new Date('2026-10-18T09:00:00Z'),
          decidedAt: undefined,
        };
        cards.push(card);
        return { card };
      },
      listCards: async () => ({ cards, more: false }),
      cancelCards: async () => ({ cancelled: 0 }),
      // Asks are tested against the real question service (e2e); here only those a test sets about a session.
      listAsks: async (request) => {
        askListings.push(request.aboutSessionId);
        return { asks: asksAbout.get(request.aboutSessionId) ?? [], more: false };
      },
    },
    stream: {
      awaitCard: async function* (request): AsyncIterable<AwaitCardResponse> {
        cardWaits.push(request.waitSeconds);
        const card = cards.find((candidate) => candidate.id === request.cardId);
        if (!card) throw new AppError('REMOTE_RELAY_NOT_FOUND', 'not_found', 'no such card');
        yield { progressSeconds: 0 };
        const statuses = { allow: CardStatus.CARD_STATUS_ALLOWED, deny: CardStatus.CARD_STATUS_DENIED, pending: CardStatus.CARD_STATUS_PENDING };
        card.status = statuses[owners.cardDecision];
        yield { card };
      },
    },
  });
}
