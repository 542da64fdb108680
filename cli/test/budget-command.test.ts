import { describe, expect, it } from 'vitest';
import { formatTreeUsage } from '../src/commands/budget.ts';
import type { Schemas } from '@relay/user-api';
import { HELP_TEXT, parseCommand, USAGE_EXIT_CODE } from '../src/parse-command.ts';

const spent = (turns: number, inputTokens: number, outputTokens: number, costUsd: number) => ({ turns, inputTokens, outputTokens, costUsd });

/** A tree of a conversation, a session it started here and one on a paired relay, under a US$5 budget at 80 %. */
const TREE: Schemas['TreeUsage'] = {
  session: 'root',
  rows: [
    { session: 'root', relay: 'desk', provider: 'openai', ...spent(2, 1200, 300, 1.5) },
    { session: 'child', relay: 'desk', provider: 'script', ...spent(1, 0, 0, 0) },
    { session: 'far', relay: 'build-box', provider: 'openai', ...spent(3, 2000, 500, 2.5) },
  ],
  totals: spent(6, 3200, 800, 4),
  sessionsStarted: 2,
  budgets: [
    {
      session: 'root',
      setBy: 'person',
      state: 'active',
      level: 'warn',
      startedAt: '2026-12-07T10:00:00.000Z',
      limits: { costUsd: 5, tokens: null, minutes: null, sessions: 3 },
      remaining: { costUsd: 1, tokens: null, minutes: null, sessions: 1 },
      meters: [
        { name: 'cost_usd', used: 4, limit: 5, utilization: 0.8 },
        { name: 'sessions', used: 2, limit: 3, utilization: 0.666667 },
      ],
      cardId: 'card_80',
    },
  ],
};

describe('relay budget and relay usage --tree', () => {
  it('reads a budget to set, to remove, or to show', () => {
    expect(parseCommand(['budget', 'root', '--cost-usd', '5', '--sessions', '12'])).toEqual({
      kind: 'budget',
      sessionId: 'root',
      limits: { costUsd: 5, sessions: 12 },
      remove: false,
      json: false,
    });
    expect(parseCommand(['budget', 'root', '--tokens=200000', '--minutes', '30', '--json'])).toEqual({
      kind: 'budget',
      sessionId: 'root',
      limits: { tokens: 200000, minutes: 30 },
      remove: false,
      json: true,
    });
    expect(parseCommand(['budget', 'root', '--cost-usd', '0.25'])).toMatchObject({ limits: { costUsd: 0.25 } });
    expect(parseCommand(['budget', 'root', '--remove'])).toEqual({ kind: 'budget', sessionId: 'root', remove: true, json: false });
    expect(parseCommand(['budget', 'root'])).toEqual({ kind: 'budget', sessionId: 'root', remove: false, json: false });
    expect(parseCommand(['usage', '--tree', 'root'])).toEqual({ kind: 'usage', json: false, tree: 'root' });
  });

  it.each([
    [['budget']],
    [['budget', 'a', 'b']],
    [['budget', 'root', '--tokens', '1.5']],
    [['budget', 'root', '--sessions', '-1']],
    [['budget', 'root', '--cost-usd', 'lots']],
    [['budget', 'root', '--remove', '--cost-usd', '5']],
    [['usage', '--tree', 'root', '--days', '3']],
  ])('refuses %j with the usage exit code', (argv) => {
    expect(() => parseCommand(argv)).toThrow(expect.objectContaining({ exitCode: USAGE_EXIT_CODE }));
  });

  it('is in the help', () => {
    expect(HELP_TEXT).toContain('relay usage --tree SESSION');
    expect(HELP_TEXT).toContain('relay budget SESSION [--cost-usd N] [--tokens N] [--minutes N] [--sessions N] [--remove]');
  });

  it('shows the tree by session, relay and provider with its total, then each budget over it', () => {
    expect(formatTreeUsage(TREE).split('\n')).toEqual([
      'SESSION  RELAY      PROVIDER  TURNS  TOKENS  COST',
      'root     desk       openai    2      1,500   $1.50',
      'child    desk       script    1      0       $0.00',
      'far      build-box  openai    3      2,500   $2.50',
      'TOTAL                         6      4,000   $4.00',
      'Sessions started in the tree: 2.',
      'Budget on this conversation (set by person): active, cost $4.00 of $5.00 (80 %), sessions 2 of 3 (67 %); card card_80 waits in your Inbox.',
    ]);
  });

  it('says when the tree spent nothing and no budget is over it', () => {
    expect(formatTreeUsage({ ...TREE, rows: [], totals: spent(0, 0, 0, 0), sessionsStarted: 0, budgets: [] }).split('\n')).toEqual([
      'The tree under root has spent nothing.',
      'Sessions started in the tree: 0.',
      'No budget is set over this tree.',
    ]);
  });
});
