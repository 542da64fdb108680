/**
 * /relay/v1/asks, where a paired relay keeps an ask of one of its conversations about a session of this relay
 * (spec, ask: "An ask about a session on a paired relay is kept on that relay") and polls it for the answer:
 * - POST /relay/v1/asks { askingSessionId, session, question, options, recommendation, detail, dryRun };
 * - GET /relay/v1/asks?asking_session_id=… the asks that conversation asked here (pending, and ended in the day);
 * - GET /relay/v1/asks/:id?asking_session_id=… one of them;
 * - DELETE /relay/v1/asks/:id?asking_session_id=… withdraws it.
 * The ask acts for the user who owns the pairing; its card shows in the session it is about, and the user answers
 * it here. Each route is held to the level this relay grants the pairing (an ask and its withdrawal need
 * read_and_prompt, reading read); with "Accept prompts from other relays' agents" off, no ask is kept
 * (REMOTE_RELAY_PERMISSION).
 */
import type { Logger } from '@relay/telemetry';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Ask } from '@relay/proto/relay/question/v1/question_service';
import { askStatusName } from '../../../app/views/question-view.ts';
import { relayCallerOf } from '../authenticate-relay.ts';
import { callOwner, sendInvalid } from '../user-api.ts';
import type { PairingClient, QuestionClient, SessionClient } from '../../../app/ports.ts';
import { keepPairedRelayAsk, pairedRelayAsk, pairedRelayAsks, withdrawPairedRelayAsk } from '../../../app/paired-relay-asks.ts';

export interface RelayAsksRouteDeps {
  relayName: string;
  sessions: SessionClient;
  pairing: PairingClient;
  questions: QuestionClient;
  logger: Logger;
}

const AskBody = z.object(
  {
    askingSessionId: z
      .string({ error: 'askingSessionId (the asking conversation on the calling relay) is required' })
      .min(1, { error: 'askingSessionId is required' }),
    session: z.string({ error: 'session (the session here the ask is about) is required' }).min(1, { error: 'session is required' }),
    question: z.string({ error: 'question is required' }).min(1, { error: 'question is required' }),
    options: z.array(z.string(), { error: 'options must be a list of strings' }).default([]),
    recommendation: z.string({ error: 'recommendation must be a string' }).default(''),
    detail: z.string({ error: 'detail must be a string' }).default(''),
    dryRun: z.boolean({ error: 'dryRun must be true or false' }).default(false),
  },
  { error: 'the body must be a JSON object with askingSessionId, session and question' },
);

const AskerQuery = z.object({ asking_session_id: z.string({ error: 'asking_session_id is required' }).min(1, { error: 'asking_session_id is required' }) });

/** An ask as the calling relay reads it. */
function remoteAskView(ask: Ask) {
  return {
    id: ask.id,
    aboutSessionId: ask.aboutSessionId,
    question: ask.question,
    options: ask.options,
    status: askStatusName(ask.status),
    answer: ask.answer,
    choice: ask.choice,
    via: ask.via,
    createdAt: ask.createdAt?.toISOString() ?? null,
    endedAt: ask.endedAt?.toISOString() ?? null,
  };
}

/** Reading the asks a conversation of the paired relay asked here (list_questions; polling for the answer). */
const READ_ASKS = { what: 'list_questions', needs: 'read', changesOrWatches: false } as const;

/** Registers the /relay/v1/asks routes on `app`. */
export function registerRelayAsksRoutes(app: FastifyInstance, deps: RelayAsksRouteDeps): void {
  app.post('/relay/v1/asks', async (request, reply) => {
    const caller = await relayCallerOf(request, reply, deps, { what: 'ask about a session here', needs: 'read_and_prompt', changesOrWatches: true });
    if (caller === undefined) return reply;
    const body = AskBody.safeParse(request.body ?? {});
    if (!body.success) return sendInvalid(reply, body.error);
    const asked = await callOwner(reply, deps.logger, () => keepPairedRelayAsk(deps, caller, body.data));
    if (asked === undefined) return reply;
    return { ask: remoteAskView(asked) };
  });

  app.get('/relay/v1/asks', async (request, reply) => {
    const caller = await relayCallerOf(request, reply, deps, READ_ASKS);
    if (caller === undefined) return reply;
    const query = AskerQuery.safeParse(request.query ?? {});
    if (!query.success) return sendInvalid(reply, query.error);
    const asks = await callOwner(reply, deps.logger, () => pairedRelayAsks(deps, caller, query.data.asking_session_id));
    if (asks === undefined) return reply;
    return { asks: asks.map(remoteAskView) };
  });

  app.get<{ Params: { id: string } }>('/relay/v1/asks/:id', async (request, reply) => {
    const caller = await relayCallerOf(request, reply, deps, READ_ASKS);
    if (caller === undefined) return reply;
    const query = AskerQuery.safeParse(request.query ?? {});
    if (!query.success) return sendInvalid(reply, query.error);
    const ask = await callOwner(reply, deps.logger, () => pairedRelayAsk(deps, caller, query.data.asking_session_id, request.params.id));
    if (ask === undefined) return reply;
    return { ask: remoteAskView(ask) };
  });

  app.delete<{ Params: { id: string } }>('/relay/v1/asks/:id', async (request, reply) => {
    // Taking back its own ask changes nothing of this relay's: Accept prompts does not keep it.
    const caller = await relayCallerOf(request, reply, deps, { what: 'withdraw', needs: 'read_and_prompt', changesOrWatches: false });
    if (caller === undefined) return reply;
    const query = AskerQuery.safeParse(request.query ?? {});
    if (!query.success) return sendInvalid(reply, query.error);
    const withdrawn = await callOwner(reply, deps.logger, () => withdrawPairedRelayAsk(deps, caller, query.data.asking_session_id, request.params.id));
    if (withdrawn === undefined) return reply;
    return { ask: remoteAskView(withdrawn) };
  });
}
