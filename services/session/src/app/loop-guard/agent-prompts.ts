/**
 * The loop guard's use cases: count one prompt to another agent (or, on a dry run, see whether one
 * fits) and grant 30 more after the user's Allow. The rule is loop-guard.ts; the state is the
 * session service's (loop_guards), changed under a row lock so racing counts never overshoot.
 */
import { appError, AppError } from '@relay/errors';
import { countPrompt, currentGuard, grantPrompts, isUsedUp, type LoopGuard } from '../../domain/loop-guard/loop-guard.ts';
import { invalidInput } from '../../domain/errors.ts';

/** What a change of the guard returns: the guard to store (unset: none to store) and the answer. */
export interface GuardChange<T> {
  write?: LoopGuard;
  result: T;
}

/** The guard as the store holds it (undefined: none yet), and the seq of the user's latest message in the session. */
export interface StoredGuard {
  guard: LoopGuard | undefined;
  latestUserSeq: number;
}

/** The conversations' loop guards. */
export interface LoopGuardStore {
  /**
   * Runs `change` on the session's stored guard in one transaction holding the session's row, and stores what it
   * returns as `write`. Throws REMOTE_RELAY_NOT_FOUND when there is no such session.
   */
  change<T>(sessionId: string, now: Date, change: (stored: StoredGuard) => GuardChange<T>): Promise<T>;
}

export interface AgentPromptCount {
  sent: number;
  allowed: number;
  /**
   * The prompt asked about may not go until the user allows more. Judged on the guard as that prompt finds it,
   * before it is counted, so a dry run and a count answer alike and a counted prompt always answers false.
   */
  usedUp: boolean;
}

/**
 * Counts one prompt the conversation sends to another agent (or, on a dry run, tells whether it may go); refuses
 * with REMOTE_RELAY_LOOP_GUARD when used up. A send, a create_session and a schedule's firing all get their answer
 * here: the 30th prompt goes, the 31st waits for the user.
 */
export async function countAgentPrompt(store: LoopGuardStore, input: { sessionId: string; dryRun: boolean }, now: Date): Promise<AgentPromptCount> {
  if (input.sessionId === '') throw invalidInput('session_id is required', { field: 'session_id' });
  return store.change(
    input.sessionId,
    now,
    onCurrentGuard((guard) => {
      if (input.dryRun) return { result: { sent: guard.sent, allowed: guard.allowed, usedUp: isUsedUp(guard) } };
      const next = countPrompt(guard);
      if (next === undefined) throw loopGuard(guard);
      return { next, result: { sent: next.sent, allowed: next.allowed, usedUp: false } };
    }),
  );
}

/** The user allowed more prompts on the loop-guard card: another 30 from what was sent. */
export async function grantAgentPrompts(store: LoopGuardStore, sessionId: string, now: Date): Promise<{ sent: number; allowed: number }> {
  if (sessionId === '') throw invalidInput('session_id is required', { field: 'session_id' });
  return store.change(
    sessionId,
    now,
    onCurrentGuard((guard) => {
      const next = grantPrompts(guard);
      return { next, result: { sent: next.sent, allowed: next.allowed } };
    }),
  );
}

/**
 * Decides on the guard as it stands (reset when the user wrote since it was stored). The guard to store is the
 * decision's `next`, else the reset guard when the reset changed it, so the user's message is counted once.
 */
function onCurrentGuard<T>(decide: (guard: LoopGuard) => { next?: LoopGuard; result: T }): (stored: StoredGuard) => GuardChange<T> {
  return (stored) => {
    const guard = currentGuard(stored.guard, stored.latestUserSeq);
    const { next, result } = decide(guard);
    return { write: next ?? (guard === stored.guard ? undefined : guard), result };
  };
}

function loopGuard(guard: LoopGuard): AppError {
  return appError(
    'REMOTE_RELAY_LOOP_GUARD',
    `This conversation has sent ${guard.sent} prompts to other agents since the user last wrote; the user must allow more first.`,
    { details: { sent: guard.sent, allowed: guard.allowed } },
  );
}
