/**
 * The watcher's list of subscriptions in the user API, for a user's own bearer token:
 * GET /api/v1/sessions/:id/subscriptions (active ones, and those ended in the last hour with their reason) and
 * Unsubscribe, DELETE /api/v1/sessions/:id/subscriptions/:subscriptionId (the spec: "you press Unsubscribe in the
 * watcher's list"). Errors answer `{ code, error }` (../user-api.ts).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { callOwner, sendError, userOf, type UserApiDeps } from '../user-api.ts';
import { answers, invalidInput, typed } from '../openapi.ts';
import { Subscription } from '../api-schemas.ts';
import { readSession } from '../../../app/session-reads.ts';
import type { SubscriptionClient } from '../../../app/ports.ts';
import { listedSubscriptionView } from '../../../app/views/subscription-view.ts';

export interface SubscriptionRouteDeps extends UserApiDeps {
  subscriptions?: SubscriptionClient;
}

const WatcherParams = z.object({ id: z.string().min(1) });
const SubscriptionParams = z.object({ id: z.string().min(1), subscriptionId: z.string().min(1) });

/** Registers the watcher's list and its Unsubscribe on `app`. */
export function registerSubscriptionRoutes(app: FastifyInstance, deps: SubscriptionRouteDeps): void {
  const api = typed(app);
  const Listed = z.strictObject({ watcher: z.string(), subscriptions: z.array(Subscription) });
  api.get(
    '/api/v1/sessions/:id/subscriptions',
    { schema: { params: WatcherParams, response: answers(Listed) }, attachValidation: true },
    async (request, reply) => {
      const userId = await userOf(deps, request, reply);
      if (userId === undefined || !deps.subscriptions) return deps.subscriptions ? reply : unsupported(reply);
      if (invalidInput(request, reply)) return reply;
      const { id } = request.params;
      const owner = deps.subscriptions;
      const listed = await callOwner(reply, deps.logger, async () => {
        // The watcher must be one of the user's sessions: reading it refuses another user's (404).
        await readSession(deps.sessions, userId, id, 1);
        return (await owner.listSubscriptions({ userId, watcherSessionId: id })).subscriptions;
      });
      if (listed === undefined) return reply;
      return { watcher: id, subscriptions: listed.map(listedSubscriptionView) };
    },
  );

  // Unsubscribe: ends it with reason "unsubscribed", as the agent's unsubscribe does.
  const Ended = z.strictObject({ endedIds: z.array(z.string()) });
  api.delete(
    '/api/v1/sessions/:id/subscriptions/:subscriptionId',
    { schema: { params: SubscriptionParams, response: answers(Ended) }, attachValidation: true },
    async (request, reply) => {
      const userId = await userOf(deps, request, reply);
      if (userId === undefined || !deps.subscriptions) return deps.subscriptions ? reply : unsupported(reply);
      if (invalidInput(request, reply)) return reply;
      const { id, subscriptionId } = request.params;
      if (subscriptionId === 'all')
        return sendError(reply, 400, 'REMOTE_RELAY_INVALID_INPUT', 'Unsubscribe names one subscription id; the list ends them one at a time.');
      const owner = deps.subscriptions;
      const ended = await callOwner(reply, deps.logger, async () => {
        await readSession(deps.sessions, userId, id, 1);
        return (await owner.unsubscribe({ userId, watcherSessionId: id, subscriptionId, all: false })).endedIds;
      });
      if (ended === undefined) return reply;
      return { endedIds: ended };
    },
  );
}

function unsupported(reply: FastifyReply): FastifyReply {
  return reply.sent ? reply : sendError(reply, 501, 'REMOTE_RELAY_UNSUPPORTED', 'This gateway runs without the subscription service.');
}
