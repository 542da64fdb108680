/**
 * Budgets over a delegation tree (issue 45, docs/adr/0039-tree-budgets.md): what the person allows a conversation and
 * every session started from it, directly or through others, to spend — US$, tokens, wall-clock minutes and sessions
 * started. Pure: the arithmetic of meters, the 80 % notice, the 100 % hold, how far a running turn may overshoot, and
 * how an agent narrows a budget for the sessions it starts. Every function that reads time takes `now`.
 */

/** What a budget allows; null: that meter is not limited. */
export interface BudgetLimits {
  costUsd: number | null;
  tokens: number | null;
  minutes: number | null;
  sessions: number | null;
}

/** Who set a budget: the person (user API), an agent narrowing it for a session it starts, or a paired relay carrying its own. */
export type BudgetSetBy = 'person' | 'agent' | 'relay';

/** active: turns run; reached: no new turn starts in the tree until the person raises it or ends it; ended: the person ended it. */
export type BudgetState = 'active' | 'reached' | 'ended';

export interface Budget {
  /** The conversation it governs: the root of its tree. */
  sessionId: string;
  userId: string;
  setBy: BudgetSetBy;
  limits: BudgetLimits;
  /** When the budget was set: its minutes count from here. */
  startedAt: Date;
  state: BudgetState;
  /** Whether the owner was told the tree passed WARN_AT of a meter (once per setting). */
  warned: boolean;
  /** The card the owner decides (the 80 % notice, then the 100 % hold); null when none is pending. */
  cardId: string | null;
}

/** A budget's cardId while the check that took its transition raises the card (no card has this id). */
export const CARD_BEING_RAISED = 'being-raised';

/** What a tree has used, summed from the per-turn ledger (and the paired relays' reports). */
export interface TreeSpend {
  costUsd: number;
  tokens: number;
  /** Sessions started in the tree (the conversation itself not counted). */
  sessions: number;
  /** The most one finished turn of the tree used: the "one turn's worth" a running turn may overshoot by. */
  largestTurnCostUsd: number;
  largestTurnTokens: number;
}

export type MeterName = 'cost_usd' | 'tokens' | 'minutes' | 'sessions';

export interface BudgetMeter {
  name: MeterName;
  used: number;
  limit: number;
  /** used / limit (1 = all used; a limit of 0 reads 1). */
  utilization: number;
}

/** The share of a meter at which the owner is told (and agents get a note). */
export const WARN_AT = 0.8;

const MINUTE_MS = 60_000;

/** Wall-clock minutes since the budget was set, at `now` (never negative). */
function minutesUsed(startedAt: Date, now: Date): number {
  return Math.max(0, (now.getTime() - startedAt.getTime()) / MINUTE_MS);
}

const round = (value: number): number => Math.round(value * 1e6) / 1e6;

/** The budget's limited meters against what the tree used, at `now`. */
export function budgetMeters(budget: Pick<Budget, 'startedAt' | 'limits'>, spend: TreeSpend, now: Date): BudgetMeter[] {
  const used: Record<MeterName, number> = {
    cost_usd: round(spend.costUsd),
    tokens: spend.tokens,
    minutes: round(minutesUsed(budget.startedAt, now)),
    sessions: spend.sessions,
  };
  const limits: Record<MeterName, number | null> = {
    cost_usd: budget.limits.costUsd,
    tokens: budget.limits.tokens,
    minutes: budget.limits.minutes,
    sessions: budget.limits.sessions,
  };
  return (Object.keys(used) as MeterName[]).flatMap((name) => {
    const limit = limits[name];
    if (limit === null) return [];
    return [{ name, used: used[name], limit, utilization: limit === 0 ? 1 : round(used[name] / limit) }];
  });
}

/** ok; warn: a meter is at WARN_AT or more; reached: a meter is used up (no new turn starts). */
export type BudgetLevel = 'ok' | 'warn' | 'reached';

/**
 * The level of a budget's meters: reached when money, tokens or minutes are used up, warn when any meter is at
 * WARN_AT. The sessions meter never holds turns by itself: a tree that started all the sessions it may goes on
 * working, and only a further start is refused (mayStartSession), which reaches the budget then.
 */
export function budgetLevel(meters: readonly BudgetMeter[]): BudgetLevel {
  if (meters.some((meter) => meter.name !== 'sessions' && meter.used >= meter.limit)) return 'reached';
  if (meters.some((meter) => meter.utilization >= WARN_AT)) return 'warn';
  return 'ok';
}

/**
 * Whether the tree has passed the budget by more than one turn's worth, so its running turns are stopped: the money
 * or tokens used exceed the limit plus the most one finished turn of the tree used, or the minutes ran out. Turns
 * are metered when they end, so a turn that was running when the tree reached 100 % is let finish unless the turns
 * ending around it take the tree that far past.
 */
export function overshotByMoreThanOneTurn(budget: Pick<Budget, 'startedAt' | 'limits'>, spend: TreeSpend, now: Date): boolean {
  const { costUsd, tokens, minutes } = budget.limits;
  if (costUsd !== null && spend.costUsd > costUsd + spend.largestTurnCostUsd) return true;
  if (tokens !== null && spend.tokens > tokens + spend.largestTurnTokens) return true;
  return minutes !== null && minutesUsed(budget.startedAt, now) >= minutes;
}

/** What a tree may still use under a budget (null: not limited), at `now`: what an agent's narrowing cannot exceed. */
export function remaining(budget: Pick<Budget, 'startedAt' | 'limits'>, spend: TreeSpend, now: Date): BudgetLimits {
  const left = (limit: number | null, used: number): number | null => (limit === null ? null : Math.max(0, round(limit - used)));
  return {
    costUsd: left(budget.limits.costUsd, spend.costUsd),
    tokens: left(budget.limits.tokens, spend.tokens),
    minutes: left(budget.limits.minutes, minutesUsed(budget.startedAt, now)),
    sessions: left(budget.limits.sessions, spend.sessions),
  };
}

/** The tighter of two limits on each meter: a narrowing never widens what either allows. */
export function narrowest(a: BudgetLimits, b: BudgetLimits): BudgetLimits {
  const min = (x: number | null, y: number | null): number | null => (x === null ? y : y === null ? x : Math.min(x, y));
  return { costUsd: min(a.costUsd, b.costUsd), tokens: min(a.tokens, b.tokens), minutes: min(a.minutes, b.minutes), sessions: min(a.sessions, b.sessions) };
}

/** Whether a budget limits anything. */
export function limitsAnything(limits: BudgetLimits): boolean {
  return limits.costUsd !== null || limits.tokens !== null || limits.minutes !== null || limits.sessions !== null;
}

/**
 * The limits a new setting leaves. The person sets them as given (raising or lowering); an agent or a paired relay
 * only narrows: each meter the tighter of what was there and what it asks.
 */
export function settle(existing: BudgetLimits | undefined, asked: BudgetLimits, setBy: BudgetSetBy): BudgetLimits {
  if (setBy === 'person' || existing === undefined) return asked;
  return narrowest(existing, asked);
}

/**
 * The budget's state after a setting: a person's setting reopens a reached budget (the tree runs again when the
 * meters allow it) and is warned anew; an agent's narrowing keeps the state.
 */
export function afterSetting(
  budget: Budget | undefined,
  limits: BudgetLimits,
  setBy: BudgetSetBy,
  now: Date,
  identity: Pick<Budget, 'sessionId' | 'userId'>,
): Budget {
  if (budget === undefined) return { ...identity, setBy, limits, startedAt: now, state: 'active', warned: false, cardId: null };
  if (setBy !== 'person') return { ...budget, limits };
  return { ...budget, setBy, limits, state: 'active', warned: false, cardId: null };
}

/** What a check of a budget decides: the owner told at 80 %, the tree held at 100 %, its running turns stopped past one turn's worth. */
export interface BudgetVerdict {
  level: BudgetLevel;
  /** Tell the owner (80 % card) now: not yet told, at warn. */
  warn: boolean;
  /** Hold the tree now (reached card): the budget was active. */
  reach: boolean;
  /** Stop the tree's running turns. */
  stopRunning: boolean;
}

/** The check after a turn's usage is recorded (or the minutes pass), at `now`. */
export function checkBudget(budget: Budget, spend: TreeSpend, now: Date): BudgetVerdict {
  const level = budgetLevel(budgetMeters(budget, spend, now));
  const open = budget.state === 'active';
  return {
    level,
    warn: open && level === 'warn' && !budget.warned,
    reach: open && level === 'reached',
    // A budget reached by a start its sessions meter refused holds new turns only: the running ones go on.
    stopRunning: budget.state === 'ended' || (level === 'reached' && overshotByMoreThanOneTurn(budget, spend, now)),
  };
}

/**
 * The limits the Allow on a reached budget's card gives: each used-up meter raised to what was used plus its limit
 * again (a US$5 budget reached at US$5.20 allows US$10.20; a limit of 0 raises by 1), the others as they were. The
 * person sets any other figure through the user API.
 */
export function raisedOnce(budget: Pick<Budget, 'startedAt' | 'limits'>, spend: TreeSpend, now: Date): BudgetLimits {
  const meters = budgetMeters(budget, spend, now);
  const raise = (name: MeterName, limit: number | null): number | null => {
    const meter = meters.find((candidate) => candidate.name === name);
    if (limit === null || meter === undefined || meter.used < meter.limit) return limit;
    return round(Math.max(meter.used, limit) + Math.max(limit, 1));
  };
  return {
    costUsd: raise('cost_usd', budget.limits.costUsd),
    tokens: raise('tokens', budget.limits.tokens),
    minutes: raise('minutes', budget.limits.minutes),
    sessions: raise('sessions', budget.limits.sessions),
  };
}

/** A short line of the meters for cards, notes and summaries: "US$4.10 of US$5 (82 %), 3 of 4 sessions". */
export function metersLine(meters: readonly BudgetMeter[]): string {
  const one = (meter: BudgetMeter): string => {
    const percent = `${Math.round(meter.utilization * 100)} %`;
    switch (meter.name) {
      case 'cost_usd':
        return `US$${meter.used} of US$${meter.limit} (${percent})`;
      case 'tokens':
        return `${meter.used} of ${meter.limit} tokens (${percent})`;
      case 'minutes':
        return `${Math.floor(meter.used)} of ${meter.limit} minutes (${percent})`;
      case 'sessions':
        return `${meter.used} of ${meter.limit} sessions (${percent})`;
    }
  };
  return meters.map(one).join(', ');
}

/** Whether the tree may start one more session under the budget: it is active and has sessions left. */
export function mayStartSession(budget: Pick<Budget, 'state' | 'limits'>, spend: Pick<TreeSpend, 'sessions'>): boolean {
  return budget.state === 'active' && (budget.limits.sessions === null || spend.sessions < budget.limits.sessions);
}
