/** The budget arithmetic (domain/budgets): meters, the 80 % notice, the 100 % hold, overshoot, narrowing, raising; explicit `now`. */
import { describe, expect, it } from 'vitest';
import {
  afterSetting,
  budgetLevel,
  budgetMeters,
  checkBudget,
  mayStartSession,
  metersLine,
  narrowest,
  overshotByMoreThanOneTurn,
  raisedOnce,
  remaining,
  settle,
  type Budget,
  type TreeSpend,
} from '../../src/domain/budgets/budget.ts';
import { spendOf, totalsOf, type TreeUsageRow } from '../../src/domain/budgets/tree-usage.ts';

const SET_AT = new Date('2026-12-07T10:00:00.000Z');
const UNLIMITED = { costUsd: null, tokens: null, minutes: null, sessions: null };
const minutesLater = (minutes: number) => new Date(SET_AT.getTime() + minutes * 60_000);

function budget(limits: Partial<Budget['limits']>, state: Partial<Budget> = {}): Budget {
  return {
    sessionId: 'root',
    userId: 'ada',
    setBy: 'person',
    limits: { ...UNLIMITED, ...limits },
    startedAt: SET_AT,
    state: 'active',
    warned: false,
    cardId: null,
    ...state,
  };
}

function spend(fields: Partial<TreeSpend>): TreeSpend {
  return { costUsd: 0, tokens: 0, sessions: 0, largestTurnCostUsd: 0, largestTurnTokens: 0, ...fields };
}

describe('budget meters', () => {
  it('measures only the limited meters, minutes from when the budget was set', () => {
    const meters = budgetMeters(budget({ costUsd: 5, minutes: 60 }), spend({ costUsd: 2, tokens: 900 }), minutesLater(15));
    expect(meters).toEqual([
      { name: 'cost_usd', used: 2, limit: 5, utilization: 0.4 },
      { name: 'minutes', used: 15, limit: 60, utilization: 0.25 },
    ]);
    expect(metersLine(meters)).toBe('US$2 of US$5 (40 %), 15 of 60 minutes (25 %)');
  });

  it('reads a limit of 0 as used up', () => {
    expect(budgetMeters(budget({ tokens: 0 }), spend({}), SET_AT)).toEqual([{ name: 'tokens', used: 0, limit: 0, utilization: 1 }]);
  });

  it('does not count time before the budget was set', () => {
    expect(budgetMeters(budget({ minutes: 10 }), spend({}), minutesLater(-5))[0]?.used).toBe(0);
  });
});

describe('budget levels', () => {
  const cases: [string, Partial<Budget['limits']>, Partial<TreeSpend>, number, string][] = [
    ['below 80 %', { costUsd: 5 }, { costUsd: 3.99 }, 0, 'ok'],
    ['at 80 % of money', { costUsd: 5 }, { costUsd: 4 }, 0, 'warn'],
    ['at 100 % of money', { costUsd: 5 }, { costUsd: 5 }, 0, 'reached'],
    ['at 100 % of tokens', { tokens: 1000 }, { tokens: 1000 }, 0, 'reached'],
    ['with the minutes run out', { minutes: 30 }, {}, 30, 'reached'],
    ['at 80 % of the minutes', { minutes: 30 }, {}, 24, 'warn'],
    // All the sessions it may start are started: the tree works on; only a further start is refused.
    ['with every session started', { sessions: 3 }, { sessions: 3 }, 0, 'warn'],
  ];
  it.each(cases)('%s', (_name, limits, used, minutes, level) => {
    expect(budgetLevel(budgetMeters(budget(limits), spend(used), minutesLater(minutes)))).toBe(level);
  });

  it('lets a tree start sessions up to its limit and no more', () => {
    expect(mayStartSession(budget({ sessions: 3 }), { sessions: 2 })).toBe(true);
    expect(mayStartSession(budget({ sessions: 3 }), { sessions: 3 })).toBe(false);
    expect(mayStartSession(budget({ sessions: 3 }, { state: 'reached' }), { sessions: 0 })).toBe(false);
    expect(mayStartSession(budget({ costUsd: 1 }), { sessions: 500 })).toBe(true);
  });
});

describe('checkBudget', () => {
  it('tells the owner once at 80 %', () => {
    expect(checkBudget(budget({ costUsd: 5 }), spend({ costUsd: 4.2 }), SET_AT)).toEqual({ level: 'warn', warn: true, reach: false, stopRunning: false });
    expect(checkBudget(budget({ costUsd: 5 }, { warned: true }), spend({ costUsd: 4.5 }), SET_AT).warn).toBe(false);
  });

  it('holds the tree at 100 %, once', () => {
    expect(checkBudget(budget({ costUsd: 5 }), spend({ costUsd: 5.5, largestTurnCostUsd: 1 }), SET_AT)).toEqual({
      level: 'reached',
      warn: false,
      reach: true,
      stopRunning: false,
    });
    expect(checkBudget(budget({ costUsd: 5 }, { state: 'reached' }), spend({ costUsd: 5.5, largestTurnCostUsd: 1 }), SET_AT).reach).toBe(false);
  });

  it('stops the running turns once the tree is past the limit by more than its largest turn', () => {
    const limits = { costUsd: 5 };
    expect(checkBudget(budget(limits), spend({ costUsd: 6, largestTurnCostUsd: 1 }), SET_AT).stopRunning).toBe(false);
    expect(checkBudget(budget(limits), spend({ costUsd: 6.01, largestTurnCostUsd: 1 }), SET_AT).stopRunning).toBe(true);
    expect(overshotByMoreThanOneTurn(budget({ tokens: 100 }), spend({ tokens: 131, largestTurnTokens: 30 }), SET_AT)).toBe(true);
    expect(overshotByMoreThanOneTurn(budget({ minutes: 5 }), spend({}), minutesLater(5))).toBe(true);
    expect(overshotByMoreThanOneTurn(budget({ minutes: 5 }), spend({}), minutesLater(4.9))).toBe(false);
  });

  it('lets the running turns of a budget reached by its sessions meter go on', () => {
    expect(checkBudget(budget({ costUsd: 5, sessions: 3 }, { state: 'reached' }), spend({ costUsd: 1, sessions: 3 }), SET_AT)).toMatchObject({
      level: 'warn',
      stopRunning: false,
    });
  });

  it('stops the running turns of an ended budget', () => {
    expect(checkBudget(budget({ costUsd: 5 }, { state: 'ended' }), spend({}), SET_AT)).toMatchObject({
      level: 'ok',
      stopRunning: true,
      reach: false,
      warn: false,
    });
  });
});

describe('narrowing and raising', () => {
  it('lets an agent or a paired relay only narrow, and the person set anything', () => {
    const existing = { ...UNLIMITED, costUsd: 2, sessions: 3 };
    const asked = { ...UNLIMITED, costUsd: 10, tokens: 500 };
    expect(settle(existing, asked, 'agent')).toEqual({ costUsd: 2, tokens: 500, minutes: null, sessions: 3 });
    expect(settle(existing, asked, 'relay')).toEqual({ costUsd: 2, tokens: 500, minutes: null, sessions: 3 });
    expect(settle(existing, asked, 'person')).toEqual(asked);
    expect(settle(undefined, asked, 'agent')).toEqual(asked);
    expect(narrowest(asked, UNLIMITED)).toEqual(asked);
  });

  it('reopens a reached budget on the person’s setting, never on an agent’s', () => {
    const reached = budget({ costUsd: 5 }, { state: 'reached', warned: true, cardId: 'card-1' });
    const limits = { ...UNLIMITED, costUsd: 8 };
    expect(afterSetting(reached, limits, 'person', minutesLater(1), reached)).toMatchObject({
      state: 'active',
      warned: false,
      cardId: null,
      limits,
      startedAt: SET_AT,
    });
    expect(afterSetting(reached, limits, 'agent', minutesLater(1), reached)).toMatchObject({ state: 'reached', cardId: 'card-1' });
    expect(afterSetting(undefined, limits, 'agent', minutesLater(1), { sessionId: 'child', userId: 'ada' })).toEqual({
      sessionId: 'child',
      userId: 'ada',
      setBy: 'agent',
      limits,
      startedAt: minutesLater(1),
      state: 'active',
      warned: false,
      cardId: null,
    });
  });

  it('raises each used-up meter by its size again on the card’s Allow, and leaves the others', () => {
    const limits = { costUsd: 5, tokens: 10_000, minutes: null, sessions: 3 };
    expect(raisedOnce(budget(limits), spend({ costUsd: 5.2, tokens: 4000, sessions: 3 }), SET_AT)).toEqual({
      costUsd: 10.2,
      tokens: 10_000,
      minutes: null,
      sessions: 6,
    });
    expect(raisedOnce(budget({ sessions: 0 }), spend({}), SET_AT).sessions).toBe(1);
  });

  it('says what is left', () => {
    expect(remaining(budget({ costUsd: 5, minutes: 60, sessions: 3 }), spend({ costUsd: 5.5, sessions: 1 }), minutesLater(20))).toEqual({
      costUsd: 0,
      tokens: null,
      minutes: 40,
      sessions: 2,
    });
  });
});

describe('tree usage', () => {
  const row = (sessionId: string, provider: string, costUsd: number, tokens: number, largest: number): TreeUsageRow => ({
    sessionId,
    provider,
    relay: 'desk',
    turns: 2,
    inputTokens: tokens,
    outputTokens: 10,
    costUsd,
    largestTurnCostUsd: largest,
    largestTurnTokens: tokens,
  });

  it('sums the rows exactly and measures one turn’s worth as the largest turn', () => {
    const rows = [row('a', 'openai', 0.1, 100, 0.07), row('b', 'script', 0.2, 50, 0.15), row('b', 'openai', 0.3, 25, 0.2)];
    expect(totalsOf(rows)).toEqual({ turns: 6, inputTokens: 175, outputTokens: 30, costUsd: 0.6 });
    expect(spendOf(rows, 2)).toEqual({ costUsd: 0.6, tokens: 205, sessions: 2, largestTurnCostUsd: 0.2, largestTurnTokens: 100 });
    expect(spendOf([], 0)).toEqual({ costUsd: 0, tokens: 0, sessions: 0, largestTurnCostUsd: 0, largestTurnTokens: 0 });
  });
});
