/**
 * The user's cards, /api/v1/cards, for a user's own bearer token: the Inbox (or one session's cards)
 * and deciding a card (allow/deny an approval card, answer/dismiss a question card). Errors answer
 * `{ code, error }` with 400, 401, 403, 404 (or 503 when the question service does not answer).
 */
import { INTERNAL_CODE, isAppError, type ErrorKind } from '@relay/errors';
import type { Logger } from '@relay/telemetry';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { authenticateBearer } from '../http/authenticate-bearer.ts';
import { CARD_DECISIONS, type Card, type QuestionOwner, type SessionOwner } from '../ports.ts';

export interface CardRouteDeps {
  sessions: SessionOwner;
  questions: QuestionOwner;
  logger: Logger;
}

/** A card as the user API shows it. */
export interface CardView {
  id: string;
  sessionId: string;
  kind: Card['kind'];
  title: string;
  lines: string[];
  options: string[];
  status: Card['status'];
  answer: string;
  choices: string[];
  createdAt: string | null;
  decidedAt: string | null;
}

const ListQuery = z.object({
  session: z.string({ error: 'session must be a session id' }).optional(),
  pending: z.enum(['1', '0', 'true', 'false'], { error: 'pending must be 1 or 0' }).optional(),
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

/** Registers GET /api/v1/cards and POST /api/v1/cards/:id on `app`. */
export function registerCardRoutes(app: FastifyInstance, deps: CardRouteDeps): void {
  app.get('/api/v1/cards', async (request, reply) => {
    const userId = await userOf(deps, request, reply);
    if (userId === undefined) return reply;
    const query = ListQuery.safeParse(request.query ?? {});
    if (!query.success) return sendInvalid(reply, query.error);
    const { session, pending } = query.data;
    const cards = await callOwner(reply, deps.logger, () =>
      deps.questions.listCards(userId, { ...(session ? { sessionId: session } : {}), pendingOnly: pending === '1' || pending === 'true' }),
    );
    if (cards === undefined) return reply;
    return { cards: cards.map(cardView) };
  });

  app.post('/api/v1/cards/:id', async (request, reply) => {
    const userId = await userOf(deps, request, reply);
    if (userId === undefined) return reply;
    const { id } = CardParams.parse(request.params);
    const body = DecideBody.safeParse(request.body);
    if (!body.success) return sendInvalid(reply, body.error);
    const card = await callOwner(reply, deps.logger, () => deps.questions.decideCard({ userId, cardId: id, ...body.data }));
    if (card === undefined) return reply;
    return { card: cardView(card) };
  });
}

/** The JSON view of a card. */
export function cardView(card: Card): CardView {
  return {
    id: card.id,
    sessionId: card.sessionId,
    kind: card.kind,
    title: card.title,
    lines: card.lines,
    options: card.options,
    status: card.status,
    answer: card.answer,
    choices: card.choices,
    createdAt: card.createdAt?.toISOString() ?? null,
    decidedAt: card.decidedAt?.toISOString() ?? null,
  };
}

// Cards are the user's to decide: a session's token (an agent) is refused here.
/** The user behind a user token; answers 401/403 itself and returns undefined otherwise. */
export async function userOf(deps: CardRouteDeps, request: FastifyRequest, reply: FastifyReply): Promise<string | undefined> {
  const outcome = await authenticateBearer(request.headers.authorization, deps.sessions, deps.logger);
  if (!outcome.ok) {
    if (outcome.status === 401) reply.header('www-authenticate', 'Bearer realm="relay", error="invalid_token"');
    sendError(reply, outcome.status, outcome.status === 401 ? 'UNAUTHENTICATED' : INTERNAL_CODE, outcome.message);
    return undefined;
  }
  if (outcome.caller.sessionId !== undefined) {
    sendError(reply, 403, 'REMOTE_RELAY_FORBIDDEN', "This is a session's token; cards are decided with a user's own token.");
    return undefined;
  }
  return outcome.caller.userId;
}

const STATUS_BY_KIND: Partial<Record<ErrorKind, number>> = {
  invalid_argument: 400,
  permission_denied: 403,
  not_found: 404,
};

// The question service's refusals (REMOTE_RELAY_*) reach the user with their code and message; anything else is hidden.
/** Runs an owner call; a refusal or fault is answered on `reply` and undefined returned. */
export async function callOwner<T>(reply: FastifyReply, logger: Logger, call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    const status = isAppError(error) && error.code.startsWith('REMOTE_RELAY_') ? STATUS_BY_KIND[error.kind] : undefined;
    if (isAppError(error) && status !== undefined) {
      sendError(reply, status, error.code, error.message);
      return undefined;
    }
    logger.error({ err: error }, 'cards API call failed');
    const unreachable = isAppError(error) && (error.kind === 'unavailable' || error.kind === 'deadline_exceeded');
    sendError(reply, unreachable ? 503 : 500, INTERNAL_CODE, unreachable ? 'The question service did not answer; try again in a moment.' : 'internal error');
    return undefined;
  }
}

/** 400 REMOTE_RELAY_INVALID_INPUT with the zod issues. */
export function sendInvalid(reply: FastifyReply, error: z.ZodError): FastifyReply {
  return sendError(reply, 400, 'REMOTE_RELAY_INVALID_INPUT', error.issues.map((issue) => issue.message).join('; '));
}

function sendError(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  return reply.code(status).send({ code, error: message });
}
