/**
 * The user's cards, /api/v1/cards, for a user's own bearer token: the Inbox (or one session's cards), one card by its
 * id, and deciding a card (allow/deny an approval card, answer/dismiss a question card). This is the one path that
 * decides a card as the user (decided_by USER): the console and the CLI use it; no session token reaches it. Errors answer
 * `{ code, error }` (../user-api.ts).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { callOwner, userOf, type UserApiDeps } from '../user-api.ts';
import { answers, invalidInput, typed } from '../openapi.ts';
import { Card as CardSchema } from '../api-schemas.ts';
import { CardDecider, type Card } from '@relay/proto/relay/question/v1/question_service';
import { CARD_DECISIONS, cardKindName, cardStatusName, type CardStatusName } from '../../../app/views/question-view.ts';
import { answered } from '../../../domain/answers.ts';
import type { QuestionClient } from '../../../app/ports.ts';

export interface CardRouteDeps extends UserApiDeps {
  questions: QuestionClient;
}

/** A card as the user API shows it. */
export interface CardView {
  id: string;
  sessionId: string;
  kind: 'approval' | 'question';
  title: string;
  lines: string[];
  options: string[];
  status: CardStatusName;
  answer: string;
  choices: string[];
  createdAt: string | null;
  decidedAt: string | null;
}

const ListQuery = z.object({
  session: z.string({ error: 'session must be a session id' }).optional(),
  pending: z.enum(['1', '0', 'true', 'false'], { error: 'pending must be 1 or 0' }).optional(),
});

// The question service lists the newest 500 and says when more match.
const CardList = z.strictObject({
  cards: z.array(CardSchema),
  more: z.boolean().describe('More cards match than are listed: the newest 500 are.'),
});

const DecideBody = z.object(
  {
    decision: z.enum(CARD_DECISIONS, { error: `decision must be one of: ${CARD_DECISIONS.join(', ')}` }),
    answer: z.string({ error: 'answer must be a string' }).optional(),
    choices: z.array(z.string({ error: 'each choice must be a string' }), { error: 'choices must be a list of strings' }).optional(),
  },
  { error: 'the body must be a JSON object, for example {"decision": "allow"} or {"decision": "answer", "choices": ["Wait"]}' },
);

const CardParams = z.object({ id: z.string().min(1) });

/** Registers GET /api/v1/cards, GET /api/v1/cards/:id and POST /api/v1/cards/:id on `app`. */
export function registerCardRoutes(app: FastifyInstance, deps: CardRouteDeps): void {
  const api = typed(app);
  api.get('/api/v1/cards', { schema: { querystring: ListQuery, response: answers(CardList) }, attachValidation: true }, async (request, reply) => {
    const userId = await userOf(deps, request, reply);
    if (userId === undefined || invalidInput(request, reply)) return reply;
    const { session, pending } = request.query;
    const listed = await callOwner(reply, deps.logger, () =>
      deps.questions.listCards({ userId, sessionId: session ?? '', pendingOnly: pending === '1' || pending === 'true' }),
    );
    if (listed === undefined) return reply;
    return { cards: listed.cards.map(cardView), more: listed.more };
  });

  // One card, pending or decided: the console's page for the card an MCP client's call waits on.
  api.get(
    '/api/v1/cards/:id',
    { schema: { params: CardParams, response: answers(z.strictObject({ card: CardSchema })) }, attachValidation: true },
    async (request, reply) => {
      const userId = await userOf(deps, request, reply);
      if (userId === undefined || invalidInput(request, reply)) return reply;
      const read = await callOwner(reply, deps.logger, () => deps.questions.getCard({ userId, cardId: request.params.id }));
      if (read === undefined) return reply;
      return { card: cardView(answered(read.card, 'GetCard', 'card')) };
    },
  );

  api.post(
    '/api/v1/cards/:id',
    { schema: { params: CardParams, body: DecideBody, response: answers(z.strictObject({ card: CardSchema })) }, attachValidation: true },
    async (request, reply) => {
      const userId = await userOf(deps, request, reply);
      if (userId === undefined || invalidInput(request, reply)) return reply;
      const { id } = request.params;
      const { decision, answer = '', choices = [] } = request.body;
      const decided = await callOwner(reply, deps.logger, () =>
        deps.questions.decideCard({
          userId,
          cardId: id,
          decision,
          answer,
          choices,
          agentSessionId: '',
          decidedBy: CardDecider.CARD_DECIDER_USER,
          dryRun: false,
        }),
      );
      if (decided === undefined) return reply;
      return { card: cardView(answered(decided.card, 'DecideCard', 'card')) };
    },
  );
}

/** The JSON view of a card. */
export function cardView(card: Card): CardView {
  return {
    id: card.id,
    sessionId: card.sessionId,
    kind: cardKindName(card.kind),
    title: card.title,
    lines: card.lines,
    options: card.options,
    status: cardStatusName(card.status),
    answer: card.answer,
    choices: card.choices,
    createdAt: card.createdAt?.toISOString() ?? null,
    decidedAt: card.decidedAt?.toISOString() ?? null,
  };
}
