/**
 * The relay's own accounting of what providers' plans have used (spec, usage): tokens and cost per
 * turn, summed over the calendar month (UTC), against the allowances the relay is configured with;
 * and the pauses a Claude usage limit puts on turns. Pure: every function takes `now`.
 */
import type { ProviderInfo } from '../catalogue/provider-catalogue.ts';

/** What one turn used, as its provider reported it. */
export interface TurnUsage {
  /** The message that started the turn (one turn per message). */
  messageId: string;
  sessionId: string;
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  /** null when the provider does not report cost. */
  costUsd: number | null;
  recordedAt: Date;
}

/** A provider's sums over a period. */
export interface UsageTotals {
  provider: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/** Turns of a provider held back by its plan's usage limit until `until`. */
export interface ProviderPause {
  provider: string;
  until: Date;
  reason: string;
}

/** A provider's monthly allowance; a meter without one shows what was used only. */
export interface Allowance {
  monthlyTokens?: number | undefined;
  monthlyUsd?: number | undefined;
}

export interface UsageMeter {
  name: 'tokens' | 'cost_usd';
  used: number;
  /** null when no allowance is configured. */
  allowance: number | null;
  remaining: number | null;
  /** used / allowance (1 = all used); null without an allowance. */
  utilization: number | null;
  resetsAt: Date;
}

/**
 * ok: tracked, with room left; limit_reached: a meter's allowance is used up; paused: a usage limit
 * holds its turns; not_tracked: runs here, but the relay does not account its use; not_set_up.
 */
export type UsageStatus = 'ok' | 'limit_reached' | 'paused' | 'not_tracked' | 'not_set_up';

export interface ProviderUsage {
  provider: string;
  status: UsageStatus;
  /** Why not set up, paused or at its limit; '' otherwise. */
  reason: string;
  meters: UsageMeter[];
  pausedUntil: Date | null;
}

export interface UsageReport {
  providers: ProviderUsage[];
  /** Whether a Claude usage limit holds turns of claude or claude-api now. */
  claudeUsageLimitPaused: boolean;
}

/** The provider code of a reached monthly cap of the Claude API key. */
export const CLAUDE_API_CAP_REACHED = 'CLAUDE_API_CAP_REACHED';

/** The providers whose queued turns a usage limit holds at `now`: they start once its pause ends. */
export function heldProviders(pauses: readonly ProviderPause[], now: Date): string[] {
  return [...new Set(pauses.filter((pause) => pause.until.getTime() > now.getTime()).map((pause) => pause.provider))];
}

/** The first instant of `now`'s calendar month, UTC: meters count from here. */
export function monthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

/** The first instant of the next calendar month, UTC: when the meters reset. */
export function nextMonthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

/** Whether the relay accounts this provider's turns: the plug-ins that report tokens or cost. */
export function tracksUsage(provider: Pick<ProviderInfo, 'id' | 'family'>): boolean {
  return (
    provider.family === 'openai' ||
    provider.family === 'deepseek' ||
    provider.family === 'claude' ||
    provider.family === 'acp' ||
    provider.family === 'copilot' ||
    provider.family === 'codex'
  );
}

/**
 * Whether the relay knows what a provider's turns cost: Claude Code reports it; an OpenAI-compatible endpoint
 * reports tokens only, so its cost is known only where prices are configured (`priced`).
 */
export function tracksCost(provider: Pick<ProviderInfo, 'id' | 'family'>, priced: readonly string[]): boolean {
  return provider.family === 'claude' || priced.includes(provider.id);
}

function meter(name: UsageMeter['name'], used: number, allowance: number | undefined, resetsAt: Date): UsageMeter {
  if (allowance === undefined) return { name, used, allowance: null, remaining: null, utilization: null, resetsAt };
  return {
    name,
    used,
    allowance,
    remaining: Math.max(0, allowance - used),
    utilization: allowance === 0 ? 1 : used / allowance,
    resetsAt,
  };
}

const round = (usd: number): number => Math.round(usd * 1e6) / 1e6;

/**
 * The meters of one provider this month: tokens, and cost_usd where its cost is tracked. A provider whose cost
 * is not tracked has no cost meter at all, rather than one that reads US$0 whatever it used.
 */
export function metersOf(totals: UsageTotals | undefined, allowance: Allowance | undefined, now: Date, costTracked = true): UsageMeter[] {
  const resetsAt = nextMonthStart(now);
  const tokens = meter('tokens', (totals?.inputTokens ?? 0) + (totals?.outputTokens ?? 0), allowance?.monthlyTokens, resetsAt);
  if (!costTracked) return [tokens];
  return [tokens, meter('cost_usd', round(totals?.costUsd ?? 0), allowance?.monthlyUsd, resetsAt)];
}

/** The reason a meter at its allowance gives, or '' when none is. */
function limitReason(provider: Pick<ProviderInfo, 'id' | 'name'>, meters: UsageMeter[]): string {
  const full = meters.find((m) => m.allowance !== null && m.used >= m.allowance);
  if (full === undefined) return '';
  const what = full.name === 'cost_usd' ? `US$${full.allowance}` : `${full.allowance} tokens`;
  return `the monthly ${provider.id === 'claude-api' ? 'cap' : 'allowance'} of ${what} for ${provider.name} is reached; it resets ${full.resetsAt.toISOString()}`;
}

/**
 * What the usage action reports for every provider the relay knows: not set up (with why), not
 * tracked, or its meters this month with a status; a pause by a Claude usage limit shows as paused.
 * Nothing about accounts: no names, addresses or tokens exist in its inputs.
 */
export function buildUsageReport(input: {
  providers: readonly ProviderInfo[];
  totals: readonly UsageTotals[];
  allowances: Readonly<Record<string, Allowance>>;
  pauses: readonly ProviderPause[];
  /** The OpenAI-compatible providers with prices configured (tracksCost). */
  priced: readonly string[];
  now: Date;
}): UsageReport {
  const { now } = input;
  const pausesInForce = input.pauses.filter((pause) => pause.until.getTime() > now.getTime());
  const providers = input.providers.map((provider): ProviderUsage => {
    const pause = pausesInForce.find((candidate) => candidate.provider === provider.id);
    if (!tracksUsage(provider)) {
      return provider.available
        ? { provider: provider.id, status: 'not_tracked', reason: '', meters: [], pausedUntil: null }
        : { provider: provider.id, status: 'not_set_up', reason: provider.reason, meters: [], pausedUntil: null };
    }
    const meters = metersOf(
      input.totals.find((totals) => totals.provider === provider.id),
      input.allowances[provider.id],
      now,
      tracksCost(provider, input.priced),
    );
    const reachedReason = limitReason(provider, meters);
    if (!provider.available && reachedReason === '' && pause === undefined) {
      return { provider: provider.id, status: 'not_set_up', reason: provider.reason, meters: [], pausedUntil: null };
    }
    if (pause !== undefined) {
      return { provider: provider.id, status: 'paused', reason: pause.reason, meters, pausedUntil: pause.until };
    }
    if (reachedReason !== '') return { provider: provider.id, status: 'limit_reached', reason: reachedReason, meters, pausedUntil: null };
    return { provider: provider.id, status: 'ok', reason: '', meters, pausedUntil: null };
  });
  return {
    providers,
    claudeUsageLimitPaused: pausesInForce.some((pause) => pause.provider === 'claude' || pause.provider === 'claude-api'),
  };
}

/** The provider whose cost a cap (planRefusal) holds. */
const CAPPED_PROVIDER = 'claude-api';

/**
 * Whether planRefusal can refuse any provider under these allowances: only with a claude-api cap. Without one the
 * catalogue need not read the month's totals.
 */
export function hasPlanCap(allowances: Readonly<Record<string, Allowance>>): boolean {
  return allowances[CAPPED_PROVIDER]?.monthlyUsd !== undefined;
}

/**
 * Why a provider cannot take turns now because of its plan (the claude-api cap reached), with the
 * provider's own code; undefined when nothing holds it. The catalogue makes it unavailable for this.
 */
export function planRefusal(
  provider: Pick<ProviderInfo, 'id' | 'name'>,
  totals: UsageTotals | undefined,
  allowance: Allowance | undefined,
  now: Date,
): { reason: string; reasonCode: string } | undefined {
  if (provider.id !== CAPPED_PROVIDER) return undefined;
  const reason = limitReason(
    provider,
    metersOf(totals, allowance, now).filter((m) => m.name === 'cost_usd'),
  );
  return reason === '' ? undefined : { reason, reasonCode: CLAUDE_API_CAP_REACHED };
}
