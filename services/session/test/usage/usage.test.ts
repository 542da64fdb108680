import { describe, expect, it } from 'vitest';
import type { ProviderInfo } from '../../src/domain/catalogue/provider-catalogue.ts';
import {
  buildUsageReport,
  hasPlanCap,
  heldProviders,
  metersOf,
  monthStart,
  nextMonthStart,
  planRefusal,
  tracksCost,
  type UsageTotals,
} from '../../src/domain/usage/usage.ts';

const NOW = new Date('2026-11-30T10:00:00.000Z');

function provider(id: string, family: ProviderInfo['family'], available = true, reason = ''): ProviderInfo {
  return { id, name: id, family, available, reason, reasonCode: '', defaultModel: '', models: [], modelsKnown: true, efforts: [] };
}

const totals = (provider: string, inputTokens: number, outputTokens: number, costUsd: number): UsageTotals => ({
  provider,
  inputTokens,
  outputTokens,
  costUsd,
});

describe('the month the meters count', () => {
  it.each([
    ['2026-11-30T10:00:00.000Z', '2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z'],
    ['2026-12-31T23:59:59.999Z', '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
    ['2027-01-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z', '2027-02-01T00:00:00.000Z'],
    ['2028-02-29T12:00:00.000Z', '2028-02-01T00:00:00.000Z', '2028-03-01T00:00:00.000Z'],
  ])('at %s it starts %s and resets %s (UTC)', (now, start, reset) => {
    expect(monthStart(new Date(now)).toISOString()).toBe(start);
    expect(nextMonthStart(new Date(now)).toISOString()).toBe(reset);
  });
});

describe('tracksCost', () => {
  it('Claude Code reports cost; an OpenAI-compatible endpoint only with prices', () => {
    expect(tracksCost({ id: 'claude-api', family: 'claude' }, [])).toBe(true);
    expect(tracksCost({ id: 'deepseek', family: 'deepseek' }, [])).toBe(false);
    expect(tracksCost({ id: 'deepseek', family: 'deepseek' }, ['deepseek'])).toBe(true);
    expect(tracksCost({ id: 'grok', family: 'openai' }, ['openai'])).toBe(false);
  });
});

describe('metersOf', () => {
  it('has no cost meter for a provider whose cost is not tracked', () => {
    expect(metersOf(totals('grok', 700, 500, 0), { monthlyTokens: 1000 }, NOW, false)).toEqual([
      { name: 'tokens', used: 1200, allowance: 1000, remaining: 0, utilization: 1.2, resetsAt: new Date('2026-12-01T00:00:00.000Z') },
    ]);
  });

  it('meters tokens and cost against allowances: remaining never below 0, utilization may pass 1', () => {
    expect(metersOf(totals('openai', 700, 500, 3.25), { monthlyTokens: 1000, monthlyUsd: 10 }, NOW)).toEqual([
      { name: 'tokens', used: 1200, allowance: 1000, remaining: 0, utilization: 1.2, resetsAt: new Date('2026-12-01T00:00:00.000Z') },
      { name: 'cost_usd', used: 3.25, allowance: 10, remaining: 6.75, utilization: 0.325, resetsAt: new Date('2026-12-01T00:00:00.000Z') },
    ]);
  });

  it('without an allowance shows what was used only', () => {
    expect(metersOf(undefined, undefined, NOW)[0]).toEqual({
      name: 'tokens',
      used: 0,
      allowance: null,
      remaining: null,
      utilization: null,
      resetsAt: new Date('2026-12-01T00:00:00.000Z'),
    });
  });
});

describe('buildUsageReport', () => {
  const providers = [
    provider('script', 'script'),
    provider('openai', 'openai'),
    provider('claude', 'claude'),
    provider('claude-api', 'claude'),
    provider('claude-cloud', 'claude'),
    provider('copilot', 'copilot', false, 'GitHub Copilot token not configured (COPILOT_GITHUB_TOKEN)'),
    provider('deepseek', 'deepseek', false, 'no DeepSeek API key configured (DEEPSEEK_API_KEY)'),
  ];

  it('says per provider: tracked with meters, not tracked, or not set up with why', () => {
    const report = buildUsageReport({ providers, totals: [totals('openai', 10, 5, 0)], allowances: {}, pauses: [], priced: [], now: NOW });
    const byId = Object.fromEntries(report.providers.map((p) => [p.provider, p]));
    expect(byId['script']).toEqual({ provider: 'script', status: 'not_tracked', reason: '', meters: [], pausedUntil: null });
    // Claude Cloud meters what the Managed Agents API reports: its tokens and its list cost.
    expect(byId['claude-cloud']).toMatchObject({ status: 'ok', meters: [{ name: 'tokens' }, { name: 'cost_usd' }] });
    // openai without prices: tokens only, no cost meter pretending to read US$0.
    expect(byId['openai']).toMatchObject({ status: 'ok', meters: [{ name: 'tokens', used: 15 }] });
    expect(byId['openai']!.meters).toHaveLength(1);
    expect(byId['claude']).toMatchObject({ status: 'ok', meters: [{ used: 0 }, { used: 0 }] });
    expect(byId['copilot']).toEqual({
      provider: 'copilot',
      status: 'not_set_up',
      reason: 'GitHub Copilot token not configured (COPILOT_GITHUB_TOKEN)',
      meters: [],
      pausedUntil: null,
    });
    expect(byId['deepseek']!.status).toBe('not_set_up');
    expect(report.claudeUsageLimitPaused).toBe(false);
  });

  it('meters the cost of an OpenAI-compatible provider with prices, against its cost allowance', () => {
    const report = buildUsageReport({
      providers,
      totals: [totals('openai', 10_000, 2_000, 0.0049)],
      allowances: { openai: { monthlyUsd: 0.01 } },
      pauses: [],
      priced: ['openai'],
      now: NOW,
    });
    expect(report.providers.find((p) => p.provider === 'openai')).toMatchObject({
      status: 'ok',
      meters: [
        { name: 'tokens', used: 12_000, allowance: null },
        { name: 'cost_usd', used: 0.0049, allowance: 0.01, remaining: 0.0051, utilization: 0.49 },
      ],
    });
  });

  it('marks a provider whose allowance is used up as at its limit, with when it resets', () => {
    const report = buildUsageReport({
      providers,
      totals: [totals('openai', 900, 200, 0)],
      allowances: { openai: { monthlyTokens: 1000 } },
      pauses: [],
      priced: [],
      now: NOW,
    });
    expect(report.providers.find((p) => p.provider === 'openai')).toMatchObject({
      status: 'limit_reached',
      reason: 'the monthly allowance of 1000 tokens for openai is reached; it resets 2026-12-01T00:00:00.000Z',
    });
  });

  it('shows a Claude usage limit pause while it holds, and not after', () => {
    const pause = {
      provider: 'claude',
      until: new Date('2026-11-30T13:00:00.000Z'),
      reason: 'a Claude usage limit holds turns until 2026-11-30T13:00:00.000Z',
    };
    const during = buildUsageReport({ providers, totals: [], allowances: {}, pauses: [pause], priced: [], now: NOW });
    expect(during.claudeUsageLimitPaused).toBe(true);
    expect(during.providers.find((p) => p.provider === 'claude')).toMatchObject({ status: 'paused', pausedUntil: pause.until, reason: pause.reason });
    const after = buildUsageReport({ providers, totals: [], allowances: {}, pauses: [pause], priced: [], now: new Date('2026-11-30T13:00:00.000Z') });
    expect(after.claudeUsageLimitPaused).toBe(false);
    expect(after.providers.find((p) => p.provider === 'claude')!.status).toBe('ok');
  });
});

describe('planRefusal: the claude-api monthly cap', () => {
  const claudeApi = { id: 'claude-api', name: 'Claude API' };

  it('refuses with CLAUDE_API_CAP_REACHED once this month’s cost reaches the cap', () => {
    expect(planRefusal(claudeApi, totals('claude-api', 0, 0, 9.99), { monthlyUsd: 10 }, NOW)).toBeUndefined();
    expect(planRefusal(claudeApi, totals('claude-api', 0, 0, 10), { monthlyUsd: 10 }, NOW)).toEqual({
      reasonCode: 'CLAUDE_API_CAP_REACHED',
      reason: 'the monthly cap of US$10 for Claude API is reached; it resets 2026-12-01T00:00:00.000Z',
    });
  });

  it('has no cap without one configured, and caps no other provider', () => {
    expect(planRefusal(claudeApi, totals('claude-api', 0, 0, 1000), undefined, NOW)).toBeUndefined();
    expect(planRefusal({ id: 'claude', name: 'Claude' }, totals('claude', 0, 0, 1000), { monthlyUsd: 1 }, NOW)).toBeUndefined();
    expect(planRefusal(claudeApi, totals('claude-api', 0, 0, 1000), { monthlyTokens: 10 }, NOW)).toBeUndefined();
  });

  it('is possible only with a claude-api cap in US$ (hasPlanCap), so that only then are the totals read', () => {
    expect(hasPlanCap({ 'claude-api': { monthlyUsd: 10 } })).toBe(true);
    expect(hasPlanCap({})).toBe(false);
    expect(hasPlanCap({ 'claude-api': { monthlyTokens: 10 }, openai: { monthlyUsd: 5 } })).toBe(false);
  });
});

describe('heldProviders: whose queued turns a usage limit holds', () => {
  const pause = (provider: string, until: string) => ({ provider, until: new Date(until), reason: 'limit' });

  it('holds a provider while its pause lasts, and lets it go at the reset instant', () => {
    const pauses = [pause('claude', '2026-11-30T15:00:00.000Z'), pause('claude-api', '2026-11-30T09:00:00.000Z')];
    expect(heldProviders(pauses, NOW)).toEqual(['claude']);
    expect(heldProviders(pauses, new Date('2026-11-30T14:59:59.999Z'))).toEqual(['claude']);
    expect(heldProviders(pauses, new Date('2026-11-30T15:00:00.000Z'))).toEqual([]);
  });

  it('names a provider once, and none without pauses', () => {
    expect(heldProviders([pause('claude', '2026-11-30T11:00:00.000Z'), pause('claude', '2026-11-30T12:00:00.000Z')], NOW)).toEqual(['claude']);
    expect(heldProviders([], NOW)).toEqual([]);
  });
});
