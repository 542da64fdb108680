import { loadClientConfig } from '../config.ts';
import { formatTable } from '../format-table.ts';
import type { Schemas } from '@relay/user-api';
import { GatewayApi, type BudgetSetting } from '../gateway-api.ts';
import { relayPaths } from '../relay-paths.ts';
import { resolveRelayTarget } from '../relay-target.ts';
import type { ClientIo } from './sessions.ts';
import { resolveSession } from './session-name.ts';

/**
 * `relay budget SESSION`: the budget over a conversation's delegation tree — set the limits given, remove it, or
 * show it — then the tree's usage and the budgets over it. Only the person sets one; agents only narrow.
 */
export async function runBudget(options: { sessionId: string; limits?: BudgetSetting; remove: boolean; json: boolean }, io: ClientIo): Promise<number> {
  const api = apiFor(io);
  const sessionId = await resolveSession(api, options.sessionId);
  const usage =
    options.limits !== undefined
      ? await api.setBudget(sessionId, options.limits)
      : options.remove
        ? await api.removeBudget(sessionId)
        : await api.treeUsage(sessionId);
  io.out.write(options.json ? `${JSON.stringify(usage, null, 2)}\n` : `${formatTreeUsage(usage)}\n`);
  return 0;
}

/** `relay usage --tree SESSION`: what the session's tree spent, by session, provider and relay, and its budgets. */
export async function runTreeUsage(options: { tree: string; json: boolean }, io: ClientIo): Promise<number> {
  const api = apiFor(io);
  const usage = await api.treeUsage(await resolveSession(api, options.tree));
  io.out.write(options.json ? `${JSON.stringify(usage, null, 2)}\n` : `${formatTreeUsage(usage)}\n`);
  return 0;
}

function apiFor(io: ClientIo): GatewayApi {
  const target = resolveRelayTarget(loadClientConfig(io.env), relayPaths());
  return new GatewayApi(target.url, target.token);
}

/**
 * A row per session, relay and provider of the tree with its turns, tokens and cost, and their total (the per-turn
 * ledger's sum); then each budget over the tree, nearest first, with its meters.
 */
export function formatTreeUsage(usage: Schemas['TreeUsage']): string {
  const spent = (row: Schemas['TreeUsage']['totals']) => [String(row.turns), tokens(row.inputTokens + row.outputTokens), usd(row.costUsd)];
  const rows = usage.rows.map((row) => [row.session, row.relay, row.provider, ...spent(row)]);
  const lines = [
    usage.rows.length === 0
      ? `The tree under ${usage.session} has spent nothing.`
      : formatTable(['SESSION', 'RELAY', 'PROVIDER', 'TURNS', 'TOKENS', 'COST'], [...rows, ['TOTAL', '', '', ...spent(usage.totals)]]),
    `Sessions started in the tree: ${usage.sessionsStarted}.`,
  ];
  if (usage.budgets.length === 0) lines.push('No budget is set over this tree.');
  for (const budget of usage.budgets) {
    const meters = budget.meters.map(
      (meter) => `${meterName(meter.name)} ${amount(meter.name, meter.used)} of ${amount(meter.name, meter.limit)} (${Math.round(meter.utilization * 100)} %)`,
    );
    const where = budget.session === usage.session ? 'this conversation' : `conversation ${budget.session}`;
    const card = budget.cardId === null ? '' : `; card ${budget.cardId} waits in your Inbox`;
    lines.push(`Budget on ${where} (set by ${budget.setBy}): ${budget.state}, ${meters.join(', ')}${card}.`);
  }
  return lines.join('\n');
}

function meterName(name: string): string {
  return name === 'cost_usd' ? 'cost' : name;
}

function amount(name: string, value: number): string {
  if (name === 'cost_usd') return usd(value);
  return name === 'minutes' ? String(Math.floor(value)) : tokens(value);
}

function tokens(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

function usd(value: number): string {
  return `$${value.toFixed(2)}`;
}
