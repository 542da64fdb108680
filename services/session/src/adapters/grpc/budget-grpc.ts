import type { Clock } from '@relay/clock';
import type { SessionServiceServer } from '@relay/proto/relay/session/v1/session_service';
import { serveUnary } from '@relay/rpc';
import type { Logger } from '@relay/telemetry';
import type { BudgetDeps } from '../../app/budgets/check-budgets.ts';
import { getBudgetedRemoteSessions, getTreeUsage } from '../../app/budgets/get-tree-usage.ts';
import { removeBudget, setBudget } from '../../app/budgets/set-budget.ts';
import { checkTreeBudget, noteRemoteTreeSpend } from '../../app/budgets/budget-gate.ts';
import { fromBudgetLimitsMessage, toBudgetLimitsMessage, toTreeUsageMessage } from './wire/budget-wire.ts';

/** The generated server interface without grpc-js's index signature. */
type Methods = { [K in keyof SessionServiceServer as string extends K ? never : K]: SessionServiceServer[K] };

/** The RPCs budgetGrpc serves (sessionGrpc serves the rest). */
export type BudgetMethod = 'setBudget' | 'removeBudget' | 'getTreeUsage' | 'getBudgetedRemoteSessions' | 'checkTreeBudget' | 'noteRemoteTreeSpend';

/** The budget methods of relay.session.v1.SessionService, to merge with the rest. */
export function budgetGrpc(deps: BudgetDeps & { clock: Clock; logger: Logger }): ReturnType<typeof serveUnary> {
  const { clock } = deps;
  return serveUnary<Pick<Methods, BudgetMethod>>(deps.logger, {
    setBudget: async (request) => {
      const limits = fromBudgetLimitsMessage(request.limits ?? {});
      const usage = await setBudget(deps, { userId: request.userId, sessionId: request.sessionId, limits, setBy: 'person' }, clock.now());
      return { usage: toTreeUsageMessage(usage) };
    },
    removeBudget: async (request) => ({ usage: toTreeUsageMessage(await removeBudget(deps, request, clock.now())) }),
    getTreeUsage: async (request) => ({ usage: toTreeUsageMessage(await getTreeUsage(deps, request, clock.now())) }),
    getBudgetedRemoteSessions: async (request) => ({ remoteSessions: await getBudgetedRemoteSessions(deps, request) }),
    checkTreeBudget: async (request) => {
      const carried = await checkTreeBudget(deps, request, clock.now());
      return { carried: carried === undefined ? undefined : toBudgetLimitsMessage(carried) };
    },
    noteRemoteTreeSpend: async (request) => {
      const rows = request.rows.map(({ sessionId, provider, turns, inputTokens, outputTokens, costUsd }) => ({
        sessionId,
        provider,
        turns,
        inputTokens,
        outputTokens,
        costUsd,
      }));
      await noteRemoteTreeSpend(deps, { ...request, rows }, clock.now());
      return {};
    },
  });
}
