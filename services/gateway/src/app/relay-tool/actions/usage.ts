/**
 * usage: what each provider's plan has left on this relay, from the relay's own accounting of tokens
 * and cost per turn: per provider a status (ok, limit_reached, paused, not_tracked, not_set_up), its
 * meters this month (used, allowance, remaining, utilization, resetsAt), and whether a Claude usage
 * limit has paused turns. Account names, addresses and tokens are never included: the report holds none.
 */
import type { ProviderInfo, ProviderUsage, UsageMeter } from '@relay/proto/relay/session/v1/session';
import type { GetRelayInfoResponse } from '@relay/proto/relay/session/v1/session_service';
import type { ActionContext } from '../action-context.ts';
import { defineAction } from '../define-action.ts';
import { argumentsOf, type ToolArguments } from '../../../domain/tool-arguments.ts';
import { success, type Success } from '../../../domain/result.ts';
import { thisRelay } from '../../../domain/this-relay.ts';
import { budgetNote, treeUsageView } from '../../views/tree-usage-view.ts';
import { refreshRemoteSpend, withTreeSpent } from '../tree-budget.ts';
import type { RelayCallOrigin } from '../relay-call-origin.ts';

export const usage = defineAction({
  name: 'usage',
  args: argumentsOf('relay', 'tree', 'session'),
  relay: 'required',
  write: false,
  inboxBlind: true,
  toPaired: { level: 'read', forwarded: true },
  handler: runUsage,
  fromPaired: serveUsage,
});

/**
 * A paired relay's agent has no conversation here: `tree` alone reads nothing. With `session`, the answer carries
 * treeSpent — what the tree under that session spent here — which the calling relay asks for before it checks the
 * budget over its own tree (docs/adr/0039-tree-budgets.md); the pairing's level is checked as for any usage read, and
 * the session must be one that relay's agents started here (any other is no session of its: NOT_FOUND).
 */
async function serveUsage(args: ToolArguments, context: ActionContext, origin: RelayCallOrigin): Promise<Success> {
  const result = await runUsage({ ...args, tree: undefined }, context);
  if (args.tree !== true || args.session === undefined) return result;
  return withTreeSpent(result, context.sessions, { userId: origin.userId, sessionId: args.session, startedByRelay: origin.relayName });
}

async function runUsage(args: ToolArguments, context: ActionContext): Promise<Success> {
  const relay = thisRelay(args.relay, context);
  const { providers, claudeUsageLimitPaused } = usageReportView(await context.sessions.getRelayInfo({ userId: context.caller.userId, withoutUsage: false }));
  const by = (status: string) => providers.filter((provider) => provider.status === status).length;
  const parts = [
    `${by('ok')} tracked`,
    ...(by('limit_reached') > 0 ? [`${by('limit_reached')} at their limit`] : []),
    ...(by('paused') > 0 ? [`${by('paused')} paused by a usage limit`] : []),
    `${by('not_tracked')} not tracked`,
    `${by('not_set_up')} not set up`,
  ];
  if (args.tree !== true) return success(`usage → ${relay}: ${parts.join(', ')}`, { providers, claudeUsageLimitPaused }, relay);
  // This relay's extension: what the caller's delegation tree (or the session's) spent, and the budgets over it, with
  // the paired relays' parts as they report them now.
  const whose = { userId: context.caller.userId, sessionId: args.session ?? context.caller.sessionId };
  await refreshRemoteSpend(context, whose);
  const tree = treeUsageView((await context.sessions.getTreeUsage(whose)).usage);
  const spent = `tree ${tree.rows.length === 0 ? 'spent nothing' : `spent US$${tree.totals.costUsd} and ${tree.totals.inputTokens + tree.totals.outputTokens} tokens in ${tree.totals.turns} turns`}`;
  const note = budgetNote(tree);
  return success(
    `usage → ${relay}: ${parts.join(', ')}; ${spent}`,
    { providers, claudeUsageLimitPaused, tree, ...(note === undefined ? {} : { budgetNote: note }) },
    relay,
  );
}

/** The usage report as the usage action and GET /api/v1/usage show it: per provider its status and meters. */
export function usageReportView(info: GetRelayInfoResponse) {
  // A session service that reports no accounting: every provider set up is not tracked.
  const report = info.usage ?? { providers: info.providers.map(untracked), claudeUsageLimitPaused: false };
  return { providers: report.providers.map(providerView), claudeUsageLimitPaused: report.claudeUsageLimitPaused };
}

function untracked(provider: ProviderInfo): ProviderUsage {
  return {
    provider: provider.id,
    status: provider.available ? 'not_tracked' : 'not_set_up',
    reason: provider.available ? '' : provider.reason,
    meters: [],
    pausedUntil: undefined,
  };
}

function providerView(usage: ProviderUsage) {
  return {
    provider: usage.provider,
    status: usage.status,
    ...(usage.reason === '' ? {} : { reason: usage.reason }),
    meters: usage.meters.map(meterView),
    ...(usage.pausedUntil === undefined ? {} : { pausedUntil: usage.pausedUntil.toISOString() }),
  };
}

function meterView(meter: UsageMeter) {
  return {
    name: meter.name,
    used: meter.used,
    allowance: meter.allowance ?? null,
    remaining: meter.remaining ?? null,
    utilization: meter.utilization === undefined ? null : Math.round(meter.utilization * 1000) / 1000,
    resetsAt: meter.resetsAt?.toISOString() ?? null,
  };
}
