/**
 * relay_tool's budget argument (this relay's extension, docs/relay-tool.md): the limits an agent gives a session it
 * starts (create_session) or started (send): { "cost_usd": 2, "tokens": 200000, "minutes": 30, "sessions": 3 }. It
 * only narrows: every budget over the caller's tree still governs the session.
 */
import type { BudgetLimits } from '@relay/proto/relay/session/v1/session_service';
import { toolError } from './errors.ts';

const METERS = { cost_usd: 'costUsd', tokens: 'tokens', minutes: 'minutes', sessions: 'sessions' } as const;
type Meter = keyof typeof METERS;

/** The limits of a budget argument (undefined when none was given); REMOTE_RELAY_INVALID_INPUT for anything else. */
export function budgetArgument(budget: Record<string, unknown> | undefined, nothingDone: string): BudgetLimits | undefined {
  if (budget === undefined) return undefined;
  const limits: BudgetLimits = {};
  for (const [name, value] of Object.entries(budget)) {
    if (!Object.hasOwn(METERS, name)) {
      throw toolError('REMOTE_RELAY_INVALID_INPUT', `budget takes ${Object.keys(METERS).join(', ')}; not ${name}. ${nothingDone}`, { field: 'budget' });
    }
    const whole = name !== 'cost_usd';
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (whole && !Number.isInteger(value))) {
      throw toolError(
        'REMOTE_RELAY_INVALID_INPUT',
        `budget.${name} must be ${whole ? 'a whole number' : 'a number of US dollars'}, 0 or more. ${nothingDone}`,
        { field: 'budget' },
      );
    }
    limits[METERS[name as Meter]] = value;
  }
  if (Object.keys(limits).length === 0)
    throw toolError('REMOTE_RELAY_INVALID_INPUT', `budget names none of ${Object.keys(METERS).join(', ')}. ${nothingDone}`, { field: 'budget' });
  return limits;
}

/** The tighter of two limits on each meter: what a call carries across a pairing never widens what either allows. */
export function narrowestLimits(a: BudgetLimits | undefined, b: BudgetLimits | undefined): BudgetLimits | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const min = (x: number | undefined, y: number | undefined) => (x === undefined ? y : y === undefined ? x : Math.min(x, y));
  return { costUsd: min(a.costUsd, b.costUsd), tokens: min(a.tokens, b.tokens), minutes: min(a.minutes, b.minutes), sessions: min(a.sessions, b.sessions) };
}

/** Limits as the budget argument spells them (what a call carries to a paired relay). */
export function asBudgetArgument(limits: BudgetLimits): Record<string, number> {
  return Object.fromEntries(
    (Object.entries(METERS) as [Meter, (typeof METERS)[Meter]][]).flatMap(([name, key]) => (limits[key] === undefined ? [] : [[name, limits[key]]])),
  );
}
