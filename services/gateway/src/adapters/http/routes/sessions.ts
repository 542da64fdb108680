/**
 * The user API, /api/v1, for a user's own bearer token: their sessions, a page at a time (hosted ones with their
 * first prompt, and external ones for MCP clients they run themselves; each with its relay mode and watch
 * marks), messages to them, their turns' results, the owner's switches on a conversation, and what this
 * relay is. Errors answer `{ code, error }`.
 */
import type { FastifyInstance } from 'fastify';
import type { Clock } from '@relay/clock';
import { z } from 'zod';
import { CreateSessionRequest, SendMessageRequest } from '@relay/proto/relay/session/v1/session_service';
import { LIST_SESSIONS_PAGE, LIST_SESSIONS_PAGES_MAX, READ_LAST_DEFAULT, READ_LAST_MAX, sessionPages } from '../../../domain/limits.ts';
import { turnFields } from '../../../app/views/turn-result.ts';
import { SESSION_SCOPES, sessionReadView, sessionView, userSessionView } from '../../../app/views/session-view.ts';
import { RELAY_VERSION } from '../../../domain/version.ts';
import { registerSessionActionRoutes } from './session-actions.ts';
import { answers, invalidInput, madeAnswers, typed } from '../openapi.ts';
import { Session, SessionRead, TurnResult, UserSession } from '../api-schemas.ts';
import { callOwner, SessionParams, sendInvalid, userOf, wholeNumberQuery, type UserApiDeps } from '../user-api.ts';
import { answered } from '../../../domain/answers.ts';
import type { PairingClient, QuestionClient, SubscriptionClient } from '../../../app/ports.ts';
import { awaitUserTurn, mentionsIn, readUserSession, waitingOf, watchMarksOf } from '../../../app/user-sessions.ts';
import { sessionStatus } from '../../../app/views/session-status.ts';

export interface SessionRouteDeps extends UserApiDeps {
  relayName: string;
  /** The base URL users and clients reach this gateway at, without a trailing slash. */
  publicUrl: string;
  /** The base of openUrl links: the relay's public URL, when one is set. */
  openUrlBase: string | undefined;
  /** Where a session read gets its pending asks; without it, reads list only the cards turns wait on. */
  questions?: QuestionClient;
  /** The paired relays a user's message may mention (unlocking them in that conversation). */
  pairing?: PairingClient;
  /** The relay's clock (RELAY_CLOCK): a wait's time left runs on it when the wait is made again; the machine's when left out. */
  clock?: Clock;
  /** Where the sessions' watch marks come from; without it, sessions show none. */
  subscriptions?: SubscriptionClient;
}

const RelayInfo = z
  .strictObject({
    name: z.string(),
    version: z.string(),
    urls: z.strictObject({ base: z.string(), api: z.string(), mcp: z.string() }),
  })
  .meta({ id: 'RelayInfo', description: 'What this relay is: its name, version and where its user API and MCP endpoint are.' });

// A page of the listing, in list_sessions' order and size (docs/adr/0046): what a page costs does not grow with the
// user's sessions, nor with its number.
const ListQuery = z.object({
  scope: z.enum(SESSION_SCOPES, { error: `scope must be one of: ${SESSION_SCOPES.join(', ')}` }).default('active'),
  page: wholeNumberQuery('page', LIST_SESSIONS_PAGES_MAX, 1),
  limit: wholeNumberQuery('limit', LIST_SESSIONS_PAGE, LIST_SESSIONS_PAGE),
});

const SessionPage = z
  .strictObject({
    sessions: z.array(UserSession),
    sessionsTotal: z.number().int().describe('How many sessions the scope holds.'),
    page: z.number().int().describe('This page, from 1.'),
    pages: z.number().int().describe('How many pages of `limit` sessions the scope fills (1 when it holds none).'),
    nextPage: z.number().int().optional().describe('The page after this one, when the scope holds more sessions; absent on the last page.'),
  })
  .meta({
    id: 'SessionPage',
    description: "A page of the user's sessions, the most recently active first (ties: newest created, then id); `page` reads the others.",
  });

const ExternalBody = z.object({
  external: z.literal(true),
  // The session service owns the title's rules; it is only typed here.
  title: z.string({ error: 'title must be a string' }).optional(),
});

// A hosted session and its first prompt; what is left out follows the relay's defaults.
const HostedBody = z.object(
  {
    // A body with `external` asks for an external session, whatever else it holds.
    external: z.never().optional(),
    text: z.string({ error: 'text (the first prompt) is required, as a string' }).trim().min(1, { error: 'text (the first prompt) must not be empty' }),
    provider: z.string({ error: 'provider must be a string' }).optional(),
    model: z.string({ error: 'model must be a string' }).optional(),
    effort: z.string({ error: 'effort must be a string' }).optional(),
    title: z.string({ error: 'title must be a string' }).optional(),
    cwd: z.string({ error: 'cwd must be a string' }).optional(),
    // A Claude Cloud session's repository (owner/name) and branch, instead of cwd.
    repo: z.string({ error: 'repo must be a string, as owner/name' }).optional(),
    branch: z.string({ error: 'branch must be a string' }).optional(),
    mode: z.string({ error: 'mode must be a string' }).optional(),
  },
  { error: 'the body must be a JSON object, for example {"title": "Review", "text": "reply hello"} or {"external": true, "title": "My editor"}' },
);

const NewSessionBody = z.union([ExternalBody, HostedBody]);

/** Whether a new session's body asks for an external one (its own schema's sentences answer its faults). */
function isExternalBody(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { external?: unknown }).external !== undefined;
}

const MessageBody = z.object(
  { text: z.string({ error: 'text is required, as a string' }).trim().min(1, { error: 'text must not be empty' }) },
  { error: 'the body must be a JSON object, for example {"text": "reply hello"}' },
);

const OptionsBody = z
  .object(
    {
      mode: z.string({ error: 'mode must be a string: agent, ask or plan' }).optional(),
      may_create_sessions: z.boolean({ error: 'may_create_sessions must be true or false' }).optional(),
    },
    { error: 'the body must be a JSON object, for example {"mode": "ask"} or {"may_create_sessions": true}' },
  )
  .refine((body) => body.mode !== undefined || body.may_create_sessions !== undefined, { error: 'give mode, may_create_sessions or both' });

const ReadQuery = z.object({ last: wholeNumberQuery('last', READ_LAST_MAX, READ_LAST_DEFAULT) });

const WaitQuery = z.object({
  message_id: z.string({ error: 'message_id is required' }).min(1, { error: 'message_id is required' }),
  wait_seconds: z.coerce
    .number({ error: 'wait_seconds must be a whole number of seconds, 0 or more' })
    .int({ error: 'wait_seconds must be a whole number of seconds, 0 or more' })
    .min(0, { error: 'wait_seconds must be a whole number of seconds, 0 or more' })
    .optional(),
});

/** Registers /api/v1 on `app`. */
export function registerSessionRoutes(app: FastifyInstance, deps: SessionRouteDeps): void {
  registerSessionActionRoutes(app, deps);
  const api = typed(app);
  api.get('/api/v1/relay', { schema: { response: answers(RelayInfo) }, attachValidation: true }, async (request, reply) => {
    if ((await userOf(deps, request, reply)) === undefined) return reply;
    return {
      name: deps.relayName,
      version: RELAY_VERSION,
      urls: { base: deps.publicUrl, api: `${deps.publicUrl}/api/v1`, mcp: `${deps.publicUrl}/mcp` },
    };
  });

  api.get('/api/v1/sessions', { schema: { querystring: ListQuery, response: answers(SessionPage) }, attachValidation: true }, async (request, reply) => {
    const userId = await userOf(deps, request, reply);
    if (userId === undefined || invalidInput(request, reply)) return reply;
    const { scope, page, limit } = request.query;
    const [listed, marks, waiting] = await Promise.all([
      callOwner(reply, deps.logger, () => deps.sessions.listSessions({ userId, scope, limit, offset: (page - 1) * limit })),
      watchMarksOf(deps, userId),
      waitingOf(deps, userId),
    ]);
    if (listed === undefined) return reply;
    const sessionsTotal = listed.total ?? listed.sessions.length;
    const pages = sessionPages(sessionsTotal, limit);
    return {
      sessions: listed.sessions.map((session) => {
        const view = userSessionView(session, marks(session.id));
        return { ...view, status: sessionStatus({ state: view.state, ...waiting(session.id), lastTurn: session.lastTurn }) };
      }),
      sessionsTotal,
      page,
      pages,
      ...(page < pages ? { nextPage: page + 1 } : {}),
    };
  });

  const CreatedSession = z.union([
    z.strictObject({ session: Session, token: z.string().describe("The external session's bearer token, shown this once."), mcpUrl: z.string() }),
    z.strictObject({ session: Session, message_id: z.string().describe('The first prompt, to wait on.'), modelNote: z.string().optional() }),
  ]);
  api.post('/api/v1/sessions', { schema: { body: NewSessionBody, response: madeAnswers(CreatedSession) }, attachValidation: true }, async (request, reply) => {
    const userId = await userOf(deps, request, reply);
    if (userId === undefined) return reply;
    if (request.validationError) {
      // Either shape's own sentences: an external session is asked for by its external field.
      const { error } = isExternalBody(request.body) ? ExternalBody.safeParse(request.body) : HostedBody.safeParse(request.body);
      return error ? sendInvalid(reply, error) : invalidInput(request, reply);
    }
    const body = request.body;
    if (body.external === true) {
      const created = await callOwner(reply, deps.logger, () => deps.sessions.createExternalSession({ userId, title: body.title ?? '' }));
      if (created === undefined) return reply;
      return reply
        .code(201)
        .send({ session: sessionView(answered(created.session, 'CreateExternalSession', 'session')), token: created.token, mcpUrl: `${deps.publicUrl}/mcp` });
    }
    const { external: _none, ...hosted } = body;
    const mentionedRelays = await mentionsIn(deps, hosted.text);
    const created = await callOwner(reply, deps.logger, () =>
      deps.sessions.createSession(CreateSessionRequest.fromPartial({ userId, ...hosted, mentionedRelays, dryRun: false })),
    );
    if (created === undefined) return reply;
    return reply.code(201).send({
      session: sessionView(answered(created.session, 'CreateSession', 'session')),
      message_id: created.messageId,
      ...(created.modelNote ? { modelNote: created.modelNote } : {}),
    });
  });

  api.get(
    '/api/v1/sessions/:id',
    { schema: { params: SessionParams, querystring: ReadQuery, response: answers(SessionRead) }, attachValidation: true },
    async (request, reply) => {
      const userId = await userOf(deps, request, reply);
      if (userId === undefined || invalidInput(request, reply)) return reply;
      const { id } = request.params;
      const [read, marks, waiting] = await Promise.all([
        callOwner(reply, deps.logger, () => readUserSession(deps, userId, id, request.query.last)),
        watchMarksOf(deps, userId),
        waitingOf(deps, userId, id),
      ]);
      if (read === undefined) return reply;
      const view = sessionReadView(read);
      // The user's cards there count too: a card a relay_tool call raised holds no turn's question.
      const asks = view.pendingQuestions.filter((question) => question.kind === 'ask').length;
      const cards = Math.max(view.pendingQuestions.length - asks, waiting(id).cards);
      const status = sessionStatus({ state: view.state, cards, asks, lastTurn: read.session.lastTurn });
      return { ...view, status, session: userSessionView(read.session, marks(id), status) };
    },
  );

  const OptionsAnswer = z.strictObject({ session: Session, mode: z.string(), mayCreateSessions: z.boolean() });
  api.patch(
    '/api/v1/sessions/:id',
    { schema: { params: SessionParams, body: OptionsBody, response: answers(OptionsAnswer) }, attachValidation: true },
    async (request, reply) => {
      const userId = await userOf(deps, request, reply);
      if (userId === undefined || invalidInput(request, reply)) return reply;
      const { params, body } = request;
      const options = { userId, sessionId: params.id, mode: body.mode, mayCreateSessions: body.may_create_sessions };
      const set = await callOwner(reply, deps.logger, () => deps.sessions.setConversationOptions(options));
      if (set === undefined) return reply;
      const session = answered(set.session, 'SetConversationOptions', 'session');
      return { session: sessionView(session), mode: session.mode, mayCreateSessions: session.mayCreateSessions };
    },
  );

  const SentMessage = z.strictObject({ message_id: z.string().describe('The message, to wait on.') });
  api.post(
    '/api/v1/sessions/:id/messages',
    { schema: { params: SessionParams, body: MessageBody, response: madeAnswers(SentMessage) }, attachValidation: true },
    async (request, reply) => {
      const userId = await userOf(deps, request, reply);
      if (userId === undefined || invalidInput(request, reply)) return reply;
      const { id } = request.params;
      const { text } = request.body;
      const mentionedRelays = await mentionsIn(deps, text);
      const sent = await callOwner(reply, deps.logger, () =>
        deps.sessions.sendMessage(SendMessageRequest.fromPartial({ userId, sessionId: id, text, mentionedRelays, dryRun: false })),
      );
      if (sent === undefined) return reply;
      return reply.code(201).send({ message_id: sent.messageId });
    },
  );

  // The turn a message started, once it ends or wait_seconds (capped by the relay's longest wait) runs out.
  api.get(
    '/api/v1/sessions/:id/wait',
    { schema: { params: SessionParams, querystring: WaitQuery, response: answers(TurnResult) }, attachValidation: true },
    async (request, reply) => {
      const userId = await userOf(deps, request, reply);
      if (userId === undefined || invalidInput(request, reply)) return reply;
      // A client that goes away ends the wait; the turn goes on.
      const gone = new AbortController();
      reply.raw.once('close', () => gone.abort());
      const wait = { userId, sessionId: request.params.id, messageId: request.query.message_id, waitSeconds: request.query.wait_seconds };
      const waited = await callOwner(reply, deps.logger, () => awaitUserTurn(deps.sessions, wait, gone.signal, deps.clock));
      if (waited?.result === undefined) return reply;
      const { result, plan } = waited;
      return { ...turnFields(result, deps.openUrlBase, { whole: true }), ...(plan.note ? { note: plan.note } : {}) };
    },
  );
}
