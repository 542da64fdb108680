/**
 * A person's budgets over their delegation trees (docs/adr/0039-tree-budgets.md), for a user's own bearer token:
 * what the tree under a session spent (split by session, provider and relay), and the budget on a conversation — set
 * (raising or lowering: a reached budget runs again when the meters allow), or removed. Only the person sets one here;
 * an agent only narrows one for the sessions it starts (relay_tool's budget argument).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { TreeUsageView, treeUsageView } from '../../../app/views/tree-usage-view.ts';
import { refreshRemoteSpend, type RemoteSpendReaders } from '../../../app/relay-tool/tree-budget.ts';
import { answers, invalidInput, typed } from '../openapi.ts';
import { callOwner, userOf, type UserApiDeps } from '../user-api.ts';

const Params = z.strictObject({ id: z.string().min(1, { error: 'the session id must not be empty' }) });

const limit = (name: string, whole: boolean) =>
  (whole
    ? z.number({ error: `${name} must be a whole number` }).int({ error: `${name} must be a whole number` })
    : z.number({ error: `${name} must be a number` })
  )
    .min(0, { error: `${name} must be 0 or more` })
    .nullable()
    .optional();

const BudgetBody = z
  .strictObject(
    { costUsd: limit('costUsd', false), tokens: limit('tokens', true), minutes: limit('minutes', true), sessions: limit('sessions', true) },
    { error: 'the body must be a JSON object, for example {"costUsd": 5, "sessions": 12}' },
  )
  .meta({ id: 'BudgetSetting', description: 'The limits to set; a meter left out or null is not limited. At least one.' });

/** Registers GET /api/v1/sessions/:id/tree-usage, PUT and DELETE /api/v1/sessions/:id/budget on `app`. */
export function registerBudgetRoutes(app: FastifyInstance, deps: UserApiDeps & RemoteSpendReaders): void {
  typed(app).get(
    '/api/v1/sessions/:id/tree-usage',
    { schema: { params: Params, response: answers(TreeUsageView) }, attachValidation: true },
    async (request, reply) => {
      const userId = await userOf(deps, request, reply);
      if (userId === undefined || invalidInput(request, reply) !== undefined) return reply;
      // The paired relays' parts as they report them now (their last reports when they do not answer).
      const answer = await callOwner(reply, deps.logger, async () => {
        await refreshRemoteSpend(deps, { userId, sessionId: request.params.id });
        return deps.sessions.getTreeUsage({ userId, sessionId: request.params.id });
      });
      return answer === undefined ? reply : treeUsageView(answer.usage);
    },
  );

  typed(app).put(
    '/api/v1/sessions/:id/budget',
    { schema: { params: Params, body: BudgetBody, response: answers(TreeUsageView) }, attachValidation: true },
    async (request, reply) => {
      const userId = await userOf(deps, request, reply);
      if (userId === undefined || invalidInput(request, reply) !== undefined) return reply;
      const { costUsd, tokens, minutes, sessions } = request.body;
      const limits = { costUsd: costUsd ?? undefined, tokens: tokens ?? undefined, minutes: minutes ?? undefined, sessions: sessions ?? undefined };
      const answer = await callOwner(reply, deps.logger, () => deps.sessions.setBudget({ userId, sessionId: request.params.id, limits }));
      return answer === undefined ? reply : treeUsageView(answer.usage);
    },
  );

  typed(app).delete(
    '/api/v1/sessions/:id/budget',
    { schema: { params: Params, response: answers(TreeUsageView) }, attachValidation: true },
    async (request, reply) => {
      const userId = await userOf(deps, request, reply);
      if (userId === undefined || invalidInput(request, reply) !== undefined) return reply;
      const answer = await callOwner(reply, deps.logger, () => deps.sessions.removeBudget({ userId, sessionId: request.params.id }));
      return answer === undefined ? reply : treeUsageView(answer.usage);
    },
  );
}
