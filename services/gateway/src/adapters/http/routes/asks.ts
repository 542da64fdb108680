/**
 * The user's asks (spec, Questions that don't block), for a user's own bearer token: the Inbox
 * (pending asks and pending cards together), a listing of asks, and answering or dismissing an ask.
 * Answering publishes question_answered, which wakes the asking conversation. Errors answer
 * `{ code, error }` (../user-api.ts).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Ask } from '@relay/proto/relay/question/v1/question_service';
import { callOwner, userOf } from '../user-api.ts';
import { answers, invalidInput, typed } from '../openapi.ts';
import { Ask as AskSchema, Card } from '../api-schemas.ts';
import { askStatusName } from '../../../app/views/question-view.ts';
import { answered } from '../../../domain/answers.ts';
import { cardView, type CardRouteDeps } from './cards.ts';

const ListQuery = z.object({
  session: z.string({ error: 'session must be a session id' }).optional(),
  asked_by: z.string({ error: 'asked_by must be a session id' }).optional(),
});

const AnswerBody = z.object(
  {
    decision: z.enum(['answer', 'dismiss'], { error: 'decision must be answer or dismiss' }),
    answer: z.string({ error: 'answer must be a string' }).optional(),
    choice: z.string({ error: 'choice must be a string' }).optional(),
  },
  { error: 'the body must be a JSON object, for example {"decision": "answer", "choice": "Wait"} or {"decision": "dismiss"}' },
);

const AskParams = z.object({ id: z.string().min(1) });

/** Registers GET /api/v1/inbox, GET /api/v1/asks and POST /api/v1/asks/:id on `app`. */
export function registerAskRoutes(app: FastifyInstance, deps: CardRouteDeps): void {
  const api = typed(app);
  const Inbox = z
    .strictObject({
      asks: z.array(AskSchema),
      cards: z.array(Card),
      more: z.boolean().describe('More pending asks or cards wait than are listed: each list holds the newest 500.'),
    })
    .meta({ id: 'Inbox', description: 'What waits for the person: pending asks and pending cards.' });
  api.get('/api/v1/inbox', { schema: { response: answers(Inbox) } }, async (request, reply) => {
    const userId = await userOf(deps, request, reply);
    if (userId === undefined) return reply;
    const both = await callOwner(reply, deps.logger, () =>
      Promise.all([
        deps.questions.listAsks({ userId, askingSessionId: '', aboutSessionId: '', pendingOnly: true }),
        deps.questions.listCards({ userId, sessionId: '', pendingOnly: true }),
      ]),
    );
    if (both === undefined) return reply;
    const [asks, cards] = both;
    return { asks: asks.asks.map(askApiView), cards: cards.cards.map(cardView), more: asks.more || cards.more };
  });

  api.get(
    '/api/v1/asks',
    {
      schema: {
        querystring: ListQuery,
        response: answers(z.strictObject({ asks: z.array(AskSchema), more: z.boolean().describe('More asks match than are listed: the newest 500 are.') })),
      },
      attachValidation: true,
    },
    async (request, reply) => {
      const userId = await userOf(deps, request, reply);
      if (userId === undefined || invalidInput(request, reply)) return reply;
      const { session, asked_by: askedBy } = request.query;
      const listed = await callOwner(reply, deps.logger, () =>
        deps.questions.listAsks({ userId, aboutSessionId: session ?? '', askingSessionId: askedBy ?? '', pendingOnly: !session && !askedBy }),
      );
      if (listed === undefined) return reply;
      return { asks: listed.asks.map(askApiView), more: listed.more };
    },
  );

  api.post(
    '/api/v1/asks/:id',
    { schema: { params: AskParams, body: AnswerBody, response: answers(z.strictObject({ ask: AskSchema })) }, attachValidation: true },
    async (request, reply) => {
      const userId = await userOf(deps, request, reply);
      if (userId === undefined || invalidInput(request, reply)) return reply;
      const { id } = request.params;
      const { decision, answer = '', choice = '' } = request.body;
      const answeredAsk = await callOwner(reply, deps.logger, () => deps.questions.answerAsk({ userId, askId: id, decision, answer, choice, via: '' }));
      if (answeredAsk === undefined) return reply;
      return { ask: askApiView(answered(answeredAsk.ask, 'AnswerAsk', 'ask')) };
    },
  );
}

/** An ask as the user API shows it. */
export function askApiView(ask: Ask) {
  return {
    id: ask.id,
    sessionId: ask.aboutSessionId,
    askedBy: ask.askingSessionId,
    question: ask.question,
    options: ask.options,
    recommendation: ask.recommendation,
    detail: ask.detail,
    status: askStatusName(ask.status),
    answer: ask.answer,
    choice: ask.choice,
    via: ask.via,
    createdAt: ask.createdAt?.toISOString() ?? null,
    endedAt: ask.endedAt?.toISOString() ?? null,
  };
}
