import { describe, expect, it } from 'vitest';
import { formatUsage } from '../src/commands/usage.ts';

describe('relay usage', () => {
  it("shows each provider's meters as an aligned table, and a Claude usage limit below", () => {
    const text = formatUsage({
      providers: [
        {
          provider: 'claude-api',
          status: 'ok',
          meters: [{ name: 'cost_usd', used: 12.5, allowance: 50, remaining: 37.5, utilization: 0.25, resetsAt: '2026-12-01T00:00:00.000Z' }],
        },
        { provider: 'claude', status: 'paused', pausedUntil: '2026-11-30T15:00:00.000Z', meters: [{ name: 'tokens', used: 1234567, allowance: null, remaining: null, utilization: null, resetsAt: null }] },
        { provider: 'codex', status: 'not_set_up', reason: 'no OPENAI_API_KEY', meters: [] },
      ],
      claudeUsageLimitPaused: true,
    });
    expect(text.split('\n')).toEqual([
      'PROVIDER    STATUS                                 METER     USED       ALLOWANCE  LEFT    RESETS                    WHY',
      'claude-api  ok                                     cost_usd  $12.50     $50.00     $37.50  2026-12-01T00:00:00.000Z',
      'claude      paused until 2026-11-30T15:00:00.000Z  tokens    1,234,567  -          -       -',
      'codex       not_set_up                             -         -          -          -       -                         no OPENAI_API_KEY',
      'A Claude usage limit holds the turns of claude and claude-api sessions now.',
    ]);
  });

  it('says when the relay has no providers', () => {
    expect(formatUsage({ providers: [], claudeUsageLimitPaused: false })).toBe('No providers on this relay.');
  });
});
